import type { FastifyInstance, FastifyReply } from 'fastify';
import { corsAllowHeaders, corsAllowMethods, corsExposeHeaders, corsMaxAgeSeconds } from '../cors-policy.js';

/** On every data response, success or error, in every format. */
export const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': corsExposeHeaders,
} as const;

/**
 * The preflight a browser sends before a cross-origin GET with an X-API-Key or Authorization
 * header, or a POST of JSON. It carries no key, so it is answered without one.
 */
export function corsPreflightRoutes(app: FastifyInstance): void {
  const preflight = async (_request: unknown, reply: FastifyReply) => {
    void reply
      .code(204)
      .headers({
        ...corsHeaders,
        'access-control-allow-methods': corsAllowMethods,
        'access-control-allow-headers': corsAllowHeaders,
        'access-control-max-age': String(corsMaxAgeSeconds),
      })
      .send();
  };
  app.options('/:owner/:scraper/data.:format', preflight);
  app.options('/:owner/:scraper/data', preflight);
  app.options('/:owner/:scraper/queries/:name.:format', preflight);
}
