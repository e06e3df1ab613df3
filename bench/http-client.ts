/** The main thread's handle on the client worker (client-worker.ts): one request at a time, awaited. */
import { Worker } from 'node:worker_threads';

export interface SingleResult {
  status: number;
  /** Request sent → last body byte. */
  ms: number;
  /** Request sent → first body byte (-1 when there was no body). */
  ttfbMs: number;
  bytes: number;
  /** The body ended properly (not cut short). */
  complete: boolean;
  /** The first few hundred characters of the body (chains only). */
  body: string;
  error?: string;
}

export type ExportResult = SingleResult & { newlines: number };

export interface ChainResult {
  steps: (SingleResult & { startMs: number; endMs: number })[];
}

export interface LoadResult {
  requests: number;
  errors: number;
  nonOk: number;
  elapsedMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanBytes: number;
}

export type ClientRequest =
  | { op: 'export'; url: string }
  | { op: 'chain'; urls: string[]; keepBody?: number }
  | { op: 'load'; urlTemplate: string; maxId: number; concurrency: number; warmupMs: number; durationMs: number; keys?: string[] }
  | { op: 'close' };

export class HttpClient {
  private readonly worker = new Worker(new URL('./client-worker.js', import.meta.url));
  private seq = 0;
  private readonly pending = new Map<number, (result: unknown) => void>();

  constructor() {
    this.worker.on('message', (m: { seq: number; result: unknown }) => {
      this.pending.get(m.seq)?.(m.result);
      this.pending.delete(m.seq);
    });
    this.worker.on('error', (err) => {
      process.stderr.write(`client worker failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    });
  }

  private call<T>(req: ClientRequest): Promise<T> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve as (r: unknown) => void);
      this.worker.postMessage({ ...req, seq });
    });
  }

  export(url: string): Promise<ExportResult> {
    return this.call({ op: 'export', url });
  }

  /** The requests one after the other on one keep-alive connection; bodies kept up to `keepBody` chars. */
  chain(urls: string[], keepBody = 400): Promise<ChainResult> {
    return this.call({ op: 'chain', urls, keepBody });
  }

  load(o: Omit<Extract<ClientRequest, { op: 'load' }>, 'op'>): Promise<LoadResult> {
    return this.call({ op: 'load', ...o });
  }

  async close(): Promise<void> {
    await this.call({ op: 'close' });
    await this.worker.terminate();
  }
}
