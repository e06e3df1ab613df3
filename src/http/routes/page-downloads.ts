import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pagesKey } from '../pages-key.js';
import { exportStatement, parseView } from '../../browse/index.js';
import type { Config } from '../../config.js';
import type { DownloadRecorder } from '../../downloads/recorder.js';
import { errors } from '../../errors.js';
import { findFormat, versionParamName } from '../../formats/index.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { QueryPool } from '../../pool/pool.js';
import type { Catalog } from '../../scrapers/catalog.js';
import type { Store } from '../../store/types.js';
import { paramPairs, type Params } from '../../utils/query-string.js';
import { tableNameOf, twinOwnParams } from '../../views/table-paths.js';
import { admitKey } from '../api-call.js';
import { tableFileName } from '../attachment.js';
import { corsHeaders } from '../cors.js';
import { dataCalls } from '../data-call.js';
import { publicOrigin } from '../public-origin.js';
import { savedQuery } from '../query-source.js';
import { loggedWhenDone } from '../request-log.js';
import { sendError } from '../send-error.js';
import { sitePath } from '../site-path.js';
import { signedIn } from '../web-session.js';

interface DownloadRoute {
  /** `table` for a table's rows, `name` for a saved query's, neither for the database. */
  Params: { owner: string; scraper: string; table?: string; name?: string; format?: string };
  Querystring: Params;
}

/**
 * What `Sec-Fetch-Site` says of a request a visitor's session may pay for: one from this site's own
 * pages (`same-origin`) or typed, bookmarked or opened by the visitor (`none`). A browser too old to
 * send the header is let through: the cookie's SameSite=Lax already keeps it from other sites'
 * fetches and forms, and only a top-level link remains, which the header closes in every current browser.
 */
const ownSite = (request: FastifyRequest) => {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
};

/**
 * The pages' download buttons: `/{owner}/{scraper}/download.sqlite` (the whole database) and
 * `/{owner}/{scraper}/download/{table}.csv|.json` with a view's filters, search, sort and columns
 * (every row, not a page; `excel=1` for a CSV for Excel), and `/{owner}/{scraper}/download/queries/{name}.csv|.json`
 * with a saved query's values. Registered in the web scope: the signed-in
 * visitor's session stands for their account here only, never on the data API. The call runs with
 * their pages key (http/pages-key.ts), so it is a download of theirs under that key's rate limit,
 * lane and bounds, and it goes through the data API's own steps (data-call.ts): the same bytes as
 * `data.csv?query=…&dl=1`. An anonymous visitor is sent to sign in, and comes back here after.
 */
export function pageDownloadRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; pool: QueryPool; recorder: DownloadRecorder; rateLimiter?: RateLimiter; catalog: Catalog },
): void {
  const { config, store, catalog } = deps;
  const answerDataCall = dataCalls(deps);

  async function handle(request: FastifyRequest<DownloadRoute>, reply: FastifyReply): Promise<void> {
    const startedAt = performance.now();
    // This address as a path of the site: where a sign-in comes back to, and what the download is
    // recorded as asking, as a twin's is (its path and parameters; no key is ever in them).
    const here = sitePath(request.url, publicOrigin(request, config));
    const account = signedIn(request);
    if (!account) return void reply.redirect(here ? `/login?next=${encodeURIComponent(here)}` : '/login', 303);
    const { table: segment, name } = request.params;
    const formatName = request.params.format ?? 'sqlite';
    const format = findFormat(formatName);
    let ask;
    try {
      if (!ownSite(request)) throw errors.downloadCrossSite();
      const rows = segment !== undefined || name !== undefined;
      if (rows && formatName !== 'csv' && formatName !== 'json') throw errors.formatUnknown(['csv', 'json']);
      const key = await pagesKey(store, catalog, account);
      const pairs = paramPairs(request.url);
      // A pinned view's download is of the version it shows.
      const call = await admitKey(request, reply, key, deps, pairs.find(([name]) => name === versionParamName)?.[1]);
      // Nothing here is for other sites' scripts: the API's CORS headers are taken back.
      for (const name of Object.keys(corsHeaders)) void reply.removeHeader(name);
      call.cors = {};
      const excel = pairs.find(([name]) => name === 'excel')?.[1];
      const param = (name: string) => (name === 'dl' ? '1' : name === 'excel' ? excel : undefined);
      ask = { call, format, formatName, param, given: {}, callback: undefined, sql: null, recordedQuery: here ?? null, startedAt };
      if (segment !== undefined) {
        const tableName = tableNameOf(segment);
        const table = call.scraper.data.tables.find((t) => t.name === tableName);
        if (!table) throw errors.tableNotFound(tableName);
        const statement = exportStatement(
          table,
          parseView(
            pairs.filter(([name]) => !twinOwnParams.has(name)),
            table,
          ),
        );
        const fileName = tableFileName(call.scraper, table.name, formatName);
        ask = { ...ask, sql: statement.sql, extras: { params: statement.params, fileName } };
      }
      if (name !== undefined) {
        // Its values by bare name, as on its data URLs; a private one is the visitor's own only.
        const { sql, given } = await savedQuery(store, call, name, request.query, format);
        ask = { ...ask, sql, given, extras: { fileName: tableFileName(call.scraper, name, formatName) } };
      }
    } catch (err) {
      sendError(reply, err);
      return;
    }
    await answerDataCall(request, reply, ask);
  }

  app.get<DownloadRoute>('/:owner/:scraper/download.sqlite', loggedWhenDone(handle));
  app.get<DownloadRoute>('/:owner/:scraper/download/:table.:format', loggedWhenDone(handle));
  app.get<DownloadRoute>('/:owner/:scraper/download/queries/:name.:format', loggedWhenDone(handle));
}
