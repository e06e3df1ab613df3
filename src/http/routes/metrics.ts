import type { FastifyInstance } from 'fastify';
import { errors } from '../../errors.js';
import type { Metrics } from '../../metrics/metrics.js';
import { hasMetricsToken } from '../../metrics/metrics-token.js';
import { sendError } from '../send-error.js';

/**
 * GET /metrics on the public port, for the holder of the metrics token only (`--metrics-token`
 * without `--metrics-port`): anyone else gets 401. Without a token it is not served here at all.
 */
export function metricsRoutes(app: FastifyInstance, deps: { metrics: Metrics; token: string }): void {
  app.get('/metrics', async (request, reply) => {
    if (!hasMetricsToken(request.headers.authorization, deps.token)) {
      sendError(reply.header('www-authenticate', 'Bearer'), errors.metricsToken());
      return;
    }
    void reply
      .header('cache-control', 'no-store')
      .type(deps.metrics.registry.contentType)
      .send(await deps.metrics.text());
  });
}
