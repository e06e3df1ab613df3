/**
 * Isolation under load: small queries' latency alone, and while four full exports stream (from other
 * keys, read as fast as the client can). The target is a p99 under 50 ms during the exports.
 */
import { HttpClient, type ExportResult, type LoadResult } from './http-client.js';

export interface FairnessResults {
  sql: string;
  concurrency: number;
  durationMs: number;
  alone: LoadResult;
  duringExports: LoadResult;
  exports: { sql: string; count: number; allComplete: boolean; stillRunningAtEnd: boolean; ms: number[] };
  p99TargetMs: number;
}

const p99TargetMs = 50;
const concurrency = 4;
const warmupMs = 500;
const durationMs = 4000;

export async function measureFairness(o: {
  client: HttpClient;
  /** `{key}` and `{id}` are filled in per request. */
  smallTemplate: string;
  maxId: number;
  smallKeys: string[];
  sql: string;
  exportUrls: string[];
  exportSql: string;
}): Promise<FairnessResults> {
  const load = () => o.client.load({ urlTemplate: o.smallTemplate, maxId: o.maxId, concurrency, warmupMs, durationMs, keys: o.smallKeys });
  const alone = await load();
  // The exports are read by a client thread of their own, so reading them does not delay the small queries' client.
  const exporter = new HttpClient();
  try {
    let finished = 0;
    const exports = o.exportUrls.map((url) => exporter.export(url).then((r: ExportResult) => { finished += 1; return r; }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const duringExports = await load();
    const stillRunningAtEnd = finished < exports.length;
    const done = await Promise.all(exports);
    return {
      sql: o.sql, concurrency, durationMs, alone, duringExports, p99TargetMs,
      exports: { sql: o.exportSql, count: done.length, allComplete: done.every((r) => r.status === 200 && r.complete), stillRunningAtEnd, ms: done.map((r) => r.ms) },
    };
  } finally {
    await exporter.close();
  }
}
