import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../browse/query-rows.js';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { QueryPool } from '../../pool/pool.js';
import { findSavedQuery } from '../../scrapers/saved-queries.js';
import { boundValues, namedParamNames } from '../../sql/named-params.js';
import type { Store } from '../../store/types.js';
import { paramPairs } from '../../utils/query-string.js';
import { notFoundPage } from '../../views/not-found-page.js';
import { savedQueryPage, type SavedQueryOutcome } from '../../views/saved-query-page.js';
import { whileClientWaits } from '../client-waits.js';
import { pageAdmission, pageLane } from '../page-admission.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { signedIn } from '../web-session.js';

interface SavedQueryRoute {
  Params: { owner: string; scraper: string; name: string };
}

/** The rows a saved query's page shows, as a table page's first page. */
const pageRows = 100;
/** Text values are cut after this many characters, as on a table page. */
const pageCellChars = 1000;

/**
 * `/{owner}/{scraper}/queries/{name}`, for people: a saved query with its parameters as a form and,
 * once each has a value, its first rows, run as a table page's are (page-admission.ts: the pages'
 * pool, the visitor's lane and page budget; never a download). A private saved query, like a private
 * scraper, is its signed-in owner's only: to anyone else the same 404 page as a name never saved.
 */
export function savedQueryPageRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; pagesPool: QueryPool; pagesLimiter?: RateLimiter },
): void {
  const { config, store, pagesPool } = deps;
  const admit = pageAdmission(deps);

  app.get<SavedQueryRoute>('/:owner/:scraper/queries/:name', async (request, reply) => {
    const admitted = await admit(request, reply);
    if (!admitted) return;
    const { visitor, scraper, version } = admitted;
    const { name } = request.params;
    const query = await findSavedQuery(store, scraper.id, name);
    if (!query || (query.isPrivate && signedIn(request)?.id !== scraper.owner.id)) {
      const fullName = `${scraper.owner.name}/${scraper.name}`;
      return sendPage(reply, 404, notFoundPage(`saved query ${name} of ${fullName}`, visitor), errors.savedQueryNotFound(fullName, name));
    }
    const pairs = paramPairs(request.url);
    const params = namedParamNames(query.sql);
    // By bare name, as its data URLs take them; a blank field is a value not yet given.
    const values = Object.create(null) as Record<string, string>;
    for (const param of params) {
      const value = pairs.find(([given]) => given === param)?.[1];
      if (value !== undefined && value !== '') values[param] = value;
    }
    const own = signedIn(request)?.id === scraper.owner.id;
    const model = { scraper, query, params, values, version, maxRows: pageRows, maxCellChars: pageCellChars, visitor, own };
    const missing = params.filter((param) => values[param] === undefined);
    if (missing.length > 0) return sendPage(reply, 200, savedQueryPage({ ...model, outcome: { kind: 'missing', names: missing } }));
    const client = whileClientWaits(reply);
    try {
      const bound = boundValues(query.sql, values, config.maxQueryChars);
      const rows = await queryRows(pagesPool, scraper, query.sql, bound, {
        maxRows: pageRows,
        maxCellChars: pageCellChars,
        laneKey: pageLane(request),
        maxQueryChars: config.maxQueryChars,
        signal: client.signal,
      });
      sendPage(reply, 200, savedQueryPage({ ...model, outcome: { kind: 'rows', rows } }));
    } catch (err) {
      const error = asSiphonError(err, reply);
      const outcome: SavedQueryOutcome = { kind: 'refused', code: error.code, message: error.message };
      sendPage(reply, error.status, savedQueryPage({ ...model, outcome }), error);
    } finally {
      client.done();
    }
  });
}
