/**
 * Isolation under load: small queries' latency alone, and while four full json exports stream from
 * two other keys (read as fast as the bench can). The target is a p99 under 50 ms during the exports.
 */
import { exportOnce, type ExportAnswer } from './http-client.js';
import { runLoad, type LoadResult, type LoadSpec } from './wrk.js';

export interface IsolationResults {
  connections: number;
  seconds: number;
  alone: LoadResult;
  duringExports: LoadResult;
  exports: { count: number; allComplete: boolean; stillRunningAtEnd: boolean; ms: number[] };
  p99TargetMs: number;
}

const isolationP99TargetMs = 50;
const connections = 4;
const seconds = 4;

export async function measureIsolation(o: {
  load: Omit<LoadSpec, 'connections' | 'threads' | 'seconds'>;
  exportUrls: string[];
  workDir: string;
}): Promise<IsolationResults> {
  const spec = { ...o.load, keys: o.load.keys.slice(0, connections), connections, threads: 1, seconds };
  const alone = await runLoad(spec, o.workDir);
  let finished = 0;
  const exports = o.exportUrls.map((url) =>
    exportOnce(url, 'identity').then((r: ExportAnswer) => {
      finished += 1;
      return r;
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const duringExports = await runLoad(spec, o.workDir);
  const stillRunningAtEnd = finished < exports.length;
  const done = await Promise.all(exports);
  return {
    connections,
    seconds,
    alone,
    duringExports,
    p99TargetMs: isolationP99TargetMs,
    exports: {
      count: done.length,
      allComplete: done.every((r) => r.status === 200 && r.complete),
      stillRunningAtEnd,
      ms: done.map((r) => r.ms),
    },
  };
}
