import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import { findFormat, formatNames, isValidCallback } from '../../formats/index.js';
import type { TablePreviews } from '../../previews/table-previews.js';
import type { Scraper, Store } from '../../store/types.js';
import { firstRowsSql, guessAtomMapping, withAtomColumns } from '../../shared/api-request.js';
import { docsPage } from '../../views/docs-page.js';
import { apiReference, type ApiReference } from '../../views/docs-reference.js';
import { homePage } from '../../views/home-page.js';
import { notFoundPage } from '../../views/not-found-page.js';
import { ownerPage } from '../../views/owner-page.js';
import type { SafeHtml } from '../../views/html.js';
import type { BuilderModel, BuilderState } from '../../views/query-builder.js';
import { scraperPage } from '../../views/scraper-page.js';
import { whileClientWaits } from '../client-waits.js';
import { publicOrigin } from '../public-origin.js';
import { sendPage } from '../send-page.js';
import { signedIn, visitorOf } from '../web-session.js';
import { retentionOf } from '../../scrapers/retention.js';
import { findScraperFor, singleParam } from './params.js';

type Query = Record<string, string | string[] | undefined>;

/** Scrapers listed on one page; the search narrows a longer list. */
const listLimit = 200;
/** The download chart's span. */
const chartDays = 90;
const maxSearchChars = 200;

const builderFormats = formatNames.map((name) => ({ name, kind: findFormat(name)!.kind }));

/**
 * The builder as the page first shows it: a table's first rows as json, or what a visitor without
 * JavaScript submitted (`?table=&sql=&format=&callback=`; never a key).
 */
function builderModel(
  request: FastifyRequest<{ Querystring: Query }>,
  reply: FastifyReply,
  config: Config,
  scraper: Scraper,
): BuilderModel {
  const query = request.query;
  const tables = scraper.data.tables;
  const tableName = singleParam(query.table);
  const table = tables.find((t) => t.name === tableName) ?? tables[0];
  const formatName = singleParam(query.format) ?? '';
  const format = formatNames.includes(formatName) ? formatName : 'json';
  const tableSql = (name: string) =>
    format === 'atom' ? withAtomColumns('', guessAtomMapping(table?.columns.map((c) => c.name) ?? []), name) : firstRowsSql(name);
  const sql = singleParam(query.sql)?.slice(0, config.maxQueryChars) || (table ? tableSql(table.name) : '');
  // Checked as the API checks it: the JSONP example writes it into a script as code.
  const callback = singleParam(query.callback) ?? '';
  const callbackRefused = callback !== '' && !isValidCallback(callback);
  const state: BuilderState = { table: table?.name ?? '', sql, format, callback: callbackRefused ? '' : callback };
  // With an unreadable Host header the examples show paths.
  // A token only: the key is made when the visitor asks for it (client/query-builder.ts), never written into the page.
  const keyToken = signedIn(request) ? reply.generateCsrf() : undefined;
  return { base: publicOrigin(request, config) ?? '', scraper, formats: builderFormats, state, callbackRefused, keyToken };
}

/** Sends a page with a query builder: still shown when its address gave a callback the API would refuse, without it, as a 400. */
function sendBuilderPage(reply: FastifyReply, builder: BuilderModel | undefined, page: SafeHtml): void {
  if (builder?.callbackRefused) sendPage(reply, 400, page, errors.callbackInvalid());
  else sendPage(reply, 200, page);
}

/**
 * The HTML pages: the public scrapers, an owner's, a scraper's (downloads, tables, query builder)
 * and the API documentation. A signed-in visitor has a "Log out" button on each. Private scrapers
 * appear to their signed-in owner only; to everyone else they are answered as unknown ones.
 * Static routes (/docs, /healthz, /assets/…) win over `/:owner` in Fastify's router.
 */
