import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { browseTable, fetchRow, parseView } from '../../browse/index.js';
import type { TableView } from '../../browse/types.js';
import type { Config } from '../../config.js';
import { errors, SiphonError } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { QueryPool } from '../../pool/pool.js';
import type { Scraper, Store, TableInfo } from '../../store/types.js';
import type { Visitor } from '../../views/layout.js';
import { rowPage } from '../../views/row-page.js';
import { formParams } from '../../views/table-controls.js';
import { tablePage } from '../../views/table-page.js';
import { atVersion, tableNameOf, tablePath, viewHref } from '../../views/table-paths.js';
import { html } from '../../views/html.js';
import { whileClientWaits } from '../client-waits.js';
import { publicOrigin } from '../public-origin.js';
import { paramPairs } from '../../utils/query-string.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { rowIdPattern } from '../table-twins.js';
import { pageAdmission, pageLane, refusePage } from '../page-admission.js';

interface TableRoute {
  Params: { owner: string; scraper: string; table: string };
}
interface RowRoute {
  Params: { owner: string; scraper: string; table: string; rowid: string };
}

/**
 * A table page cuts text values after this many characters (in the query, so a page of 1 MB values
 * holds ~100 KB of each at most); the row page and the twins give them whole.
 */
const pageCellChars = 1000;

/** parseView's refusals of a `_next` token made for other data, or for another view, or changed by hand. */
const tokenCodes = new Set(['SIPHON_ERR_PAGE_TOKEN_STALE', 'SIPHON_ERR_PAGE_TOKEN_INVALID']);

/** The first page of the view a refused token came with, when the rest of its address is sound. */
function firstPageOf(scraper: Scraper, table: TableInfo, pairs: [string, string][]): string {
  try {
    return viewHref(
      scraper,
      table,
      parseView(
        pairs.filter(([name]) => name !== '_next'),
        table,
      ),
    );
  } catch {
    return tablePath(scraper.owner.name, scraper.name, table.name);
  }
}

/**
 * The table pages, for people: open to anonymous visitors (a private scraper only to its signed-in
 * owner, as its page is), never downloads. Their queries run in the previews' pool, each visitor
 * address in a lane of its own of its fair queue, and each address may ask for `--pages-per-minute`
 * pages (429 beyond), so no visitor can slow the API or another visitor for long.
 */
export function tablePageRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; pagesPool: QueryPool; pagesLimiter?: RateLimiter },
): void {
  const { config, pagesPool } = deps;

  const admitScraper = pageAdmission(deps);

  /** A view the address states wrongly: a 400 page naming what, or for a page token, a link to the view's first page. */
  function refuseView(
    reply: FastifyReply,
    error: SiphonError,
    visitor: Visitor | undefined,
    scraper: Scraper,
    table: TableInfo,
    pairs: [string, string][],
  ): void {
    if (tokenCodes.has(error.code)) {
      const more = html`<p><a href="${firstPageOf(scraper, table, pairs)}">The first page of the current data</a></p>`;
      return refusePage(reply, error, visitor, 'This page is out of date', more);
    }
    const more = html`<p><a href="${tablePath(scraper.owner.name, scraper.name, table.name)}">The table ${table.name}</a></p>`;
    refusePage(reply, error, visitor, 'This view cannot be shown', more);
  }

  /** The first steps of both pages (page-admission.ts), then the table of the path (a 404 page); none once refused. */
  async function admitPage(request: FastifyRequest<TableRoute>, reply: FastifyReply) {
    const admitted = await admitScraper(request, reply);
    if (!admitted) return undefined;
    const { visitor, scraper, version } = admitted;
    const tableName = tableNameOf(request.params.table);
    const table = scraper.data.tables.find((t) => t.name === tableName);
    if (!table) {
      const { owner, scraper: name } = request.params;
      const back = html`<p><a href="${`/${encodeURIComponent(owner)}/${encodeURIComponent(name)}#tables`}">The scraper's tables</a></p>`;
      refusePage(reply, errors.tableNotFound(tableName), visitor, 'No such table', back);
      return undefined;
    }
    return { visitor, scraper, table, version };
  }

  app.get<TableRoute>('/:owner/:scraper/tables/:table', async (request, reply) => {
    const admitted = await admitPage(request, reply);
    if (!admitted) return;
    const { visitor, scraper, table } = admitted;
    const pairs = paramPairs(request.url);
    const submitted = formParams(pairs);
    let view: TableView;
    try {
      view = parseView(submitted ?? pairs, table);
    } catch (err) {
      return refuseView(reply, asSiphonError(err, reply), visitor, scraper, table, pairs);
    }
    // The form's numbered fields are answered with the view's canonical address, which is what to share.
    if (submitted) return reply.redirect(viewHref(scraper, table, view), 303);
    const client = whileClientWaits(reply);
    try {
      const page = await browseTable(pagesPool, scraper, table, view, pageLane(request), client.signal, { maxCellChars: pageCellChars });
      if (page.next) void reply.header('link', `<${viewHref(scraper, table, { ...view, next: page.next })}>; rel="next"`);
      sendPage(reply, 200, tablePage({ scraper, table, view, page, maxCellChars: pageCellChars, visitor }));
    } catch (err) {
      refusePage(reply, asSiphonError(err, reply), visitor, 'This page cannot be shown now');
    } finally {
      client.done();
    }
  });

  app.get<RowRoute>('/:owner/:scraper/tables/:table/:rowid', async (request, reply) => {
    const admitted = await admitPage(request, reply);
    if (!admitted) return;
    const { visitor, scraper, table, version } = admitted;
    const { rowid } = request.params;
    const client = whileClientWaits(reply);
    try {
      const row = rowIdPattern.test(rowid) ? await fetchRow(pagesPool, scraper, table, rowid, pageLane(request), client.signal) : undefined;
      if (!row) {
        const back = html`<p><a href="${atVersion(tablePath(scraper.owner.name, scraper.name, table.name), version)}">The table ${table.name}</a></p>`;
        return refusePage(reply, errors.rowNotFound(table.name, rowid), visitor, 'No such row', back);
      }
      const origin = publicOrigin(request, config) ?? '';
      sendPage(reply, 200, rowPage({ scraper, table, rowid, row, origin, visitor, version }));
    } catch (err) {
      refusePage(reply, asSiphonError(err, reply), visitor, 'This row cannot be shown now');
    } finally {
      client.done();
    }
  });
}
