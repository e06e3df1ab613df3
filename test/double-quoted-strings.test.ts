/**
 * morph.io compatibility: a double-quoted word is a string where no such column exists, a column
 * where one does, as stock SQLite reads it. Every query is answered by Siphon's API and by Debian's
 * sqlite3 shell (stock SQLite, double-quoted strings on) on the same data file, and the rows must be
 * the same. Without the shell the comparisons are skipped with a message, unless
 * SIPHON_REQUIRE_SQLITE3=1 (CI), where that is a failure.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

const shellVersion = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
const shellMissing =
  shellVersion.status === 0
    ? undefined
    : `the sqlite3 shell is not installed (apt-get install sqlite3): ${shellVersion.error?.message ?? shellVersion.stderr}`;
const required = process.env.SIPHON_REQUIRE_SQLITE3 === '1';
const skip = required ? false : shellMissing;

let server: TestServer;
let key: string;
let file: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  const source = makeDb(
    tempDir(),
    'planning.sqlite',
    `
    create table data (id integer primary key, name text, month text, amount integer);
    insert into data values (1, 'Ash', 'November', 30), (2, 'Birch', 'March', 10), (3, 'Cedar', 'November', 20),
      (4, 'Douglas', 'July', 40), (5, 'Elm', 'March', 50);
    create table other (id integer primary key, data_id integer, note text);
    insert into other values (1, 1, 'alpha'), (2, 3, 'beta'), (3, 4, 'gamma');`,
  );
  await server.catalog.addScraper('alice/planning', source, { isPrivate: false, description: '' });
  file = (await server.store.findScraper('alice', 'planning'))!.data.file;
});
after(() => server.close());

/** Siphon's answer as rows, or its error message. */
async function siphon(query: string): Promise<{ rows?: unknown[]; error?: string }> {
  const res = await fetch(dataUrl(server.base, 'alice/planning', 'json', { key, query }));
  const body = (await res.json()) as unknown[] | { error: string };
  if (res.status === 200) return { rows: body as unknown[] };
  assert.equal(res.status, 400, JSON.stringify(body));
  return { error: (body as { error: string }).error };
}

/** The sqlite3 shell's answer on the same file, opened read-only: its rows, or its error message. */
function shell(query: string): { rows?: unknown[]; error?: string } {
  const r = spawnSync('sqlite3', ['-readonly', '-json', file, query], { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) return { error: r.stderr };
  // No rows: the shell prints nothing at all.
  return { rows: r.stdout.trim() === '' ? [] : (JSON.parse(r.stdout) as unknown[]) };
}

describe('double-quoted words are read as stock SQLite reads them', { skip }, () => {
  test('the sqlite3 shell is installed', () => {
    assert.equal(shellMissing, undefined, `SIPHON_REQUIRE_SQLITE3=1, but ${shellMissing}`);
  });

  const same: [string, string, unknown[]][] = [
    ['a string where no column has the name (morph.io clients do this)', 'select "true" as working', [{ working: 'true' }]],
    [
      'a string compared with a column',
      'select id, name from data where month = "November" order by id',
      [
        { id: 1, name: 'Ash' },
        { id: 3, name: 'Cedar' },
      ],
    ],
    [
      'a column where one has the name',
      'select "name", "amount" from data order by id limit 2',
      [
        { name: 'Ash', amount: 30 },
        { name: 'Birch', amount: 10 },
      ],
    ],
    [
      'in a join: a column of one table, of the other, and of neither',
      'select "note", "name", "nowhere" as n from data join other on other.data_id = data.id order by data.id',
      [
        { note: 'alpha', name: 'Ash', n: 'nowhere' },
        { note: 'beta', name: 'Cedar', n: 'nowhere' },
        { note: 'gamma', name: 'Douglas', n: 'nowhere' },
      ],
    ],
    ['qualified by a double-quoted table name', 'select "data"."name" from "data" where "data"."id" = 2', [{ name: 'Birch' }]],
    [
      'in WHERE, a column on one side and a string on the other',
      'select id from data where "month" = "March" order by id',
      [{ id: 2 }, { id: 5 }],
    ],
    ['in ORDER BY, a column', 'select id from data order by "amount" desc', [{ id: 5 }, { id: 4 }, { id: 1 }, { id: 3 }, { id: 2 }]],
    [
      'in ORDER BY, a string (a constant: the next term decides)',
      'select id from data order by "nosuch", id desc limit 2',
      [{ id: 5 }, { id: 4 }],
    ],
    [
      'in GROUP BY and HAVING',
      'select "month", count(*) as n from data group by "month" having "month" <> "July" order by "month"',
      [
        { month: 'March', n: 2 },
        { month: 'November', n: 2 },
      ],
    ],
    [
      'in a subquery',
      'select name from data where id in (select data_id from other where "note" <> "beta") order by id',
      [{ name: 'Ash' }, { name: 'Douglas' }],
    ],
    [
      'in a CTE',
      'with nov as (select "November" as month) select data.name from data join nov using ("month") order by data.id',
      [{ name: 'Ash' }, { name: 'Cedar' }],
    ],
    ['concatenated strings', 'select "a" || "b" as ab, "a" || "b"', [{ ab: 'ab', '"a" || "b"': 'ab' }]],
    ['an alias named in ORDER BY', 'select amount * 2 as "total" from data order by "total" limit 2', [{ total: 20 }, { total: 40 }]],
    [
      'mixed case: a column whatever its case (named as declared), a string keeps its own case',
      'select "NAME", "Month", "November" = "NOVEMBER" as same from data where id = 1',
      [{ name: 'Ash', month: 'November', same: 0 }],
    ],
  ];
  for (const [label, query, expected] of same) {
    test(`${label}: ${query}`, async () => {
      const fromShell = shell(query);
      assert.deepEqual(fromShell, { rows: expected }, 'the sqlite3 shell');
      assert.deepEqual(await siphon(query), fromShell, 'Siphon');
    });
  }

  test('a column of both tables of a join is ambiguous in both', async () => {
    const query = 'select "id" from data join other on other.data_id = data.id';
    assert.match(shell(query).error ?? '', /ambiguous column name: id/);
    assert.deepEqual(await siphon(query), { error: 'ambiguous column name: id' });
  });
});
