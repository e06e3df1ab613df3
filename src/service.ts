import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import os from 'node:os';
import path from 'node:path';
import { DownloadRecorder } from './downloads/recorder.js';
import { DownloadSpool, spoolDir } from './downloads/spool.js';
import { startSpoolReplays } from './downloads/spool-replay.js';
import { errors } from './errors.js';
import { buildServer } from './http/server.js';
import { SilentConnections } from './http/silent-connections.js';
import { MemoryRateLimiter } from './limits/rate-limiter.js';
import { createLog, type Log } from './log/logger.js';
import { Metrics } from './metrics/metrics.js';
import { startMetricsServer, type MetricsServer } from './http/metrics-server.js';
import { QueryPool, type PoolOptions } from './pool/pool.js';
import { TablePreviews } from './previews/table-previews.js';
import { assertSqliteBuild } from './sql/sqlite-build.js';
import { removeLeftoverTempFiles } from './scrapers/temp-files.js';
import { startVersionSweeper } from './scrapers/version-sweeper.js';
import type { Store } from './store/types.js';

export interface RunningService {
  app: FastifyInstance;
  pool: QueryPool;
  previews: TablePreviews;
  recorder: DownloadRecorder;
  /** http://host:port actually listened on (the port is chosen when config.port is 0). */
  base: string;
  /** Where /metrics is served, when it is: on a port of its own or on the public one. */
  metricsUrl?: string;
  log: Log;
  /** Finishes the requests in flight, writes their downloads, then stops the query processes. The store stays open. */
  close(): Promise<void>;
}

/** The API's pool, as configured. */
function poolOptions(config: Config): PoolOptions {
  return {
    size: config.queryProcesses,
    longQueries: config.longQueries,
    timeoutMs: config.queryTimeoutMs,
    memoryMb: config.queryMemoryMb,
    tempMb: config.queryTempMb,
    tempDir: path.join(config.dataDir, 'tmp'),
    diskReserveBytes: config.diskReserveBytes,
    queue: {
      keyConcurrency: config.keyConcurrency,
      keyQueue: config.keyQueue,
      queueLimit: config.queueLimit,
      queueTimeoutMs: config.queueTimeoutMs,
    },
    spoolResponseMb: config.spoolResponseMb,
    spoolTotalMb: config.spoolTotalMb,
    rowsPerRange: config.exportRangeRows,
    startingAtOnce: os.availableParallelism(),
    queriesAhead: config.queriesAhead,
  };
}

/**
 * The pool of the pages for people, table previews and table pages: one process of its own, so page
 * views never take the API's. Each lane (a scraper's previews, a visitor address's table pages)
 * runs one query at a time and lanes take turns; its queue is long, since each version is
 * previewed once, and the table pages' per-address rate limit bounds what one visitor queues.
 */
function previewPoolOptions(config: Config): PoolOptions {
  const api = poolOptions(config);
  return {
    ...api,
    size: 1,
    longQueries: 1,
    queue: { ...api.queue, keyConcurrency: 1, keyQueue: 1000, queueLimit: 10_000 },
  };
}

/**
 * Checks SQLite was built with Siphon's options, removes what publishes interrupted by a crash left behind, starts the query processes, the HTTP
 * server on the configured address and the sweeps of old data versions.
 */
export async function startService(config: Config, store: Store, logStream?: NodeJS.WritableStream): Promise<RunningService> {
  // Never serve with SQLite's meaning of a query silently different from what the docs promise.
  assertSqliteBuild();
  const leftovers = await removeLeftoverTempFiles(config.dataDir);
  const pool = new QueryPool(poolOptions(config));
  const previewPool = new QueryPool(previewPoolOptions(config));
  try {
    await Promise.all([pool.ready(), previewPool.ready()]);
  } catch (err) {
    await Promise.all([pool.close(), previewPool.close()]);
    throw err;
  }
  const log = createLog({ level: config.logLevel, format: config.logFormat, stream: logStream });
  const perMinute = config.rateLimitPerMinute;
  // Counted where every node sees the counts when the store is shared, else in this process.
  const rateLimiter = perMinute > 0 ? (store.sharedRateLimiter?.(perMinute) ?? new MemoryRateLimiter(perMinute)) : undefined;
  const previews = new TablePreviews(previewPool);
  // Pages are counted per visitor address, apart from the keys' counts (`page:` keys in a shared store).
  const perAddress = config.pagesPerMinute;
  const pagesLimiter = perAddress > 0 ? (store.sharedRateLimiter?.(perAddress) ?? new MemoryRateLimiter(perAddress)) : undefined;
  const recorderLog = {
    error: (details: object, message: string) => log.logger.error(details, message),
    info: (details: object, message: string) => log.logger.info(details, message),
  };
  const spool = new DownloadSpool(spoolDir(config.dataDir), recorderLog);
  const recorder = new DownloadRecorder(store, { maxPending: config.maxPendingDownloads, log: recorderLog, spool });
  // Off unless the operator asks for them, by a port of their own or a token (README "Metrics and logs").
  const metrics =
    config.metricsPort !== undefined || config.metricsToken !== undefined
      ? new Metrics({ pools: { api: pool, previews: previewPool }, downloads: () => recorder.counts(), logLinesDropped: log.dropped })
      : undefined;
  const stopping = new AbortController();
  const app = buildServer({
    config,
    store,
    pool,
    previews,
    pagesPool: previewPool,
    rateLimiter,
    pagesLimiter,
    recorder,
    stopping: stopping.signal,
    log,
    metrics,
  });
  const silent = new SilentConnections(app.server);
  if (leftovers.length > 0) app.log.info({ files: leftovers }, 'removed temporary files of interrupted publishes');
  let metricsServer: MetricsServer | undefined;
  try {
    await app.listen({ host: config.host, port: config.port });
    if (metrics && config.metricsPort !== undefined) {
      metricsServer = await startMetricsServer(metrics, { host: config.host, port: config.metricsPort, token: config.metricsToken });
    }
  } catch (err) {
    // The address is taken or not this machine's: the query processes would keep the process alive.
    await Promise.all([app.close(), pool.close(), previewPool.close(), recorder.close()]);
    throw err;
  }
  // What nodes killed outright left unrecorded, before this node's own downloads come in.
  const replays = await startSpoolReplays(store, config.dataDir, spool, recorderLog);
  const sweeper = startVersionSweeper(store, config.dataDir, config, (err) => app.log.error({ err }, 'could not remove old data versions'));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const origin = (p: number) => `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${p}`;
  const base = origin(port);
  return {
    app,
    pool,
    previews,
    recorder,
    base,
    metricsUrl: metricsServer ? `${origin(metricsServer.port)}/metrics` : metrics ? `${base}/metrics` : undefined,
    log,
    async close() {
      // A publish would hold the server open for as long as its import runs, which may be for ever.
      stopping.abort(errors.unavailable());
      await sweeper.stop();
      await replays.stop();
      await metricsServer?.close();
      // close() only drops the keep-alive connections idle at that moment; one whose response
      // finishes later would hold the process until its keep-alive timeout (72 s), and one that
      // never sent a byte until the headers timeout (see SilentConnections).
      const dropIdle = setInterval(() => {
        app.server.closeIdleConnections();
        silent.close();
      }, 100);
      try {
        await app.close();
      } finally {
        clearInterval(dropIdle);
      }
      // Every request has ended, so every download is queued.
      await recorder.close();
      await Promise.all([pool.close(), previewPool.close()]);
    },
  };
}
