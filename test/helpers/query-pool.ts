/** Query pools of real processes, for the pool's own tests, and reading what their queries answer. */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { defaults } from '../../src/config.js';
import { QueryPool } from '../../src/pool/pool.js';
import { tempDir } from './fixture-db.js';

/** One SQLite step that never ends: only killing its process stops it. */
export const runaway = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c';

/** A pool of `size` processes under the service's limits, nothing split, queries waiting a minute at most unless told. */
export function startPool(size: number, { startingAtOnce = size, keyConcurrency = 2, queueTimeoutMs = 60_000 } = {}): QueryPool {
  return new QueryPool({
    size,
    longQueries: size,
    timeoutMs: 60_000,
    memoryMb: defaults.queryMemoryMb,
    tempMb: defaults.queryTempMb,
    diskReserveBytes: defaults.diskReserveBytes,
    tempDir: path.join(tempDir(), 'tmp'),
    queue: { keyConcurrency, keyQueue: 16, queueLimit: 200, queueTimeoutMs },
    spoolResponseMb: 16,
    spoolTotalMb: 64,
    rowsPerRange: 0,
    startingAtOnce,
    queriesAhead: defaults.queriesAhead,
  });
}

/** A query's whole answer, as text. */
export function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}
