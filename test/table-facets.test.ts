/**
 * Facets past their page's budget go on in the background and are cached when done, so a later
 * visitor is served at once; one run per selection and column, and only a few such runs at once.
 * A view of six million generated rows makes each facet take seconds. Real servers, query processes
 * and data files.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { browseTable, parseView } from '../src/browse/index.js';
import { facetRunCounts, maxBackgroundFacets } from '../src/browse/facet-runs.js';
import type { QueryPool } from '../src/pool/pool.js';
import { tablePath } from '../src/views/table-paths.js';
import { browseScraper } from './helpers/browse-fixture.js';
import { waitFor } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { startPool } from './helpers/query-pool.js';
import { startServer } from './helpers/server.js';

const rows = 6_000_000;
const slowView = `create view slow as with recursive c(x) as (select 1 union all select x + 1 from c limit ${rows})
  select x % 2 as a, x % 3 as b, x % 5 as c, x % 7 as d, x % 11 as e, x % 13 as f from c;`;

/** How many of 1…rows leave remainder `r` divided by `m`. */
const remainders = (m: number, r: number) => Math.floor((rows - r) / m) + (r > 0 ? 1 : 0);

const closing: (() => Promise<void>)[] = [];
after(() => Promise.all(closing.map((close) => close())));

test('a facet past the budget on the first load is served from the cache on a later one', async () => {
  const server = await startServer({ queryTimeoutMs: 120_000 });
  closing.push(() => server.close());
  const { key } = await server.catalog.addUser('alice');
  await server.catalog.addScraper('alice/slow', makeDb(server.dataDir, 'slow.sqlite', slowView), { isPrivate: false, description: '' });
  const page = `${server.base}${tablePath('alice', 'slow', 'slow')}?_facet=d&_size=5`;
  const first = await (await fetch(page)).text();
  assert.match(first, /class="facet-timeout"/);
  // Each load waits for the facet's run (the visitor's lane, then the budget): no sleeps needed. On a
  // busy machine a load may wait past the queue's limit behind that run, for the pages' one query
  // process: answered 503, not yet served either.
  const load = async () => {
    const res = await fetch(page);
    return { status: res.status, text: await res.text() };
  };
  const deadline = performance.now() + 100_000;
  let later = { status: 200, text: first };
  while (later.status === 503 || later.text.includes('class="facet-timeout"')) {
    assert.ok(performance.now() < deadline, 'the facet was never served');
    later = await load();
  }
  assert.equal(later.status, 200);
  assert.match(later.text, /<a href="[^"]*d=1[^"]*"[^>]*>1<\/a> <span class="count">857,143<\/span>/);
  // The twin, from another pool, is served from the same cache.
  const twin = (await (await fetch(`${page.replace('?', '.json?')}`, { headers: { 'x-api-key': key } })).json()) as {
    facets: { d: { values: { value: number; count: number }[]; timed_out: boolean } };
  };
  assert.equal(twin.facets.d.timed_out, false);
  const expected = [1, 2, 3, 4, 5, 6, 0].map((value) => ({ value, count: remainders(7, value) }));
  assert.deepEqual(
    twin.facets.d.values.map(({ value, count }) => ({ value, count })),
    expected,
  );
});

test('one run per selection and column, and never more than a few in the background at once', async () => {
  // The runs counted are this process's: none may be left from the test before.
  await waitFor(() => facetRunCounts().running === 0, 120_000);
  const { scraper, table } = browseScraper(slowView);
  const slow = table('slow');
  const pool: QueryPool = startPool(2);
  closing.push(() => pool.close());
  await pool.ready();
  const load = async (query: string, lane: string) => {
    const page = await browseTable(pool, scraper, slow, parseView(new URLSearchParams(query), slow), lane);
    assert.ok(
      Object.values(page.facets).every((f) => f.timedOut),
      query,
    );
  };
  // Counted by the runs themselves: the pool's busy processes would also count a stopped count or
  // suggestions query whose process is not yet free again.
  await load('_facet=a&_size=1', 'visitor 1');
  assert.deepEqual(facetRunCounts(), { running: 1, background: 1 });
  // The same facet again waits for the run going on rather than starting another.
  await load('_facet=a&_size=2', 'visitor 1');
  assert.deepEqual(facetRunCounts(), { running: 1, background: 1 });
  // Another visitor's facets, past the budget, start only while fewer than the bound go on.
  await load('_facet=b&_facet=c&_facet=d&_facet=e&_facet=f&_size=1', 'visitor 2');
  assert.equal(facetRunCounts().background, maxBackgroundFacets);
});
