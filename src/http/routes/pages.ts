import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import { findFormat, formatNames, isValidCallback } from '../../formats/index.js';
import type { TablePreviews } from '../../previews/table-previews.js';
import type { Scraper, Store } from '../../store/types.js';
import { firstRowsSql, guessAtomMapping, withAtomColumns } from '../../views/client/api-request.js';
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
import { singleParam } from './params.js';

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
function builderModel(request: FastifyRequest<{ Querystring: Query }>, config: Config, scraper: Scraper): BuilderModel {
  const query = request.query;
  const tables = scraper.data.tables;
  const tableName = singleParam(query.table);
  const table = tables.find((t) => t.name === tableName) ?? tables[0];
  const formatName = singleParam(query.format) ?? '';
  const format = formatNames.includes(formatName) ? formatName : 'json';
  const tableSql = (name: string) => (format === 'atom'
    ? withAtomColumns('', guessAtomMapping(table?.columns.map((c) => c.name) ?? []), name)
    : firstRowsSql(name));
  const sql = singleParam(query.sql)?.slice(0, config.maxQueryChars) || (table ? tableSql(table.name) : '');
  // Checked as the API checks it: the JSONP example writes it into a script as code.
  const callback = singleParam(query.callback) ?? '';
  const callbackRefused = callback !== '' && !isValidCallback(callback);
  const state: BuilderState = { table: table?.name ?? '', sql, format, callback: callbackRefused ? '' : callback };
  // With an unreadable Host header the examples show paths.
  return { base: publicOrigin(request, config) ?? '', scraper, formats: builderFormats, state, callbackRefused };
}

/** Sends a page with a query builder: still shown when its address gave a callback the API would refuse, without it, as a 400. */
function sendBuilderPage(reply: FastifyReply, builder: BuilderModel | undefined, page: SafeHtml): void {
  if (builder?.callbackRefused) sendPage(reply, 400, page, errors.callbackInvalid());
  else sendPage(reply, 200, page);
}

/**
 * The HTML pages: the public scrapers, an owner's, a scraper's (downloads, tables, query builder)
 * and the API documentation. Private scrapers never appear: they are answered as unknown ones.
 * Static routes (/docs, /healthz, /assets/…) win over `/:owner` in Fastify's router.
 */
export function pageRoutes(app: FastifyInstance, deps: { config: Config; store: Store; previews: TablePreviews }): void {
  const { config, store, previews } = deps;
  // Rendered at the first view (~30 ms of Markdown), then kept: it changes only with docs/api.md and the settings.
  let reference: ApiReference | undefined;

  app.get<{ Querystring: Query }>('/', async (request, reply) => {
    const search = (singleParam(request.query.q) ?? '').trim().slice(0, maxSearchChars);
    const listings = await store.listScrapers({ search: search || undefined, limit: listLimit });
    sendPage(reply, 200, homePage({ listings, search, limit: listLimit }));
  });

  app.get<{ Params: { owner: string } }>('/:owner', async (request, reply) => {
    const owner = await store.findAccount(request.params.owner);
    if (!owner) return sendPage(reply, 404, notFoundPage(`account named ${request.params.owner}`), errors.accountNotFound(request.params.owner));
    sendPage(reply, 200, ownerPage(owner.name, await store.listScrapers({ owner: owner.name, limit: listLimit })));
  });

  app.get<{ Params: { owner: string; scraper: string }; Querystring: Query }>('/:owner/:scraper', async (request, reply) => {
    const { owner, scraper: name } = request.params;
    const scraper = await store.findScraper(owner, name);
    if (!scraper || scraper.isPrivate) return sendPage(reply, 404, notFoundPage(`public scraper ${owner}/${name}`), errors.scraperNotFound(`${owner}/${name}`));
    // A visitor who leaves stops the previews' computation, unless another visitor waits for it too.
    const visitor = whileClientWaits(reply);
    try {
      const [downloads, perDay, tablePreviews] = await Promise.all([
        store.downloadStats(scraper.id),
        store.downloadsPerDay(scraper.id, chartDays),
        previews.get(scraper, visitor.signal),
      ]);
      const builder = builderModel(request, config, scraper);
      sendBuilderPage(reply, builder, scraperPage({ scraper, downloads, perDay, previews: tablePreviews, builder }));
    } finally {
      visitor.done();
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
    const builder: BuilderModel | undefined = scraper
      && { ...builderModel(request, config, scraper), hidden: scraperField ? { scraper: scraperField } : {} };
    sendBuilderPage(reply, builder, docsPage({ reference: reference ??= apiReference(config), scraperField, builder }));
  };
  app.get('/docs', docs);
  // Where morph.io had its API documentation, so old links keep working.
  app.get('/documentation/api', docs);
}
