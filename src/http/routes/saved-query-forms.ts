import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import type { Catalog } from '../../scrapers/catalog.js';
import { findSavedQuery } from '../../scrapers/saved-queries.js';
import type { SavedQuery, SavedQueryFields, Scraper, Store } from '../../store/types.js';
import { html } from '../../views/html.js';
import { savedQueryFormPage, type SavedQueryFormPage } from '../../views/saved-query-forms.js';
import { savedQueryPath, scraperPath } from '../../views/text.js';
import { refusePage } from '../page-admission.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { signedIn, visitorOf } from '../web-session.js';
import { field } from './form-field.js';
import { ownScraper } from './owner-scrapers.js';
import { findScraperFor } from './params.js';

interface ScraperRoute {
  Params: { owner: string; scraper: string };
}
interface QueryRoute {
  Params: { owner: string; scraper: string; name: string };
}
/** What a refusal shows again: the form that was sent (`at`), with what it held. */
type RefusedForm = Omit<SavedQueryFormPage, 'error' | 'visitor' | 'csrfToken'> & { at: 'save' | 'delete' };

/** A form's fields as a saved query. A browser sends a textarea's line breaks as CRLF: they are kept as typed, LF. */
function draftOf(body: unknown, name: string): SavedQueryFields {
  const text = (key: string) => field(body, key).replace(/\r\n?/g, '\n');
  return {
    name,
    title: field(body, 'title'),
    description: text('description'),
    sql: text('sql'),
    isPrivate: field(body, 'private') === '1',
  };
}

/**
 * The owner's forms for a scraper's saved queries, in the web scope (session and CSRF token, checked
 * before a handler runs): POST /{owner}/{scraper}/queries saves a new one from the query builder,
 * GET and POST …/queries/{name}/edit change one (its name stays), POST …/queries/{name}/delete removes
 * it once its box is ticked. The Catalog checks what is saved (saved-queries.ts) as for `query save`.
 * A visitor signed out is sent to sign in; anyone but the owner is told the query does not exist, as
 * for a private one; a refusal shows the form again with its message, its status and its code.
 */
export function savedQueryFormRoutes(app: FastifyInstance, deps: { config: Config; store: Store; catalog: Catalog }): void {
  const { config, store, catalog } = deps;
  const csrf = { preHandler: app.csrfProtection };

  /** The saved query named by the path, for its scraper's signed-in owner only. */
  async function ownQuery(request: FastifyRequest<QueryRoute>): Promise<{ scraper: Scraper; query: SavedQuery }> {
    const { owner, scraper: scraperName, name } = request.params;
    const account = signedIn(request);
    const scraper = await findScraperFor(store, account?.id, owner, scraperName);
    const query = scraper.owner.id === account?.id ? await findSavedQuery(store, scraper.id, name) : undefined;
    if (!query) throw errors.savedQueryNotFound(`${scraper.owner.name}/${scraper.name}`, name);
    return { scraper, query };
  }

  const toSignIn = (reply: FastifyReply, next: string) => reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
  const fullName = (scraper: Scraper) => `${scraper.owner.name}/${scraper.name}`;

  /**
   * A refusal: the form that was sent again, with its message at it, once the owner's scraper (and
   * query) were found; else, or when the query is gone, a page saying what is not there.
   */
  function refuse(request: FastifyRequest, reply: FastifyReply, err: unknown, form: RefusedForm | undefined): void {
    const error = asSiphonError(err, reply);
    const visitor = visitorOf(request, reply)!;
    if (form === undefined || error.status === 404 || error.status >= 500) {
      const { owner, scraper } = request.params as ScraperRoute['Params'];
      const notFound = error.status === 404;
      // No way back to a scraper the visitor may not see.
      const back = notFound ? undefined : html`<p><a href="${scraperPath(owner, scraper)}">Back to the scraper</a></p>`;
      return refusePage(reply, error, visitor, notFound ? 'Not found' : 'Not saved', back);
    }
    const { at, ...page } = form;
    const model = { ...page, visitor, csrfToken: visitor.csrfToken, error: { form: at, message: error.message } };
    sendPage(reply, error.status, savedQueryFormPage(model), error);
  }

  app.post<ScraperRoute>('/:owner/:scraper/queries', csrf, async (request, reply) => {
    if (!signedIn(request)) return toSignIn(reply, `${scraperPath(request.params.owner, request.params.scraper)}#api`);
    let form: RefusedForm | undefined;
    try {
      const scraper = await ownScraper(store, request);
      const draft = draftOf(request.body, field(request.body, 'name').trim());
      form = { scraper, draft, editing: false, at: 'save' };
      const saved = await catalog.saveQuery(fullName(scraper), draft, config.maxQueryChars, 'new');
      request.log.info({ scraper: fullName(scraper), query: saved.name }, 'query saved on the web');
      return reply.redirect(savedQueryPath(scraper.owner.name, scraper.name, saved.name), 303);
    } catch (err) {
      refuse(request, reply, err, form);
    }
  });

  app.get<QueryRoute>('/:owner/:scraper/queries/:name/edit', async (request, reply) => {
    if (!signedIn(request)) return toSignIn(reply, request.url);
    try {
      const { scraper, query } = await ownQuery(request);
      const visitor = visitorOf(request, reply)!;
      sendPage(reply, 200, savedQueryFormPage({ scraper, draft: query, editing: true, visitor, csrfToken: visitor.csrfToken }));
    } catch (err) {
      refuse(request, reply, err, undefined);
    }
  });

  app.post<QueryRoute>('/:owner/:scraper/queries/:name/edit', csrf, async (request, reply) => {
    if (!signedIn(request)) return toSignIn(reply, request.url);
    let form: RefusedForm | undefined;
    try {
      const { scraper } = await ownQuery(request);
      const draft = draftOf(request.body, request.params.name);
      form = { scraper, draft, editing: true, at: 'save' };
      const saved = await catalog.saveQuery(fullName(scraper), draft, config.maxQueryChars, 'existing');
      request.log.info({ scraper: fullName(scraper), query: saved.name }, 'saved query changed on the web');
      return reply.redirect(savedQueryPath(scraper.owner.name, scraper.name, saved.name), 303);
    } catch (err) {
      refuse(request, reply, err, form);
    }
  });

  app.post<QueryRoute>('/:owner/:scraper/queries/:name/delete', csrf, async (request, reply) => {
    const { owner, scraper: scraperName, name } = request.params;
    if (!signedIn(request)) return toSignIn(reply, `${savedQueryPath(owner, scraperName, name)}/edit`);
    let form: RefusedForm | undefined;
    try {
      const { scraper, query } = await ownQuery(request);
      form = { scraper, draft: query, editing: true, at: 'delete' };
      if (field(request.body, 'confirm') !== '1')
        throw errors.formInvalid('Tick "Yes, delete it" to delete this query: nothing was deleted.');
      await catalog.removeQuery(fullName(scraper), query.name);
      request.log.info({ scraper: fullName(scraper), query: query.name }, 'saved query deleted on the web');
      return reply.redirect(scraperPath(scraper.owner.name, scraper.name), 303);
    } catch (err) {
      refuse(request, reply, err, form);
    }
  });
}
