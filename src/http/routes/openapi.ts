import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { siphonVersion } from '../../version.js';
import type { Config } from '../../config.js';
import { serviceDocument } from '../../openapi/document.js';
import { savedQueriesTag } from '../../openapi/saved-query-operations.js';
import { scraperDocument } from '../../openapi/scraper-document.js';
import type { AccountStore, SavedQueryStore, Scraper, ScraperStore } from '../../store/types.js';
import { paramPairs } from '../../utils/query-string.js';
import { authenticate, sentKey } from '../authenticate.js';
import { addValidators, isNotModified, sendNotModified } from '../conditional.js';
import { corsHeaders } from '../cors.js';
import { admitOrigin } from '../key-origin.js';
import { publicOrigin } from '../public-origin.js';
import { sendError } from '../send-error.js';
import { findScraperFor } from './params.js';

interface ScraperRoute {
  Params: { owner: string; scraper: string };
}

/** The documents are read by tools from anywhere, like the data API; no key is needed for a public scraper's. */
const documentHeaders: OutgoingHttpHeaders = {
  ...corsHeaders,
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
};

/**
 * GET /openapi.json and GET /:owner/:scraper/openapi.json: the API as OpenAPI 3.1 (src/openapi/).
 * A scraper's is found as the data API finds it: a private one for its owner's key only, else the
 * same 404 as an unknown scraper; a key sent is checked as a data call's is (401, 403), one not
 * sent is no error. Its `ETag` is its data version's, its description's, its public saved queries',
 * this server's (a new publish, a change of either or an upgrade changes it), and its public
 * address. It has no `Last-Modified`: removing a saved query leaves no date to give, so
 * `If-Modified-Since` would keep a stale copy.
 */
export function openApiRoutes(app: FastifyInstance, deps: { config: Config; store: AccountStore & ScraperStore & SavedQueryStore }): void {
  const { config, store } = deps;
  const version = siphonVersion();

  /** The scraper as the caller may see it: with a key, as a data call sees it; without, public ones only. */
  async function scraperFor(request: FastifyRequest<ScraperRoute>): Promise<{ scraper: Scraper; cors: OutgoingHttpHeaders }> {
    const keyParam = paramPairs(request.url).find(([name]) => name === 'key')?.[1];
    const { owner, scraper } = request.params;
    if (!sentKey(request.headers, keyParam)) return { scraper: await findScraperFor(store, undefined, owner, scraper), cors: {} };
    const key = await authenticate(request.headers, keyParam, store);
    const cors = admitOrigin(key, request.headers);
    return { scraper: await findScraperFor(store, key.account.id, owner, scraper), cors };
  }

  app.get('/openapi.json', async (request, reply) => {
    const body = JSON.stringify(serviceDocument(config, publicOrigin(request, config)));
    return reply.headers({ ...documentHeaders, 'cache-control': 'no-cache' }).send(body);
  });

  app.get<ScraperRoute>('/:owner/:scraper/openapi.json', async (request, reply) => {
    try {
      const { scraper, cors } = await scraperFor(request);
      const origin = publicOrigin(request, config);
      const headers: OutgoingHttpHeaders = {
        ...documentHeaders,
        ...cors,
        'cache-control': scraper.isPrivate ? 'private, no-cache' : 'no-cache',
      };
      // Private saved queries are their owner's, never in a document, whoever asks: it is the same for every caller.
      const queries = await store.listQueries(scraper.id, false);
      // The scraper's description is the document's too, and changes without a new data version.
      const options = { origin: origin ?? null, version, description: scraper.description, queries: savedQueriesTag(queries) };
      addValidators(headers, scraper, { format: 'openapi.json', options }, 'identity');
      delete headers['last-modified'];
      if (isNotModified(request.headers, headers)) return sendNotModified(reply, headers);
      return reply.headers(headers).send(JSON.stringify(scraperDocument(config, scraper, queries, origin)));
    } catch (err) {
      sendError(reply, err);
      return reply;
    }
  });
}
