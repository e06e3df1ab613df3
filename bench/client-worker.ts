/**
 * The HTTP client of the benchmark, in a worker thread: it has its own event loop, so reading 1M rows
 * or running 32 client loops does not take turns with the server under test on the main thread.
 * Only node:http is used. Messages in: ClientRequest; out: the matching result.
 */
import http from 'node:http';
import { parentPort } from 'node:worker_threads';
import type { ChainResult, ClientRequest, ExportResult, LoadResult, SingleResult } from './http-client.js';

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Reads a whole response without keeping it: bytes, `\n` count, time to first body byte. */
function fetchCounting(url: string, agent: http.Agent | false, keepBody = 0): Promise<SingleResult & { newlines: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let ttfbMs = -1;
    let bytes = 0;
    let newlines = 0;
    let body = '';
    const done = (status: number, complete: boolean, error?: string) =>
      resolve({ status, ms: performance.now() - started, ttfbMs, bytes, newlines, complete, body, error });
    const req = http.get(url, { agent }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (ttfbMs < 0) ttfbMs = performance.now() - started;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines += 1;
        if (body.length < keepBody) body += chunk.toString('utf8', 0, Math.min(chunk.length, keepBody - body.length));
      });
      res.on('end', () => done(res.statusCode ?? 0, res.complete));
      res.on('error', (err) => done(res.statusCode ?? 0, false, err.message));
      // After 'end' this changes nothing; without it, the body was cut short.
      res.on('close', () => done(res.statusCode ?? 0, false, 'connection closed before the end of the body'));
    });
    req.on('error', (err) => done(0, false, err.message));
  });
}

async function runExport(url: string): Promise<ExportResult> {
  return fetchCounting(url, false);
}

/** Requests one after the other on a keep-alive connection, each sent as soon as the previous ends. */
async function runChain(urls: string[], keepBody: number): Promise<ChainResult> {
  const t0 = performance.now();
  const steps: ChainResult['steps'] = [];
  for (const url of urls) {
    const startMs = performance.now() - t0;
    const r = await fetchCounting(url, keepAlive, keepBody);
    steps.push({ ...r, startMs, endMs: performance.now() - t0 });
  }
  return { steps };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * `concurrency` client loops on one keep-alive agent for warmupMs + durationMs. Only requests started
 * after the warm-up count; `{id}` in the URL is replaced by a random id in [1, maxId], and `{key}` by
 * the loop's own key (loop i uses keys[i % keys.length]), as separate clients would each use theirs.
 */
async function runLoad(urlTemplate: string, maxId: number, concurrency: number, warmupMs: number, durationMs: number, keys: string[]): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const deadline = measureFrom + durationMs;
  const latencies: number[] = [];
  let errors = 0;
  let nonOk = 0;
  let bytes = 0;
  let lastEnd = measureFrom;
  const one = (url: string) => new Promise<{ status: number; bytes: number }>((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => { n += c.length; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: n }));
      res.on('error', () => resolve({ status: 0, bytes: n }));
    });
    req.on('error', () => resolve({ status: 0, bytes: 0 }));
  });
  const loop = async (_: unknown, i: number) => {
    const template = keys.length ? urlTemplate.replace('{key}', encodeURIComponent(keys[i % keys.length]!)) : urlTemplate;
    while (performance.now() < deadline) {
      const url = template.replace('{id}', String(1 + Math.floor(Math.random() * maxId)));
      const started = performance.now();
      const r = await one(url);
      const ended = performance.now();
      if (started < measureFrom) continue;
      if (r.status === 0) errors += 1;
      else if (r.status !== 200) nonOk += 1;
      latencies.push(ended - started);
      bytes += r.bytes;
      if (ended > lastEnd) lastEnd = ended;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  const elapsedMs = lastEnd - measureFrom;
  return {
    requests: latencies.length, errors, nonOk, elapsedMs,
    perSecond: (latencies.length / elapsedMs) * 1000,
    p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99),
    meanBytes: latencies.length ? bytes / latencies.length : 0,
  };
}

parentPort!.on('message', async (msg: ClientRequest & { seq: number }) => {
  let result: unknown;
  switch (msg.op) {
    case 'export': result = await runExport(msg.url); break;
    case 'chain': result = await runChain(msg.urls, msg.keepBody ?? 400); break;
    case 'load': result = await runLoad(msg.urlTemplate, msg.maxId, msg.concurrency, msg.warmupMs, msg.durationMs, msg.keys ?? []); break;
    case 'close': keepAlive.destroy(); result = null; break;
  }
  parentPort!.postMessage({ seq: msg.seq, result });
});
