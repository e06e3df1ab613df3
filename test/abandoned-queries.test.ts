/**
 * A query nobody waits for any more (its client left) is let finish when it has only just started,
 * its output dropped, rather than have its process killed and a new one started: a new process
 * costs far more than what a small query has left to do. One still working a moment later is
 * killed, and its key's slot is held until its process is free again. Real query processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueryJob } from '../src/pool/protocol.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { waitFor } from './helpers/cli.js';
import { childrenRunning } from './helpers/processes.js';
import { readAll, runaway, startPool } from './helpers/query-pool.js';

const file = makeDb(tempDir(), 'numbers.sqlite', 'create table t (x); insert into t values (1), (2), (3);');
const job = (sql: string): QueryJob => ({ scraperId: 1, file, sql, format: 'json', options: {} });
const queryProcesses = () => childrenRunning('pool/child.js').sort();

test('a query whose client leaves as it starts is let finish: its process is kept, and answers the next query', async (t) => {
  const pool = startPool(1, { keyConcurrency: 1 });
  t.after(() => pool.close());
  await pool.ready();
  // Sent to the idle process at once, and given up before it can have ended. It is let finish if it
  // ends within a moment; that moment's timer is held still here (the next test lets it run out), so
  // a busy machine, slow to carry the answer over, cannot decide the test.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const before = queryProcesses();
  const left = pool.run(job('select sum(x) as total from t'), 'alice');
  left.on('error', () => {});
  assert.equal(pool.stats().busy, 1);
  left.destroy();
  assert.equal(await readAll(pool.run(job('select 5 as five'), 'bob')), '[\n{"five":5}\n]');
  t.mock.timers.reset();
  assert.deepEqual(queryProcesses(), before, 'a query given up as it started never had its process replaced');
});

test('a query whose client left holds its key’s slot until it has ended', async (t) => {
  const pool = startPool(2, { keyConcurrency: 1 });
  t.after(() => pool.close());
  await pool.ready();
  const left = pool.run(job('select sum(x) as total from t'), 'alice');
  left.on('error', () => {});
  left.destroy();
  // A process is idle, yet alice's next query waits: her one slot is still the first query's.
  const next = pool.run(job('select 6 as six'), 'alice');
  assert.equal(pool.stats().waiting, 1);
  assert.equal(await readAll(next), '[\n{"six":6}\n]');
});

test('a query whose client left that does not end within a moment has its process killed and replaced', async (t) => {
  const pool = startPool(1, { keyConcurrency: 1 });
  t.after(() => pool.close());
  await pool.ready();
  const before = queryProcesses();
  const left = pool.run(job(runaway), 'alice');
  left.on('error', () => {});
  left.destroy();
  // Until it is killed, its process is let finish: busy, never counted free.
  assert.equal(pool.stats().busy, 1, 'a process finishing a query nobody waits for is busy');
  // The only process ran the runaway: it answers this only once killed and replaced.
  assert.equal(await readAll(pool.run(job('select 7 as seven'), 'alice')), '[\n{"seven":7}\n]');
  await waitFor(() => queryProcesses().length === 1, 10_000);
  assert.notDeepEqual(queryProcesses(), before);
  assert.equal(pool.stats().busy, 0);
});
