import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { lazyChildLogger } from '../log/lazy-child.js';
import type { Log } from '../log/logger.js';
import type { DownloadRecorder } from '../downloads/recorder.js';
import { errors } from '../errors.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Metrics } from '../metrics/metrics.js';
import type { QueryPool } from '../pool/pool.js';
import type { TablePreviews } from '../previews/table-previews.js';
import type { Store } from '../store/types.js';
import { ConnectionRefusals } from './connection-refusals.js';
import { corsPreflightRoutes } from './cors.js';
import { fromFramework, refusalFor } from './framework-errors.js';
import { parseParams } from '../utils/query-string.js';
import { logRefusedConnection, requestId, trackRequest, type LineOutputs, type LineSink } from './request-log.js';
import { maxPathSegmentChars, requestLimits } from '../limits/request-size.js';
import { checkRequestHead } from './request-head.js';
import { assetRoutes } from './routes/assets.js';
import { dataRoutes } from './routes/data.js';
import { healthRoutes } from './routes/health.js';
import { accountRoutes } from './routes/account.js';
import { ownerScraperRoutes } from './routes/owner-scrapers.js';
import { savedQueryFormRoutes } from './routes/saved-query-forms.js';
import { metricsRoutes } from './routes/metrics.js';
import { pageDownloadRoutes } from './routes/page-downloads.js';
import { openApiRoutes } from './routes/openapi.js';
import { pageRoutes } from './routes/pages.js';
import { publishRoutes } from './routes/publish.js';
import { scraperInfoRoutes } from './routes/scraper-info.js';
import { tableDataRoutes } from './routes/table-data.js';
import { tablePageRoutes } from './routes/table-pages.js';
import { savedQueryPageRoutes } from './routes/saved-query-page.js';
import { sendError } from './send-error.js';
import { webScope } from './web-session.js';
import { catalogWithImportLimits } from '../scrapers/limited-catalog.js';
import { settleUnreadBody } from './unread-body.js';

export interface ServerDeps {
  config: Config;
  store: Store;
  pool: QueryPool;
  previews: TablePreviews;
  /** Where the table pages' queries run: the previews' pool, not the API's. */
  pagesPool: QueryPool;
  /** Per key; none when the rate limit is off. */
  rateLimiter?: RateLimiter;
  /** Table pages per visitor address; none when that limit is off. */
  pagesLimiter?: RateLimiter;
  /** Aborted when the service starts stopping: publishes still running are stopped and answered 503. */
  stopping: AbortSignal;
  recorder: DownloadRecorder;
  log: Log;
  /** Counts every request; none when the metrics are off. */
  metrics?: Metrics;
}

/**
 * Builds the HTTP service without listening, so tests can inject requests or listen on any port.
 * Each request is logged in one line (request-log.ts), with its id, which every response carries
 * in `X-Request-Id`; keys are removed from every logged URL, and no header is logged. Whatever
 * is refused, by Node's HTTP parser, Fastify or a route, is answered in Siphon's one shape.
 */
export function buildServer(deps: ServerDeps): FastifyInstance {
  const { config, metrics } = deps;
  const limits = requestLimits(config.maxQueryChars);
  const logger: FastifyBaseLogger = deps.log.logger;
  const sink: LineSink = metrics?.requestDone ?? (() => {});
  const lines: LineOutputs = { write: deps.log.requestLine, sink };
  const refusals = new ConnectionRefusals({
    maxHeadBytes: limits.maxHeadBytes,
    maxHeaderFieldBytes: limits.maxHeaderFieldBytes,
    headersTimeoutMs: config.clientIdleTimeoutMs,
    refusalFor: (method, url) => refusalFor(app, method, url),
    refused: (headers, details) => logRefusedConnection(app.log, sink, headers, details),
  });
  const app: FastifyInstance = Fastify({
    loggerInstance: logger,
    // One line per request, written by request-log.ts once its outcome is known, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    genReqId: (req) => requestId(req.headers),
    trustProxy: config.trustProxy,
    // Fastify's own 503 while closing has a body of its own; ours is answered by the hook below.
    return503OnClosing: false,
    http: {
      // Room for a URL holding SQL of the longest length, however it is encoded (limits/request-size.ts).
      maxHeaderSize: limits.maxHeadBytes,
      // Node answers a missing Host with an empty 400; checkRequestHead answers it in our shape.
      requireHostHeader: false,
      // How often Node looks for requests whose headers are late (headersTimeout, below).
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, config.clientIdleTimeoutMs / 4)),
    },
    routerOptions: { maxParamLength: maxPathSegmentChars, querystringParser: parseParams },
    clientErrorHandler: refusals.onClientError,
    frameworkErrors: (err, request, reply) => {
      trackRequest(request, reply, lines);
      sendError(reply, fromFramework(err, limits));
    },
  });
  app.server.headersTimeout = config.clientIdleTimeoutMs;
  refusals.attach(app.server);
  // Request bodies are read by the routes that take one (a query's parameters, a published
  // database), under their own limits and with errors of ours; Fastify's parsers stay out.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A callback, not an async function: every request runs it, and a promise would cost each a turn
  // of the microtask queue before its route. An answer sent here ends the request (done not called).
  app.addHook('onRequest', (request, reply, done) => {
    trackRequest(request, reply, lines);
    if (closing) {
      sendError(reply.header('connection', 'close'), errors.unavailable());
      return;
    }
    try {
      checkRequestHead(request, limits);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, refusalFor(app, request.method, request.url));
  });
  app.setErrorHandler(async (err, request, reply) => {
    await settleUnreadBody(request, reply);
    sendError(reply, fromFramework(err, limits));
  });

  // The routes' patterns are the one set of route labels the metrics take (anything else is `other`).
  if (metrics) app.addHook('onRoute', (route) => metrics.knowRoute(route.url));
  const routeDeps = { ...deps, limits, bodyFailure: (request: FastifyRequest) => refusals.bodyFailure(request.raw) };
  dataRoutes(app, routeDeps);
  tableDataRoutes(app, deps);
  scraperInfoRoutes(app, deps);
  healthRoutes(app, deps);
  openApiRoutes(app, deps);
  publishRoutes(app, routeDeps);
  corsPreflightRoutes(app);
  // Pages and account forms, with cookies and sessions: the data API and PUT above never see either.
  const catalog = catalogWithImportLimits(deps.store, config);
  webScope(app, { config, store: deps.store, limits }, (scope) => {
    pageRoutes(scope, deps);
    tablePageRoutes(scope, deps);
    savedQueryPageRoutes(scope, deps);
    accountRoutes(scope, { config, store: deps.store, catalog });
    ownerScraperRoutes(scope, { ...routeDeps, catalog });
    savedQueryFormRoutes(scope, { config, store: deps.store, catalog });
    pageDownloadRoutes(scope, { ...deps, catalog });
  });
  assetRoutes(app);
  // With a port of their own, the metrics are not on this one (metrics-server.ts).
  if (metrics && config.metricsToken !== undefined && config.metricsPort === undefined) {
    metricsRoutes(app, { metrics, token: config.metricsToken });
  }
  return app;
}