export function pageRoutes(app: FastifyInstance, deps: { config: Config; store: Store; previews: TablePreviews }): void {
  // Registered in the web scope (web-session.ts), so each page knows who is signed in.
  const { config, store, previews } = deps;
  // Rendered at the first view (~30 ms of Markdown), then kept: it changes only with docs/api.md and the settings.
  let reference: ApiReference | undefined;

  app.get<{ Querystring: Query }>('/', async (request, reply) => {
    const search = (singleParam(request.query.q) ?? '').trim().slice(0, maxSearchChars);
    const listings = await store.listScrapers({ search: search || undefined, limit: listLimit });
    sendPage(reply, 200, homePage({ listings, search, limit: listLimit, visitor: visitorOf(request, reply) }));
  });

  app.get<{ Params: { owner: string } }>('/:owner', async (request, reply) => {
    const owner = await store.findAccount(request.params.owner);
    const visitor = visitorOf(request, reply);
    if (!owner)
      return sendPage(
        reply,
        404,
        notFoundPage(`account named ${request.params.owner}`, visitor),
        errors.accountNotFound(request.params.owner),
      );
    const own = signedIn(request)?.id === owner.id;
    sendPage(
      reply,
      200,
      ownerPage(owner.name, await store.listScrapers({ owner: owner.name, limit: listLimit, includePrivate: own }), visitor, own),
    );
  });

  app.get<{ Params: { owner: string; scraper: string }; Querystring: Query }>('/:owner/:scraper', async (request, reply) => {
    const { owner, scraper: name } = request.params;
    const account = signedIn(request);
    const visitor = visitorOf(request, reply);
    const scraper = await findScraperFor(store, account?.id, owner, name).catch(() => undefined);
    if (!scraper)
      return sendPage(reply, 404, notFoundPage(`public scraper ${owner}/${name}`, visitor), errors.scraperNotFound(`${owner}/${name}`));
    const ownerTools =
      account?.id === scraper.owner.id
        ? {
            csrfToken: visitor!.csrfToken,
            maxPublishBytes: config.maxPublishBytes,
            keep: retentionOf(scraper, config),
            maxKeepVersions: config.maxKeepVersions,
          }
        : undefined;
    // A visitor who leaves stops the previews' computation, unless another visitor waits for it too.
    const client = whileClientWaits(reply);
    try {
      const [downloads, perDay, tablePreviews, versions, queries] = await Promise.all([
        store.downloadStats(scraper.id),
        store.downloadsPerDay(scraper.id, chartDays),
        previews.get(scraper, client.signal),
        store.listVersions(scraper.id),
        store.listQueries(scraper.id, ownerTools !== undefined),
      ]);
      const builder = { ...builderModel(request, reply, config, scraper), saveToken: ownerTools?.csrfToken };
      const model = { scraper, downloads, perDay, previews: tablePreviews, versions, queries, builder, visitor, ownerTools };
      sendBuilderPage(reply, builder, scraperPage(model));
    } finally {
      client.done();
    }
  });

  const docs = async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply) => {
    const scraperField = (singleParam(request.query.scraper) ?? '').trim().slice(0, maxSearchChars);
    let scraper: Scraper | undefined;
    if (scraperField) {
      const [owner = '', name = ''] = scraperField.split('/');
      const found = await store.findScraper(owner, name);
      scraper = found && !found.isPrivate ? found : undefined;
    } else {
      scraper = (await store.listScrapers({ limit: 1 }))[0]?.scraper;
    }
    const builder: BuilderModel | undefined = scraper && {
      ...builderModel(request, reply, config, scraper),
      hidden: scraperField ? { scraper: scraperField } : {},
    };
    sendBuilderPage(
      reply,
      builder,
      docsPage({ reference: (reference ??= apiReference(config)), scraperField, builder, visitor: visitorOf(request, reply) }),
    );
  };
  app.get('/docs', docs);
  // Where morph.io had its API documentation, so old links keep working.
  app.get('/documentation/api', docs);
}
