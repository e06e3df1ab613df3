/**
 * Table views against the same queries run directly in SQLite: every filter operator, sorts with
 * NULLs, counts and facets, on a table with NULLs, mixed types, duplicates and non-Latin text.
 * Real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowsePage } from '../src/browse/index.js';
import { queryRows } from '../src/browse/query-rows.js';
import type { QueryPool } from '../src/pool/pool.js';
import { browse, browseScraper } from './helpers/browse-fixture.js';
import { startPool } from './helpers/query-pool.js';

const suburbs = ['Katoomba', 'Leura', '東京', 'Zürich', 'Ñuñoa', 'katoomba', '50%_off', ''];
const prices: unknown[] = [10, '10', 2.5, null, 'abc', -3, 10, 1e6, '007', 0];
const rows = Array.from({ length: 120 }, (_, i) => {
  const suburb = i % 13 === 0 ? null : suburbs[i % suburbs.length]!;
  const day = `2024-05-${String((i % 3) + 1).padStart(2, '0')}`;
  const date = i % 4 === 0 ? day : `${day}T0${i % 10}:30:00Z`;
  return [i + 1, suburb, prices[i % prices.length], i % 5 === 0 ? null : `note ${i % 6}`, i % 9 === 0 ? null : date];
});
const literal = (v: unknown) => (v === null ? 'null' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const { scraper, db, table } = browseScraper(
  `create table places (id integer primary key, suburb text, price, note text, "seen at" text);
   insert into places values ${rows.map((r) => `(${r.map(literal).join(', ')})`).join(', ')};`,
);
const places = table('places');

let pool: QueryPool;
before(async () => {
  pool = startPool(1);
  await pool.ready();
});
after(() => pool.close());

const ids = (page: BrowsePage) => page.rows.map((r) => Number(r.rowid));
const oracle = (where: string, order = 'id') =>
  db.prepare(`select id from places where ${where} order by ${order}`).pluck().all() as number[];

test('every operator selects the rows the same condition selects in SQLite, and counts them', async () => {
  const cases: [string, string][] = [
    ['suburb=Katoomba', "suburb = 'Katoomba'"],
    ['suburb__exact=東京', "suburb = '東京'"],
    ['price=10', "price = 10 or price = '10'"],
    ['price__not=10', "price != 10 and price != '10'"],
    ['suburb__contains=OOM', "instr(lower(suburb), 'oom') > 0"],
    ['suburb__contains=50%_', "instr(suburb, '50%_') > 0"],
    ['suburb__notcontains=oom', "instr(lower(suburb), 'oom') = 0"],
    ['suburb__startswith=ka', "lower(substr(suburb, 1, 2)) = 'ka'"],
    ['suburb__endswith=ñoa', "substr(suburb, -3) = 'ñoa'"],
    ['price__gt=5', 'price > 5'],
    ['price__gte=10', 'price >= 10'],
    ['price__lt=10', 'price < 10'],
    ['price__lte=0', 'price <= 0'],
    ['suburb__gt=L', "suburb > 'L'"],
    ['suburb__like=k%a', "suburb like 'k%a'"],
    ['suburb__notlike=k%', "suburb not like 'k%'"],
    ['suburb__glob=*ü*', "suburb glob '*ü*'"],
    ['suburb__in=Leura,東京', "suburb in ('Leura', '東京')"],
    ['price__in=[10,"abc"]', "price in (10, '10', 'abc')"],
    ['suburb__notin=["Leura","","Katoomba"]', "suburb not in ('Leura', '', 'Katoomba')"],
    ['note__isnull=1', 'note is null'],
    ['note__notnull=1', 'note is not null'],
    ['suburb__isblank=1', "suburb is null or suburb = ''"],
    ['suburb__notblank=1', "suburb is not null and suburb != ''"],
    ['seen at__date=2024-05-02', 'date("seen at") = \'2024-05-02\''],
    ['suburb=Leura&price__gt=0&note__notnull=1', "suburb = 'Leura' and price > 0 and note is not null"],
  ];
  for (const [query, where] of cases) {
    const page = await browse(pool, scraper, places, `${query.replace('seen at', 'seen%20at')}&_size=1000`);
    const expected = oracle(where);
    assert.ok(expected.length > 0, `${query} selects rows`);
    assert.deepEqual(ids(page), expected, query);
    assert.deepEqual([page.count, page.countTruncated], [expected.length, false], query);
  }
});

test('sorts order the rows as SQLite does, NULLs first ascending and last descending, then by rowid', async () => {
  const cases: [string, string][] = [
    ['_sort=price', 'price, id'],
    ['_sort_desc=price', 'price desc, id desc'],
    ['_sort=suburb&_sort_desc=note', 'suburb, note desc, id desc'],
    ['_sort_desc=suburb&_sort=price', 'suburb desc, price, id'],
  ];
  for (const [query, order] of cases) {
    assert.deepEqual(ids(await browse(pool, scraper, places, `${query}&_size=1000`)), oracle('1', order), query);
  }
});

test("facets count the selection's values as SQLite groups them, and mark the selected ones", async () => {
  const page = await browse(pool, scraper, places, '_facet=suburb&_facet=price&_facet=note&note__notnull=1&suburb=Leura&_facet_size=3');
  for (const column of ['suburb', 'price', 'note']) {
    const expected = db
      .prepare(
        `select ${column} as v, count(*) as n from places where note is not null and suburb = 'Leura' group by ${column} order by n desc, v`,
      )
      .all() as { v: unknown; n: number }[];
    const facet = page.facets[column]!;
    assert.equal(facet.truncated, expected.length > 3, column);
    assert.equal(facet.timedOut, false);
    assert.deepEqual(
      facet.values.map(({ value, count }) => ({
        v: value.kind === 'null' ? null : value.kind === 'number' ? Number(value.text) : value.text,
        n: count,
      })),
      expected.slice(0, 3),
      column,
    );
  }
  assert.deepEqual(
    page.facets.suburb!.values.map((v) => v.selected),
    [true],
  );
  // Mixed types and NULLs on the whole table, no filter.
  const whole = await browse(pool, scraper, places, '_facet=price&_facet_size=100');
  const expected = db.prepare('select price as v, count(*) as n from places group by price order by n desc, v').all() as {
    v: unknown;
    n: number;
  }[];
  assert.deepEqual(
    whole.facets.price!.values.map(({ value, count }) => [value.kind, count]),
    expected.map(({ v, n }) => [v === null ? 'null' : typeof v === 'number' ? 'number' : 'text', n]),
  );
  // Non-Latin text, values differing only in case, the empty text and NULL: value by value.
  const bySuburb = await browse(pool, scraper, places, '_facet=suburb&_facet_size=100');
  const suburbCounts = db.prepare('select suburb as v, count(*) as n from places group by suburb order by n desc, v').all();
  assert.deepEqual(
    bySuburb.facets.suburb!.values.map(({ value, count }) => ({ v: value.kind === 'null' ? null : value.text, n: count })),
    suburbCounts,
  );
  // Columns with a few distinct values are suggested, those faceted or filtered to one value not.
  assert.ok(whole.suggestedFacets.includes('suburb') && whole.suggestedFacets.includes('note'), whole.suggestedFacets.join());
  assert.ok(!whole.suggestedFacets.includes('price') && !whole.suggestedFacets.includes('id'));
});

test('the count of the whole table is the one taken at publish; the page says what it shows', async () => {
  const page = await browse(pool, scraper, places, '_sort_desc=price&suburb=Leura&price__gt=1');
  assert.equal(
    page.description,
    `${oracle("suburb = 'Leura' and price > 1").length} rows where suburb = Leura and price > 1, sorted by price descending`,
  );
  const whole = await browse(pool, scraper, places, '_size=5&_col=suburb');
  assert.deepEqual([whole.count, whole.countTruncated, whole.columns, whole.rows.length], [120, false, ['suburb'], 5]);
  assert.equal(whole.description, '120 rows');
});

test("a saved query's rows: SQL as long as --max-query-chars allows runs, past the views' own bound; longer is refused", async () => {
  const sql = `select count(*) as n from places -- ${'x'.repeat(300_000)}`;
  const options = { maxRows: 5, maxCellChars: 100, laneKey: 'k' };
  const answer = await queryRows(pool, scraper, sql, undefined, { ...options, maxQueryChars: sql.length });
  assert.deepEqual(
    [answer.columns, answer.rows.map((row) => row.map((cell) => (cell.kind === 'null' ? null : cell.text))), answer.more],
    [['n'], [['120']], false],
  );
  await assert.rejects(queryRows(pool, scraper, sql, undefined, { ...options, maxQueryChars: sql.length - 1 }), {
    code: 'SIPHON_ERR_QUERY_TOO_LONG',
  });
});
