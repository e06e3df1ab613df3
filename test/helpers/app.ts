import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { configWith, type Config } from '../../src/config.js';
import { DownloadRecorder } from '../../src/downloads/recorder.js';
import { buildServer } from '../../src/http/server.js';
import { createLog } from '../../src/log/logger.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { TablePreviews } from '../../src/previews/table-previews.js';
import { Catalog } from '../../src/scrapers/catalog.js';
import type { Store } from '../../src/store/types.js';
import { tempDir } from './fixture-db.js';
import { startPool } from './query-pool.js';
import { openTestStore } from './server.js';

export interface TestApp {
  /** Siphon's HTTP service: requests go through `app.inject()`, or to `base` once `startApp` made it listen. */
  app: FastifyInstance;
  dataDir: string;
  config: Config;
  store: Store;
  catalog: Catalog;
  /** Everything the service logged so far, a line each (JSON unless `logFormat` says otherwise). */
  logs(): string;
  close(): Promise<void>;
}

/**
 * Siphon's HTTP service in this process, on a data folder and store of its own (as server.ts's), with no port and
 * no query process: for requests whose answer never runs a query (pages with no data, docs, health,
 * preflights, refusals before any SQL runs), which it answers in a few milliseconds where a real
 * server (server.ts) costs a second of process starts. A query sent to it waits for a process that
 * never comes and is refused 503 when its queue time is up, so a test that needs one fails loudly.
 */
export async function buildApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const dataDir = overrides.dataDir ?? tempDir();
  const config = configWith({ logLevel: 'info', rateLimitPerMinute: 0, pagesPerMinute: 0, ...overrides, dataDir });
  const { store, drop } = await openTestStore(dataDir);
  let logText = '';
  const logStream = new PassThrough().on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const log = createLog({ level: config.logLevel, format: config.logFormat, stream: logStream });
  // Without processes: a query that comes waits a second, then is refused.
  const [pool, pagesPool] = [startPool(0, { queueTimeoutMs: 1000 }), startPool(0, { queueTimeoutMs: 1000 })];
  const recorder = new DownloadRecorder(store, { maxPending: config.maxPendingDownloads, log: log.logger });
  const stopping = new AbortController();
  // With a token, /metrics on this service's own routes, as the service serves it without a port of its own.
  const metrics =
    config.metricsToken === undefined
      ? undefined
      : new Metrics({ pools: { api: pool, previews: pagesPool }, downloads: () => recorder.counts(), logLinesDropped: log.dropped });
  const app = buildServer({
    config,
    store,
    pool,
    pagesPool,
    previews: new TablePreviews(pagesPool),
    recorder,
    stopping: stopping.signal,
    log,
    metrics,
  });
  await app.ready();
  return {
    app,
    dataDir,
    config,
    store,
    catalog: new Catalog(store, dataDir),
    logs: () => logText,
    async close() {
      stopping.abort();
      await app.close();
      await recorder.close();
      await Promise.all([pool.close(), pagesPool.close()]);
      await store.close();
      await drop();
    },
  };
}

export type ListeningApp = TestApp & { base: string };

/**
 * `buildApp`'s service listening on a loopback port, `base`: for tests whose requests run no query
 * but need a real client (cookies kept by `WebClient`, forms posted as a browser posts them).
 */
export async function startApp(overrides: Partial<Config> = {}): Promise<ListeningApp> {
  const service = await buildApp(overrides);
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...service, base };
}
