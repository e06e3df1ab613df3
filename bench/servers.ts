/**
 * The servers under test, in this process: Siphon built from src exactly as test/helpers/server.ts
 * builds it (real pool of query processes, real store and catalog), and a bare Fastify baseline.
 */
import Fastify from 'fastify';
import path from 'node:path';
import { Writable } from 'node:stream';
import { configWith, type Config } from '../src/config.js';
import type { QueryPool } from '../src/pool/pool.js';
import { Catalog } from '../src/scrapers/catalog.js';
import { startService } from '../src/service.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { dataUrl as testDataUrl } from '../test/helpers/server.js';

export { tempDir } from '../test/helpers/fixture-db.js';

export interface BenchServer {
  base: string;
  config: Config;
  catalog: Catalog;
  store: SqliteStore;
  pool: QueryPool;
  close(): Promise<void>;
}

/**
 * Like test/helpers/server.ts startServer(), except for the log stream: the server logs at its
 * production level (info: two JSON lines per request, serialised as in production), but into a sink
 * that drops them, where the test helper keeps every line in a string that grows for the whole run.
 */
export async function startSiphon(overrides: Partial<Config> & { dataDir: string }): Promise<BenchServer> {
  const config = configWith({ ...overrides, host: '127.0.0.1', port: 0 });
  const store = new SqliteStore(path.join(config.dataDir, 'siphon.db'));
  const catalog = new Catalog(store, config.dataDir);
  const logStream = new Writable({ write: (_chunk, _enc, cb) => cb() });
  const service = await startService(config, store, logStream);
  return {
    base: service.base,
    config, catalog, store, pool: service.pool,
    async close() {
      await service.close();
      await store.close();
    },
  };
}

/** A bare Fastify server (no logger, no hooks) answering one fixed JSON body. */
export async function startFixedBodyServer(body: string): Promise<{ base: string; close(): Promise<void> }> {
  const app = Fastify();
  const bytes = Buffer.from(body);
  app.get('/fixed', async (_request, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(bytes);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { base: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}

/** `GET /{scraper}/data.{format}?key=…&query=…` on `base`. */
export function dataUrl(base: string, scraper: string, format: string, key: string, sql: string): string {
  return testDataUrl(base, scraper, format, { key, query: sql });
}
