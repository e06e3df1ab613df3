import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { configWith, type Config } from '../../src/config.js';
import type { DownloadRecorder } from '../../src/downloads/recorder.js';
import type { QueryPool } from '../../src/pool/pool.js';
import type { TablePreviews } from '../../src/previews/table-previews.js';
import { Catalog } from '../../src/scrapers/catalog.js';
import { startService } from '../../src/service.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { readDownloads, waitFor, type DownloadRow } from './cli.js';
import { makeDb, tempDir } from './fixture-db.js';
import { createTestDatabase } from './pg-database.js';

export interface TestServer {
  base: string;
  dataDir: string;
  config: Config;
  /** SQLite's siphon.db in the data folder, or with $SIPHON_TEST_DATABASE_URL set, a PostgreSQL database of its own. */
  store: Store;
  catalog: Catalog;
  pool: QueryPool;
  previews: TablePreviews;
  recorder: DownloadRecorder;
  /** Where /metrics is served, when the metrics are on. */
  metricsUrl?: string;
  /** Everything the server logged so far, one JSON line each. */
  logs(): string;
  /** How many client connections the server holds open now. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The store of a test server: siphon.db in its data folder, or, when $SIPHON_TEST_DATABASE_URL is
 * set (.ci/run's second pass over the API tests), a new database on that PostgreSQL server, dropped
 * when the server closes.
 */
export async function openTestStore(dataDir: string): Promise<{ store: Store; drop(): Promise<void> }> {
  if (!process.env.SIPHON_TEST_DATABASE_URL) return { store: await openStore({ dataDir }), drop: async () => {} };
  const database = await createTestDatabase();
  return { store: await openStore({ dataDir, databaseUrl: database.url }), drop: () => database.drop() };
}

/**
 * A real server on a loopback port, with its own data folder and query processes. `watchLog`, when
 * given, is handed each chunk of the log instead of it being kept (logs() is then empty): for runs
 * too long to keep all they log.
 */
export async function startServer(overrides: Partial<Config> = {}, watchLog?: (chunk: string) => void): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? tempDir();
  // No rate limits unless a test sets one: several tests read in tight loops, as many clients would.
  const config = configWith({
    queryProcesses: 2,
    logLevel: 'info',
    rateLimitPerMinute: 0,
    pagesPerMinute: 0,
    ...overrides,
    dataDir,
    host: '127.0.0.1',
    port: 0,
  });
  const { store, drop } = await openTestStore(dataDir);
  const catalog = new Catalog(store, dataDir, undefined, config);
  let logText = '';
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    if (watchLog) watchLog(chunk.toString());
    else logText += chunk.toString();
  });
  const service = await startService(config, store, logStream);
  return {
    base: service.base,
    dataDir,
    config,
    store,
    catalog,
    pool: service.pool,
    previews: service.previews,
    recorder: service.recorder,
    metricsUrl: service.metricsUrl,
    logs: () => logText,
    connections: () =>
      new Promise((resolve, reject) => {
        service.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count)));
      }),
    async close() {
      await service.close();
      await store.close();
      await drop();
    },
  };
}

/** A URL for the data API with the query string built from `params`. */
export function dataUrl(base: string, scraper: string, format: string, params: Record<string, string>): string {
  return `${base}/${scraper}/data.${format}?${new URLSearchParams(params)}`;
}

/** Registers `fullName` (its owner must exist) with a table `big`: 200,000 rows of ~100 bytes, about 25 MB of JSON, far more than socket buffers hold. */
export async function addBigScraper(server: TestServer, fullName: string): Promise<void> {
  const db = makeDb(
    server.dataDir,
    `${fullName.replace('/', '-')}.sqlite`,
    `
    create table big (id integer primary key, t text);
    with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000)
    insert into big select x, printf('%090d', x) from c;`,
  );
  await server.catalog.addScraper(fullName, db, { isPrivate: false, description: '' });
}

/** Registers `fullName` (its owner must exist) with a table `n` of one row. */
export async function addTinyScraper(server: Pick<TestServer, 'dataDir' | 'catalog'>, fullName: string): Promise<void> {
  const db = makeDb(server.dataDir, `${fullName.replace('/', '-')}.sqlite`, 'create table n (x integer); insert into n values (1);');
  await server.catalog.addScraper(fullName, db, { isPrivate: false, description: '' });
}

/**
 * Every download recorded so far, once those of the calls already answered are written: the server
 * writes them in batches, a moment after each call.
 */
export async function writtenDownloads(server: TestServer): Promise<DownloadRow[]> {
  await server.recorder.flush();
  return readDownloads(server.dataDir);
}

/**
 * The downloads recorded after the first `from`, once `expected` of them are in (or as they are
 * after 5 s, for the caller's assertion to show): a download is recorded just after its last byte
 * is sent, so a client that has read the body can ask a moment too soon.
 */
export async function downloadsFrom(server: TestServer, from: number, expected: number): Promise<DownloadRow[]> {
  let rows: DownloadRow[] = [];
  await waitFor(async () => (rows = (await writtenDownloads(server)).slice(from)).length >= expected, 5000).catch(() => {});
  return rows;
}

/**
 * Marks the downloads recorded so far with a call of its own (a query no other call makes), and
 * answers its id once it is written. A download is queued before its client has the whole body but
 * written to the store in batches a moment later, so calls are counted between two marks
 * (`downloadsBetween`): each mark waited for, the calls answered before it are in.
 */
export async function downloadMark(server: TestServer, scraper: string, key: string): Promise<number> {
  const sql = `select '${randomUUID()}' as mark`;
  await (await fetch(dataUrl(server.base, scraper, 'csv', { key, query: sql }))).arrayBuffer();
  let id = 0;
  await waitFor(async () => (id = (await writtenDownloads(server)).find((d) => d.query === sql)?.id ?? 0) > 0, 10_000);
  return id;
}

/** The downloads recorded between two marks (`downloadMark`). */
export async function downloadsBetween(server: TestServer, from: number, to: number): Promise<DownloadRow[]> {
  return (await writtenDownloads(server)).filter((d) => d.id > from && d.id < to);
}
