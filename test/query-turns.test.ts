/**
 * No more queries run just started than the pool allows (the machine's cores, in the service): the
 * next one waits for one of them rather than waking another process to fight over the same cores,
 * sent ahead to its process to run right after it (a few at most). A query still working after a
 * moment frees its turn, and those sent ahead to it are taken back, so a slow one never holds the
 * others back.
 * Real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaults } from '../src/config.js';
import type { QueryJob } from '../src/pool/protocol.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { waitFor } from './helpers/cli.js';
import { childrenRunning, cpuTicks } from './helpers/processes.js';
import { readAll, runaway, startPool } from './helpers/query-pool.js';

const file = makeDb(tempDir(), 'numbers.sqlite', 'create table t (x); insert into t values (1), (2), (3);');
const job = (sql: string): QueryJob => ({ scraperId: 1, file, sql, format: 'json', options: {} });

test('queries wait while as many as allowed have just started, sent ahead up to a bound, and run while a slow one keeps working', async (t) => {
  const pool = startPool(3, { startingAtOnce: 1 });
  t.after(() => pool.close());
  await pool.ready();

  // The pool's clock stands still while the queries come, as it would on an idle machine: a stall of
  // this thread (a busy machine, a collection) cannot make the first one look no longer just started.
  const frozen = performance.now();
  const clock = t.mock.method(performance, 'now', () => frozen);
  const slow = pool.run(job(runaway), 'alice');
  slow.on('error', () => {}); // destroyed at the end
  const keys = Array.from({ length: defaults.queriesAhead + 1 }, (_, i) => `key${i}`);
  const fast = keys.map((key, i) => pool.run(job(`select ${i} as n`), key));
  const stats = pool.stats();
  clock.mock.restore();
  // Two processes are idle, yet the other queries wait: as many as a process takes are sent ahead to
  // the first one's, which has just started, the last one in the queue.
  assert.deepEqual(stats, {
    ready: 3,
    busy: 1,
    waiting: defaults.queriesAhead + 1,
    long: 0,
    parked: 0,
    sentAhead: defaults.queriesAhead,
  });

  // The runaway never ends, yet the other queries are answered, each with its own rows: the runaway
  // freed its turn, and every query sent ahead to its process was taken back and run by another.
  assert.deepEqual(
    await Promise.all(fast.map(readAll)),
    keys.map((_, i) => `[\n{"n":${i}}\n]`),
  );
  assert.equal(slow.times.endedAt, undefined, 'the runaway still runs');
  // A process that took back a query too late may still be finishing it for a moment (see `finish`).
  await waitFor(() => pool.stats().busy === 1, 10_000);
  slow.destroy();
});

test('queries queued behind the ones just started all run, in turn, without another arrival to wake them', async (t) => {
  const pool = startPool(4, { startingAtOnce: 2 });
  t.after(() => pool.close());
  await pool.ready();
  const keys = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];
  const answers = await Promise.all(keys.map((key, i) => readAll(pool.run(job(`select ${i} as n`), key))));
  assert.deepEqual(
    answers,
    keys.map((_, i) => `[\n{"n":${i}}\n]`),
  );
  await waitFor(() => pool.stats().busy === 0, 10_000);
});

test('queries sent ahead are each answered with their own rows, in any order of arrival', async (t) => {
  const pool = startPool(2, { startingAtOnce: 1 });
  t.after(() => pool.close());
  await pool.ready();
  const keys = ['alice', 'bob', 'carol', 'dave'];
  const calls = Array.from({ length: 40 }, (_, i) =>
    readAll(pool.run(job(`select ${i} as n, x from t where x = ${(i % 3) + 1}`), keys[i % 4]!)),
  );
  const answers = await Promise.all(calls);
  assert.deepEqual(
    answers,
    answers.map((_, i) => `[\n{"n":${i},"x":${(i % 3) + 1}}\n]`),
  );
  assert.ok(pool.stats().sentAhead > 0, 'some were sent ahead');
  await waitFor(() => pool.stats().busy === 0, 10_000);
});

test('a query sent ahead whose client leaves is not run; the process goes on with the next one', async (t) => {
  const pool = startPool(1, { startingAtOnce: 1 });
  t.after(() => pool.close());
  await pool.ready();
  // Long enough to still run when the next two arrive, short enough to end.
  const first = pool.run(
    job('with recursive c(x) as (select 1 union all select x + 1 from c limit 300000) select count(*) as n from c'),
    'alice',
  );
  const left = pool.run(job(runaway), 'bob');
  left.on('error', () => {});
  assert.equal(pool.stats().sentAhead, 1);
  left.destroy();
  const next = pool.run(job('select 7 as seven'), 'carol');
  assert.equal(await readAll(first), '[\n{"n":300000}\n]');
  // Had the runaway run, the only process would be held until killed a second later, not answering this.
  assert.equal(await readAll(next), '[\n{"seven":7}\n]');
  assert.deepEqual(pool.stats().ready, 1);
});

test('a query sent ahead to a process that dies is queued again and answered', async (t) => {
  const pool = startPool(1, { startingAtOnce: 1 });
  t.after(() => pool.close());
  await pool.ready();
  const doomed = pool.run(job(runaway), 'alice');
  doomed.on('error', () => {});
  const waiting = ['bob', 'carol', 'dave'].map((key, i) => pool.run(job(`select ${i} as n`), key));
  assert.equal(pool.stats().sentAhead, 3);
  // Its client left: the runaway's process is killed, with the queries sent ahead to it.
  doomed.destroy();
  assert.deepEqual(await Promise.all(waiting.map(readAll)), ['[\n{"n":0}\n]', '[\n{"n":1}\n]', '[\n{"n":2}\n]']);
});

test('a query taken back too late, already started, holds its process a moment at most: it is killed if it goes on', async (t) => {
  // Its one process: one not there before (an earlier test's may still be on its way out).
  const earlier = childrenRunning('pool/child.js');
  const pool = startPool(1, { startingAtOnce: 1 });
  t.after(() => pool.close());
  await pool.ready();
  const started = childrenRunning('pool/child.js').filter((p) => !earlier.includes(p));
  assert.equal(started.length, 1, `the pool's processes: ${started.join(', ')}`);
  const pid = started[0]!;
  // Warmed up first, so that answering the first query below takes the process far less CPU than the wait's bound.
  assert.equal(await readAll(pool.run(job('select 0 as zero'), 'erin')), '[\n{"zero":0}\n]');
  const first = pool.run(job('select 1 as one'), 'alice');
  const late = pool.run(job(runaway), 'bob');
  late.on('error', () => {});
  // Sent ahead behind the runaway, and answered all the same.
  const behind = pool.run(job('select 10 as ten'), 'dave');
  assert.equal(pool.stats().sentAhead, 2);
  // This thread stays busy, hearing nothing, until the process has answered the first query and is
  // at work on the runaway (10 ticks of CPU, more than an answer of one row takes, however slowly a
  // busy machine runs it): the cancel comes too late, and the runaway's process must be killed for
  // the next query to run.
  const from = cpuTicks(pid)!;
  const deadline = performance.now() + 60_000;
  while ((cpuTicks(pid) ?? 0) < from + 10) assert.ok(performance.now() < deadline, 'the runaway was never at work');
  late.destroy();
  assert.equal(await readAll(first), '[\n{"one":1}\n]');
  // Its process, running what nobody waits for until it is killed, is still one of the pool's.
  assert.equal(pool.stats().ready, 1);
  assert.equal(await readAll(pool.run(job('select 9 as nine'), 'carol')), '[\n{"nine":9}\n]');
  assert.ok(!childrenRunning('pool/child.js').includes(pid), "the runaway's process was killed, and another answered");
  assert.equal(await readAll(behind), '[\n{"ten":10}\n]');
});
