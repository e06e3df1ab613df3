import { readCells, type Cell } from '../browse/cells.js';
import { QueryFailed } from '../errors.js';
import type { QueryPool } from '../pool/pool.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { firstRowsSql } from '../shared/api-request.js';

export type { Cell };

export type TablePreview = { ok: true; rows: Cell[][] } | { ok: false; error: string };

/** Ten rows of a huge table (large blobs, long texts) are cut off here rather than held for a page. */
const maxPreviewBytes = 1024 * 1024;
/** Previews kept, all scrapers together; the least recently viewed go first. */
const maxCachedBytes = 64 * 1024 * 1024;
const maxCachedVersions = 1000;
/** Failures that say nothing about the data, only about the moment: such previews are computed again. */
const passingFailures = new Set(['busy', 'key-busy', 'queue-timeout', 'closing']);

interface Computed {
  previews: TablePreview[];
  bytes: number;
  /** Worth keeping: no preview failed for a passing reason. */
  lasting: boolean;
}

/**
 * The first rows of a table, run as the API would run `select * from "<table>" limit 10`, as json,
 * in a query process of the previews' own pool (never on the main thread, never in the API's).
 * Not a download. A failure (time limit, too large) is shown on the page instead of rows.
 */
async function previewTable(
  pool: QueryPool,
  scraper: Scraper,
  table: TableInfo,
  signal: AbortSignal,
): Promise<{ preview: TablePreview; bytes: number; lasting: boolean }> {
  const run = pool.run(
    { scraperId: scraper.id, file: scraper.data.file, sql: firstRowsSql(table.name), format: 'json', options: {} },
    `${scraper.id}`,
  );
  const stop = () => run.destroy();
  signal.addEventListener('abort', stop);
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of run as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxPreviewBytes) {
        run.destroy();
        return { preview: { ok: false, error: 'The first rows are too large to preview.' }, bytes: 0, lasting: true };
      }
      chunks.push(chunk);
    }
  } catch (err) {
    const passing = signal.aborted || (err instanceof QueryFailed && passingFailures.has(err.failure.kind));
    return { preview: { ok: false, error: err instanceof Error ? err.message : String(err) }, bytes: 0, lasting: !passing };
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const rows = readCells(
    Buffer.concat(chunks).toString('utf8'),
    table.columns.map((c) => c.name),
  );
  return { preview: { ok: true, rows }, bytes, lasting: true };
}

/**
 * The table previews of scraper pages, computed once per data version and kept in memory, so a
 * page view does no query work. They run in a pool of their own, so page views never take the API's
 * query processes. A computation nobody waits for any more (its visitors left) is stopped.
 */
export class TablePreviews {
  /** By `scraper id:data version`, least recently used first. */
  private readonly done = new Map<string, Computed>();
  private readonly computing = new Map<string, { result: Promise<Computed>; waiters: number; stop: AbortController }>();
  private bytes = 0;

  constructor(private readonly pool: QueryPool) {}

  /** Data versions whose previews are kept, and those being computed. */
  stats(): { kept: number; computing: number } {
    return { kept: this.done.size, computing: this.computing.size };
  }

  /** The previews of each of the scraper's tables. `signal`: the visitor left. */
  async get(scraper: Scraper, signal: AbortSignal): Promise<TablePreview[]> {
    const id = `${scraper.id}:${scraper.data.version}`;
    const cached = this.done.get(id);
    if (cached) {
      this.done.delete(id);
      this.done.set(id, cached);
      return cached.previews;
    }
    let job = this.computing.get(id);
    if (!job) {
      const stop = new AbortController();
      job = { result: this.compute(scraper, stop.signal), waiters: 0, stop };
      this.computing.set(id, job);
      const started = job;
      void job.result.then((computed) => {
        if (this.computing.get(id) === started) this.computing.delete(id);
        if (computed.lasting && !stop.signal.aborted) this.keep(id, computed);
      });
    }
    job.waiters += 1;
    const current = job;
    const leave = () => {
      current.waiters -= 1;
      if (current.waiters === 0) {
        current.stop.abort();
        if (this.computing.get(id) === current) this.computing.delete(id);
      }
    };
    signal.addEventListener('abort', leave, { once: true });
    try {
      return (await current.result).previews;
    } finally {
      if (!signal.aborted) {
        signal.removeEventListener('abort', leave);
        current.waiters -= 1;
      }
    }
  }

  private async compute(scraper: Scraper, signal: AbortSignal): Promise<Computed> {
    const computed: Computed = { previews: [], bytes: 0, lasting: true };
    for (const table of scraper.data.tables) {
      const { preview, bytes, lasting } = signal.aborted
        ? { preview: { ok: false, error: 'stopped' } as TablePreview, bytes: 0, lasting: false }
        : await previewTable(this.pool, scraper, table, signal);
      computed.previews.push(preview);
      computed.bytes += bytes;
      computed.lasting &&= lasting;
    }
    return computed;
  }

  private keep(id: string, computed: Computed): void {
    this.done.set(id, computed);
    this.bytes += computed.bytes;
    for (const [oldId, old] of this.done) {
      if (this.bytes <= maxCachedBytes && this.done.size <= maxCachedVersions) break;
      this.done.delete(oldId);
      this.bytes -= old.bytes;
    }
  }
}
