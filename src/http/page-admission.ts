import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, type SiphonError } from '../errors.js';
import { versionParamName } from '../formats/index.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Scraper, Store } from '../store/types.js';
import { paramPairs } from '../utils/query-string.js';
import { html, type SafeHtml } from '../views/html.js';
import type { Visitor } from '../views/layout.js';
import { messagePage } from '../views/message-page.js';
import { notFoundPage } from '../views/not-found-page.js';
import { currentDataHref, pinVersion } from './pinned-version.js';
import { findScraperFor } from './routes/params.js';
import { asSiphonError } from './send-error.js';
import { sendPage } from './send-page.js';
import { signedIn, visitorOf } from './web-session.js';

/**
 * @module The first steps of the pages whose queries run in the pages' pool (a table's, a row's, a
 * saved query's): the visitor's address's lane and page budget, the scraper as the visitor may see
 * it, at the data version the address names. Each refusal is answered as a page, with its status.
 */

/** The visitor's address's lane, in the pages' pool's fair queue and the page budget. */
export const pageLane = (request: FastifyRequest) => `page:${request.ip}`;

/** Answers a failure as a page for people, with the error's status and code. */
export function refusePage(reply: FastifyReply, error: SiphonError, visitor: Visitor | undefined, title: string, more?: SafeHtml): void {
  sendPage(reply, error.status, messagePage(title, error.message, visitor, more), error);
}

/** The admission of a page, or undefined once a refusal is answered. */
export type PageAdmission = (
  request: FastifyRequest<{ Params: { owner: string; scraper: string } }>,
  reply: FastifyReply,
) => Promise<
  | {
      visitor: Visitor | undefined;
      scraper: Scraper;
      /** The data version `version=` named, checked: the page's links keep it. */
      version?: number;
    }
  | undefined
>;

/**
 * The visitor; one page from the address's `--pages-per-minute` budget (a 429 page once spent); the
 * scraper, public or the signed-in visitor's own (a 404 page, the same for a private one of someone
 * else); the data version `version=` names (a 400 page, or a 410 page linking to the current data).
 */
export function pageAdmission(deps: { store: Store; pagesLimiter?: RateLimiter }): PageAdmission {
  const { store, pagesLimiter } = deps;

  async function withinBudget(request: FastifyRequest, reply: FastifyReply, visitor: Visitor | undefined): Promise<boolean> {
    const decision = pagesLimiter && (await pagesLimiter.take(pageLane(request)));
    if (!decision || decision.allowed) return true;
    refusePage(reply, errors.pagesRateLimited(decision.limit, decision.resetSeconds), visitor, 'Too many pages');
    return false;
  }

  async function pinnedVersion(
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor | undefined,
    scraper: Scraper,
    version: string,
  ) {
    try {
      return await pinVersion(store, scraper, version, request.url);
    } catch (err) {
      const more = html`<p><a href="${currentDataHref(request.url)}">The same page with the current data</a></p>`;
      const error = asSiphonError(err, reply);
      refusePage(reply, error, visitor, error.status === 410 ? 'This version of the data is not kept' : 'No such version', more);
      return undefined;
    }
  }

  return async (request, reply) => {
    const visitor = visitorOf(request, reply);
    if (!(await withinBudget(request, reply, visitor))) return undefined;
    const { owner, scraper: name } = request.params;
    const found = await findScraperFor(store, signedIn(request)?.id, owner, name).catch(() => undefined);
    if (!found) {
      sendPage(reply, 404, notFoundPage(`public scraper ${owner}/${name}`, visitor), errors.scraperNotFound(`${owner}/${name}`));
      return undefined;
    }
    const named = paramPairs(request.url).find(([param]) => param === versionParamName)?.[1];
    if (named === undefined) return { visitor, scraper: found };
    const scraper = await pinnedVersion(request, reply, visitor, found, named);
    return scraper && { visitor, scraper, version: scraper.data.version };
  };
}
