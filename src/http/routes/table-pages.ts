import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { browseTable, fetchRow, parseView } from '../../browse/index.js';
import type { TableView } from '../../browse/types.js';
import type { Config } from '../../config.js';
import { errors, SiphonError } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { QueryPool } from '../../pool/pool.js';
import type { Scraper, Store, TableInfo } from '../../store/types.js';
import type { SafeHtml } from '../../views/html.js';
import type { Visitor } from '../../views/layout.js';
import { messagePage } from '../../views/message-page.js';
import { notFoundPage } from '../../views/not-found-page.js';
import { rowPage } from '../../views/row-page.js';
import { formParams } from '../../views/table-controls.js';
import { tablePage } from '../../views/table-page.js';
import { tableNameOf, tablePath, viewHref } from '../../views/table-paths.js';
import { html } from '../../views/html.js';
import { whileClientWaits } from '../client-waits.js';
import { publicOrigin } from '../public-origin.js';
import { paramPairs } from '../../utils/query-string.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { signedIn, visitorOf } from '../web-session.js';
import { currentDataHref, pinVersion } from '../pinned-version.js';
import { findScraperFor } from './params.js';
import { rowIdPattern } from '../table-twins.js';

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
  const { config, store, pagesPool, pagesLimiter } = deps;

  /** The visitor's address's lane, in the pool's fair queue and the page budget. */
  const lane = (request: FastifyRequest) => `page:${request.ip}`;

  /** Answers a failure as a page for people, with the error's status and code. */
  function refuse(reply: FastifyReply, error: SiphonError, visitor: Visitor | undefined, title: string, more?: SafeHtml): void {
    sendPage(reply, error.status, messagePage(title, error.message, visitor, more), error);
  }

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
      return refuse(reply, error, visitor, 'This page is out of date', more);
    }
    const more = html`<p><a href="${tablePath(scraper.owner.name, scraper.name, table.name)}">The table ${table.name}</a></p>`;
    refuse(reply, error, visitor, 'This view cannot be shown', more);
  }

  /** The scraper at the data version the address names (`version=`), or a 400 page, or a 410 page linking to the current data. */
  async function pinnedVersion(request: FastifyRequest, reply: FastifyReply, visitor: Visitor | undefined, scraper: Scraper) {
    const version = paramPairs(request.url).find(([name]) => name === 'version')?.[1];
    try {
      return await pinVersion(store, scraper, version, request.url);
    } catch (err) {
      const more = html`<p><a href="${currentDataHref(request.url)}">The same page with the current data</a></p>`;
      const error = asSiphonError(err, reply);
      refuse(reply, error, visitor, error.status === 410 ? 'This version of the data is not kept' : 'No such version', more);
      return undefined;
    }
  }

  /** The scraper and table of a page's path, or a 404 page (also for a private scraper of someone else). */
  async function findTable(
    request: FastifyRequest<TableRoute>,
    reply: FastifyReply,
    visitor: Visitor | undefined,
  ): Promise<{ scraper: Scraper; table: TableInfo } | undefined> {
    const { owner, scraper: name } = request.params;
    const found = await findScraperFor(store, signedIn(request)?.id, owner, name).catch(() => undefined);
    if (!found) {
      sendPage(reply, 404, notFoundPage(`public scraper ${owner}/${name}`, visitor), errors.scraperNotFound(`${owner}/${name}`));
      return undefined;
    }
    const scraper = await pinnedVersion(request, reply, visitor, found);
    if (!scraper) return undefined;
    const tableName = tableNameOf(request.params.table);
    const table = scraper.data.tables.find((t) => t.name === tableName);
    if (!table) {
      const error = errors.tableNotFound(tableName);
      const back = html`<p><a href="${`/${encodeURIComponent(owner)}/${encodeURIComponent(name)}#tables`}">The scraper's tables</a></p>`;
      refuse(reply, error, visitor, 'No such table', back);
      return undefined;
    }
    return { scraper, table };
  }

  /** Takes one page from the address's budget; false (and a 429 page) when it is spent. */
  async function withinBudget(request: FastifyRequest, reply: FastifyReply, visitor: Visitor | undefined): Promise<boolean> {
    const decision = pagesLimiter && (await pagesLimiter.take(lane(request)));
    if (!decision || decision.allowed) return true;
    refuse(reply, errors.pagesRateLimited(decision.limit, decision.resetSeconds), visitor, 'Too many pages');
    return false;
  }

  /** The first steps of both pages: the visitor, the address's page budget (429), the scraper and the table (404); none once refused. */
  async function admitPage(request: FastifyRequest<TableRoute>, reply: FastifyReply) {
    const visitor = visitorOf(request, reply);
    if (!(await withinBudget(request, reply, visitor))) return undefined;
    const found = await findTable(request, reply, visitor);
    return found && { visitor, ...found };
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
      const page = await browseTable(pagesPool, scraper, table, view, lane(request), client.signal, { maxCellChars: pageCellChars });
      if (page.next) void reply.header('link', `<${viewHref(scraper, table, { ...view, next: page.next })}>; rel="next"`);
      sendPage(reply, 200, tablePage({ scraper, table, view, page, maxCellChars: pageCellChars, visitor }));
    } catch (err) {
      refuse(reply, asSiphonError(err, reply), visitor, 'This page cannot be shown now');
    } finally {
      client.done();
    }
  });

  app.get<RowRoute>('/:owner/:scraper/tables/:table/:rowid', async (request, reply) => {
    const admitted = await admitPage(request, reply);
    if (!admitted) return;
    const { visitor, scraper, table } = admitted;
    const { rowid } = request.params;
    const client = whileClientWaits(reply);
    try {
      const row = rowIdPattern.test(rowid) ? await fetchRow(pagesPool, scraper, table, rowid, lane(request), client.signal) : undefined;
      if (!row) {
        const back = html`<p><a href="${tablePath(scraper.owner.name, scraper.name, table.name)}">The table ${table.name}</a></p>`;
        return refuse(reply, errors.rowNotFound(table.name, rowid), visitor, 'No such row', back);
      }
      const origin = publicOrigin(request, config) ?? '';
      sendPage(reply, 200, rowPage({ scraper, table, rowid, row, origin, visitor }));
    } catch (err) {
      refuse(reply, asSiphonError(err, reply), visitor, 'This row cannot be shown now');
    } finally {
      client.done();
    }
  });
}
