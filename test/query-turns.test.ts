/**
 * No more queries run just started than the pool allows (the machine's cores, in the service): the
 * next one waits for one of them rather than waking another process to fight over the same cores.
 * A query still working after a moment frees its turn, so a slow one never holds the others back.
 * Real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { defaults } from '../src/config.js';
import { QueryPool } from '../src/pool/pool.js';
import type { QueryJob } from '../src/pool/protocol.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { waitFor } from './helpers/cli.js';

/** One SQLite step that never ends: only killing its process stops it. */
const runaway = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c';

function startPool(startingAtOnce: number, size: number): QueryPool {
  const dir = tempDir();
  return new QueryPool({
    size,
    longQueries: size,
    timeoutMs: 60_000,
    memoryMb: defaults.queryMemoryMb,
    tempMb: defaults.queryTempMb,
    tempDir: path.join(dir, 'tmp'),
    queue: { keyConcurrency: 2, keyQueue: 16, queueLimit: 200, queueTimeoutMs: 60_000 },
    spoolResponseMb: 16,
    spoolTotalMb: 64,
    rowsPerRange: 0,
    startingAtOnce,
  });
}

const file = makeDb(tempDir(), 'numbers.sqlite', 'create table t (x); insert into t values (1), (2), (3);');
const job = (sql: string): QueryJob => ({ scraperId: 1, file, sql, format: 'json', options: {} });

function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

test('a query waits while as many as allowed have just started, and runs while a slow one keeps working', async (t) => {
  const pool = startPool(1, 3);
  t.after(() => pool.close());
  await pool.ready();

  const slow = pool.run(job(runaway), 'alice');
  slow.on('error', () => {}); // destroyed at the end
  const before = performance.now();
  const fast = pool.run(job('select sum(x) as total from t'), 'bob');
  const elapsed = performance.now() - before;
  // Two processes are idle, yet the second query waits: the first has just started. (Unless this
  // thread itself stalled for as long as a query counts as just started: nothing to tell then.)
  if (elapsed < 10) assert.deepEqual(pool.stats(), { ready: 3, busy: 1, waiting: 1, long: 0, parked: 0 });
  else t.diagnostic(`stalled ${elapsed.toFixed(1)} ms between two calls: the waiting was not observed`);

  // The runaway never ends, yet the other query is answered: the runaway freed its turn.
  assert.equal(await readAll(fast), '[\n{"total":6}\n]');
  assert.equal(slow.times.endedAt, undefined, 'the runaway still runs');
  assert.equal(pool.stats().busy, 1);
  slow.destroy();
});

test('queries queued behind the ones just started all run, in turn, without another arrival to wake them', async (t) => {
  const pool = startPool(2, 4);
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
