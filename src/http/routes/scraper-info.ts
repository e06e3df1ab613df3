import type { FastifyInstance } from 'fastify';
import type { DownloadStore, ScraperStore } from '../../store/types.js';
import { corsHeaders } from '../cors.js';
import { sendError } from '../send-error.js';
import { findPublicScraper } from './params.js';

/**
 * GET /:owner/:scraper.json — what a client needs to write a query: tables, columns and row counts,
 * plus who has downloaded the data (downloads are public, as on morph.io). No key needed; readable
 * from any origin like the data API.
 */
export function scraperInfoRoutes(app: FastifyInstance, deps: { store: ScraperStore & DownloadStore }): void {
  app.get<{ Params: { owner: string; scraper: string } }>('/:owner/:scraper.json', async (request, reply) => {
    try {
      const scraper = await findPublicScraper(deps.store, request.params.owner, request.params.scraper);
      const downloads = await deps.store.downloadStats(scraper.id);
      void reply.headers(corsHeaders).header('cache-control', 'no-cache').send({
        owner: scraper.owner.name,
        name: scraper.name,
        description: scraper.description,
        updated_at: scraper.data.updatedAt,
        tables: scraper.data.tables,
        downloads,
      });
    } catch (err) {
      sendError(reply, err);
    }
  });
}
