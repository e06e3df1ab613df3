/**
 * The processes that run queries and imports are scheduled as batch processes (SCHED_BATCH): woken
 * with work, they wait for the server's thread to end its turn rather than take its core
 * (src/process/spawn-limited.ts). Where `chrt` cannot be found they start all the same, as before.
 * Real processes, their policy read from /proc.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { spawnLimited } from '../src/process/spawn-limited.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { childrenRunning, schedulingPolicies, schedulingPolicy } from './helpers/processes.js';
import { readAll, startPool } from './helpers/query-pool.js';

/** A script that tells its parent it has started, then waits (its IPC channel keeps it alive). */
const started = path.join(tempDir(), 'say-started.cjs');
writeFileSync(started, "process.send('started');\n");

/** The policy a process started by spawnLimited (with `env` for its shell) runs under, read from /proc. */
function policyOfStarted(env?: Record<string, string>): Promise<number | undefined> {
  const { proc } = spawnLimited(started, { memoryMb: 2048, env });
  return new Promise((resolve, reject) => {
    proc.once('message', () => {
      resolve(schedulingPolicy(proc.pid!));
      proc.kill('SIGKILL');
    });
    proc.once('exit', (code) => reject(new Error(`exited (${code}) before it said it had started`)));
  });
}

test('a process started under limits runs as a batch process', async () => {
  assert.equal(await policyOfStarted(), schedulingPolicies.batch);
});

test('where chrt cannot be found, the process starts all the same, at the normal policy', async () => {
  // Neither chrt nor setpriv on the shell's path: Node is started by its full path.
  assert.equal(await policyOfStarted({ PATH: path.join(tempDir(), 'no-programs-here') }), schedulingPolicies.normal);
});

test('every query process of a pool is a batch process, and answers', async (t) => {
  const file = makeDb(tempDir(), 'one.sqlite', 'create table t (x); insert into t values (1);');
  const pool = startPool(2);
  t.after(() => pool.close());
  await pool.ready();
  const processes = childrenRunning('pool/child.js');
  assert.equal(processes.length, 2);
  for (const pid of processes) assert.equal(schedulingPolicy(pid), schedulingPolicies.batch);
  const answer = pool.run({ scraperId: 1, file, sql: 'select x from t', format: 'json', options: {} }, 'alice');
  assert.equal(await readAll(answer), '[\n{"x":1}\n]');
});
