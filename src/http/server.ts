import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import type { DownloadRecorder } from '../downloads/recorder.js';
import { errors, SiphonError } from '../errors.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { QueryPool } from '../pool/pool.js';
import type { TablePreviews } from '../previews/table-previews.js';
import type { Store } from '../store/types.js';
import { corsPreflightRoutes } from './cors.js';
import { redactUrl } from './redact.js';
import { assetRoutes } from './routes/assets.js';
import { dataRoutes } from './routes/data.js';
import { healthRoutes } from './routes/health.js';
import { pageRoutes } from './routes/pages.js';
import { publishRoutes } from './routes/publish.js';
import { scraperInfoRoutes } from './routes/scraper-info.js';
import { sendError } from './send-error.js';

export interface ServerDeps {
  config: Config;
  store: Store;
  pool: QueryPool;
  previews: TablePreviews;
  /** Per key; none when the rate limit is off. */
  rateLimiter?: RateLimiter;
  /** Aborted when the service starts stopping: publishes still running are stopped and answered 503. */
  stopping: AbortSignal;
  recorder: DownloadRecorder;
  /** Where logs go; defaults to stdout. Tests pass a stream to read what was logged. */
  logStream?: NodeJS.WritableStream;
}

/**
 * Builds the HTTP service without listening, so tests can inject requests or listen on any port.
 * Keys are removed from every logged URL, and no header that can carry a key is logged.
 */
export function buildServer(deps: ServerDeps): FastifyInstance {
  const logger: FastifyServerOptions['logger'] = {
    level: deps.config.logLevel,
    ...(deps.logStream ? { stream: deps.logStream } : {}),
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  };
  // Fastify's own 503 while closing has a body of its own; ours is answered by the hook below.
  const app = Fastify({ logger, return503OnClosing: false });
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    sendError(reply.header('connection', 'close'), errors.unavailable());
    return reply;
  });

  app.setNotFoundHandler((_request, reply) => {
    sendError(reply, errors.routeNotFound());
  });
  // Errors raised by Fastify itself (a malformed URL, a bad header…) are the client's when below 500.
  app.setErrorHandler((err: Error & { statusCode?: number }, _request, reply) => {
    const status = err.statusCode;
    if (err instanceof SiphonError || status === undefined || status >= 500) sendError(reply, err);
    else sendError(reply, errors.badRequest(status, err.message));
  });

  dataRoutes(app, deps);
  scraperInfoRoutes(app, deps);
  healthRoutes(app, deps);
  publishRoutes(app, deps);
  corsPreflightRoutes(app);
  pageRoutes(app, deps);
  assetRoutes(app);
  return app;
}
