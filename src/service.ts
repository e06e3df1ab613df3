import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { DownloadRecorder } from './downloads/recorder.js';
import { buildServer } from './http/server.js';
import { QueryPool } from './pool/pool.js';
import type { Store } from './store/types.js';

export interface RunningService {
  app: FastifyInstance;
  pool: QueryPool;
  recorder: DownloadRecorder;
  /** http://host:port actually listened on (the port is chosen when config.port is 0). */
  base: string;
  /** Finishes the requests in flight, writes their downloads, then stops the query processes. The store stays open. */
  close(): Promise<void>;
}

/** Starts the query processes and the HTTP server on the configured address. */
export async function startService(
  config: Config,
  store: Store,
  logStream?: NodeJS.WritableStream,
): Promise<RunningService> {
  const pool = new QueryPool({
    size: config.queryProcesses, timeoutMs: config.queryTimeoutMs, memoryMb: config.queryMemoryMb,
    maxQueued: config.queueLimit,
  });
  await pool.ready();
  const recorder = new DownloadRecorder(store, {
    maxPending: config.maxPendingDownloads,
    // The server's log, built just below; the recorder logs only once downloads come in.
    log: { error: (details, message) => app.log.error(details, message), info: (details, message) => app.log.info(details, message) },
  });
  const app = buildServer({ config, store, pool, recorder, logStream });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    pool,
    recorder,
    base: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      // close() only drops the keep-alive connections idle at that moment; one whose response
      // finishes later would hold the process until its keep-alive timeout (72 s).
      const dropIdle = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(dropIdle);
      }
      // Every request has ended, so every download is queued.
      await recorder.close();
      await pool.close();
    },
  };
}
