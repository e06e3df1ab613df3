import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { errors } from './errors.js';
import { buildServer } from './http/server.js';
import { QueryPool } from './pool/pool.js';
import { removeLeftoverTempFiles } from './scrapers/temp-files.js';
import { startVersionSweeper } from './scrapers/version-sweeper.js';
import type { Store } from './store/types.js';

export interface RunningService {
  app: FastifyInstance;
  pool: QueryPool;
  /** http://host:port actually listened on (the port is chosen when config.port is 0). */
  base: string;
  /** Finishes the requests in flight, then stops the query processes. The store stays open. */
  close(): Promise<void>;
}

/**
 * Removes what publishes interrupted by a crash left behind, starts the query processes, the HTTP
 * server on the configured address and the sweeps of old data versions.
 */
export async function startService(
  config: Config,
  store: Store,
  logStream?: NodeJS.WritableStream,
): Promise<RunningService> {
  const leftovers = await removeLeftoverTempFiles(config.dataDir);
  const pool = new QueryPool({
    size: config.queryProcesses, timeoutMs: config.queryTimeoutMs, memoryMb: config.queryMemoryMb,
    maxQueued: config.queueLimit,
  });
  await pool.ready();
  const stopping = new AbortController();
  const app = buildServer({ config, store, pool, stopping: stopping.signal, logStream });
  if (leftovers.length > 0) app.log.info({ files: leftovers }, 'removed temporary files of interrupted publishes');
  await app.listen({ host: config.host, port: config.port });
  const sweeper = startVersionSweeper(store, config.dataDir, (err) => app.log.error({ err }, 'could not remove old data versions'));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    pool,
    base: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      // A publish would hold the server open for as long as its import runs, which may be for ever.
      stopping.abort(errors.unavailable());
      await sweeper.stop();
      // close() only drops the keep-alive connections idle at that moment; one whose response
      // finishes later would hold the process until its keep-alive timeout (72 s).
      const dropIdle = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(dropIdle);
      }
      await pool.close();
    },
  };
}
