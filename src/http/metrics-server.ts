import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { errors, type SiphonError } from '../errors.js';
import { requestId } from './request-log.js';
import { errorBody, errorContentType, errorHeaders } from './send-error.js';
import type { Metrics } from '../metrics/metrics.js';
import { hasMetricsToken } from '../metrics/metrics-token.js';

/** Scrapers and people looking: a handful of connections is plenty, and bounds what the port can hold. */
const maxConnections = 32;

export interface MetricsServer {
  /** The port listened on (chosen by the system for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * `/metrics` on a listener of its own (`--metrics-port`), apart from the public port: a firewall can
 * keep it for the monitoring, and with `--metrics-token` it asks for the token too. Everything
 * else on it is a 404 in Siphon's shape. Its requests are not logged: a scrape every few seconds
 * would fill the log with lines saying nothing.
 */
export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token?: string },
): Promise<MetricsServer> {
  const refuse = (res: ServerResponse, error: SiphonError) => {
    res.writeHead(error.status, { ...errorHeaders(error), 'content-type': errorContentType }).end(errorBody(error));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('x-request-id', requestId(req.headers));
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return refuse(res, errors.routeNotFound());
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, errors.methodNotAllowed(['GET', 'HEAD']));
    if (options.token !== undefined && !hasMetricsToken(req.headers.authorization, options.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return refuse(res, errors.metricsToken());
    }
    metrics.text().then(
      (text) => {
        res
          .writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : text);
      },
      () => refuse(res, errors.internal()),
    );
  });
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
