import { spawn, type ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { errors, type SiphonError } from '../errors.js';
import {
  FrameParser, FrameType, type EndPayload, type ErrorPayload, type Frame, type QueryJob, type RunMessage,
} from './protocol.js';

const childPath = fileURLToPath(new URL('./child.js', import.meta.url));

/** A child that dies this soon after starting is failing to start; wait before starting another. */
const quickDeathMs = 1000;
const respawnDelayMs = 250;

interface Worker {
  proc: ChildProcess;
  parser: FrameParser;
  run: QueryRun | null;
  ready: boolean;
  startedAt: number;
  /** Killed or exited: never to be given another query. */
  gone: boolean;
}

export interface PoolOptions {
  size: number;
  timeoutMs: number;
  memoryMb: number;
  maxQueued: number;
}

function errorFromChild(p: ErrorPayload): SiphonError {
  switch (p.kind) {
    case 'sql': return errors.sql(p.message);
    case 'not-read': return errors.queryNotRead();
    case 'columns': return errors.atomColumns(p.missing ?? []);
    case 'resources': return errors.queryProcessDied();
    case 'internal': return Object.assign(errors.internal(), { cause: p.message });
  }
}

/**
 * Runs untrusted queries in a pool of child processes, one query per child at a time.
 * Only killing a process reliably stops a long SQLite step (notes, section 3), so a query past its
 * time limit, or whose client went away, gets its process killed and a fresh one started.
 */
export class QueryPool {
  private readonly workers = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly waiting: QueryRun[] = [];
  private closing = false;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  /** Starts a query; its encoded result is read from the returned stream. */
  run(job: QueryJob): QueryRun {
    const run = new QueryRun(this, job, this.options.timeoutMs);
    if (this.closing) {
      run.destroy(errors.unavailable());
    } else if (this.idle.length > 0) {
      run.attach(this.idle.pop()!);
    } else if (this.waiting.length >= this.options.maxQueued) {
      run.destroy(errors.busy());
    } else {
      this.waiting.push(run);
    }
    return run;
  }

  /** Processes started and ready to take a query. */
  get readyCount(): number {
    return [...this.workers].filter((w) => w.ready).length;
  }

  /** Resolves once every process of the pool has started. */
  async ready(): Promise<void> {
    while (this.readyCount < this.options.size) {
      if (this.closing) throw new Error('query pool closed');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const run of this.waiting.splice(0)) run.destroy(errors.unavailable());
    await Promise.all([...this.workers].map((w) => this.kill(w)));
  }

  /** @internal A query's process is free again. */
  release(worker: Worker): void {
    worker.run = null;
    if (worker.gone) return;
    const next = this.waiting.shift();
    if (next) next.attach(worker);
    else this.idle.push(worker);
  }

  /** @internal A query no longer wants its place in the queue. */
  unqueue(run: QueryRun): void {
    const i = this.waiting.indexOf(run);
    if (i !== -1) this.waiting.splice(i, 1);
  }

  /** @internal Stops the process at once, whatever it is doing, and starts a replacement. */
  kill(worker: Worker): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (worker.proc.exitCode !== null || worker.proc.signalCode !== null) resolve();
      else worker.proc.once('exit', () => resolve());
    });
    worker.run = null;
    this.retire(worker, true);
    worker.proc.kill('SIGKILL');
    return exited;
  }

  /** `killed`: we stopped it on purpose, so a replacement is due at once however young it was. */
  private retire(worker: Worker, killed = false): void {
    if (worker.gone) return;
    worker.gone = true;
    this.workers.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i !== -1) this.idle.splice(i, 1);
    if (this.closing) return;
    if (!killed && Date.now() - worker.startedAt < quickDeathMs) setTimeout(() => this.closing || this.spawn(), respawnDelayMs);
    else this.spawn();
  }

  private spawn(): void {
    // ulimit -v caps the address space of the query process (and only it), then exec keeps the pid.
    const proc = spawn(
      '/bin/sh',
      ['-c', `ulimit -v ${this.options.memoryMb * 1024} && exec "$0" "$@"`, process.execPath, childPath],
      // glibc gives each thread a 64 MB malloc arena of address space; V8's threads alone would take
      // ~1 GB of the cap before any query runs (measured: 1000 MB idle, 730 MB with 2 arenas).
      { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, MALLOC_ARENA_MAX: '2' } },
    );
    const worker: Worker = { proc, parser: new FrameParser(), run: null, ready: false, startedAt: Date.now(), gone: false };
    this.workers.add(worker);
    proc.stdout!.on('data', (chunk: Buffer) => {
      for (const frame of worker.parser.push(chunk)) worker.run?.onFrame(frame);
    });
    proc.on('message', (m: { type?: string }) => {
      if (m.type === 'ready' && !worker.ready && !worker.gone) {
        worker.ready = true;
        this.release(worker);
      }
    });
    proc.on('error', (err) => process.stderr.write(`query process: ${err.message}\n`));
    proc.on('exit', () => {
      const run = worker.run;
      worker.run = null;
      this.retire(worker);
      run?.onWorkerDied();
    });
  }
}

/**
 * One query's encoded result, as a byte stream with backpressure: when the reader stops reading,
 * the child's stdout is paused (so the child blocks on its next write) and the time limit clock
 * stops, because time spent waiting for a slow client is not the query's.
 */
export class QueryRun extends Readable {
  /** Rows sent, once the query has completed. */
  rows: number | null = null;
  private worker: Worker | null = null;
  private budgetMs: number;
  private timer: NodeJS.Timeout | undefined;
  private clockStartedAt = 0;

  constructor(
    private readonly pool: QueryPool,
    private readonly job: QueryJob,
    private readonly timeoutMs: number,
  ) {
    super();
    this.budgetMs = timeoutMs;
  }

  /** @internal */
  attach(worker: Worker): void {
    this.worker = worker;
    worker.run = this;
    worker.proc.send({ type: 'run', job: this.job } satisfies RunMessage);
    this.startClock();
  }

  /** @internal */
  onFrame(frame: Frame): void {
    switch (frame.type) {
      case FrameType.data:
        if (!this.push(frame.payload)) {
          this.worker?.proc.stdout!.pause();
          this.stopClock();
        }
        break;
      case FrameType.end:
        this.rows = (JSON.parse(frame.payload.toString()) as EndPayload).rows;
        this.finish();
        this.push(null);
        break;
      case FrameType.error:
        this.finish();
        this.destroy(errorFromChild(JSON.parse(frame.payload.toString()) as ErrorPayload));
        break;
    }
  }

  /** @internal The process died while running this query (out of memory, or killed from outside). */
  onWorkerDied(): void {
    this.worker = null;
    this.stopClock();
    this.destroy(errors.queryProcessDied());
  }

  override _read(): void {
    if (!this.worker) return;
    this.worker.proc.stdout!.resume();
    this.startClock();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.stopClock();
    this.pool.unqueue(this);
    // Still running: the reader gave up (client gone) or the time ran out. Only a kill stops it.
    if (this.worker) void this.pool.kill(this.worker);
    this.worker = null;
    callback(err);
  }

  /** The child is done with this query and can take another. */
  private finish(): void {
    this.stopClock();
    const worker = this.worker!;
    this.worker = null;
    worker.proc.stdout!.resume();
    this.pool.release(worker);
  }

  private startClock(): void {
    if (this.timer || !this.worker) return;
    this.clockStartedAt = Date.now();
    this.timer = setTimeout(() => this.destroy(errors.queryTimeout(this.timeoutMs / 1000)), this.budgetMs);
  }

  private stopClock(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.budgetMs -= Date.now() - this.clockStartedAt;
  }
}
