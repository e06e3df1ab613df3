/**
 * A whole-table query's range plan is made once per connection (a data file never changes once
 * published, and the connection keeps its lock on it), for plans and for queries that are not split
 * alike: the same plan comes back, and the connection's cache holds what it planned.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connection } from '../../src/pool/connections.js';
import { rangePlan } from '../../src/pool/range-plan.js';
import { makeDb, tempDir } from '../helpers/fixture-db.js';

const rows = (n: number) =>
  `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) insert into t (v) select x from c;`;

test('a range plan is made once per connection and SQL text, and so is a query left whole', () => {
  const file = makeDb(tempDir(), 'plans.sqlite', `create table t (id integer primary key, v); ${rows(5000)}`);
  const open = connection({ scraperId: 9001, file, sql: '', format: 'json', options: {} });
  const plan = rangePlan(open, 'select * from t', 1000);
  assert.ok(plan, 'a 5,000-row table in ranges of 1,000 is split');
  assert.equal(plan.bounds.length, 4);
  assert.equal(rangePlan(open, 'select * from t', 500)?.bounds.length, 9, 'another range size is another plan');
  assert.equal(rangePlan(open, 'select * from t where v > 3', 1000), undefined, 'not a whole-table scan');
  assert.equal(rangePlan(open, 'select * from t', 1000), plan, 'the same plan, not made again');
  assert.equal(rangePlan(open, 'SELECT * FROM t', 1000)?.bounds.length, 4, 'another SQL text is another plan');
  // What a plan relies on: nothing can change the file while the connection has it (SQLITE_BUSY at once).
  const writer = new Database(file, { timeout: 0 });
  assert.throws(() => writer.exec(rows(10)), /locked/);
  writer.close();

  const small = makeDb(tempDir(), 'small.sqlite', `create table t (id integer primary key, v); ${rows(10)}`);
  const smallOpen = connection({ scraperId: 9002, file: small, sql: '', format: 'json', options: {} });
  assert.equal(smallOpen.plans.get('1000 select * from t'), undefined);
  assert.equal(rangePlan(smallOpen, 'select * from t', 1000), undefined, 'too few rows to split');
  assert.equal(smallOpen.plans.get('1000 select * from t'), false, 'a query left whole is remembered as such');
});

test("plans are kept within the connection's bound on SQL text, their bounds counted in", () => {
  const file = makeDb(tempDir(), 'big-plans.sqlite', `create table t (id integer primary key, v); ${rows(5000)}`);
  const open = connection({ scraperId: 9003, file, sql: '', format: 'json', options: {} });
  // A range a row: ~19,000 characters of bounds each, so 20 plans of 20 texts (fewer than the 32
  // entries kept) outgrow the 256 K characters a connection keeps, and the oldest go.
  const texts = Array.from({ length: 20 }, (_, i) => `select *${' '.repeat(i + 1)}from t`);
  for (const sql of texts) assert.equal(rangePlan(open, sql, 1)?.bounds.length, 4999);
  const newest = open.plans.get(`1 ${texts[19]}`);
  assert.equal(newest && newest.bounds.length, 4999, 'the newest plans are kept');
  assert.equal(open.plans.get(`1 ${texts[0]}`), undefined, 'the oldest went');
});
