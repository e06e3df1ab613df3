import type { FastifyInstance } from 'fastify';
import { errors } from '../../errors.js';
import type { QueryPool } from '../../pool/pool.js';
import { sendError } from '../send-error.js';

/** GET /healthz — 200 while queries can be served (at least one query process is ready). */
export function healthRoutes(app: FastifyInstance, deps: { pool: QueryPool }): void {
  app.get('/healthz', async (_request, reply) => {
    const ready = deps.pool.readyCount;
    if (ready === 0) {
      sendError(reply, errors.unavailable());
      return;
    }
    void reply.header('cache-control', 'no-store').send({ status: 'ok', queryProcessesReady: ready });
  });
}
