import type { MultipartFile, Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import { maxDescriptionChars } from '../../limits/web-forms.js';
import type { Catalog } from '../../scrapers/catalog.js';
import { uploadLimits, withUploadedFile } from '../../scrapers/upload.js';
import type { Scraper, Store } from '../../store/types.js';
import { html } from '../../views/html.js';
import { messagePage } from '../../views/message-page.js';
import { scraperPath } from '../../views/text.js';
import { whileClientWaits } from '../client-waits.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { setMultipartToken, signedIn, visitorOf } from '../web-session.js';
import { findScraperFor } from './params.js';
import { settleUnreadBody } from '../unread-body.js';

interface ScraperRoute {
  Params: { owner: string; scraper: string };
}

/** The parts still to read of a publish form, once its first part (the CSRF token) was read. */
const remainingParts = new WeakMap<FastifyRequest, AsyncIterableIterator<Multipart>>();

/**
 * The scraper of the signed-in visitor named by the path. Anyone else (signed in or not) is told it
 * does not exist, as for a private scraper, whether it exists or not.
 */
export async function ownScraper(store: Store, request: FastifyRequest<ScraperRoute>): Promise<Scraper> {
  const account = signedIn(request);
  const scraper = await findScraperFor(store, account?.id, request.params.owner, request.params.scraper);
  if (scraper.owner.id !== account?.id) throw errors.scraperNotFound(`${request.params.owner}/${request.params.scraper}`);
  return scraper;
}

/**
 * An owner's changes from the web: POST /{owner}/{scraper}/settings (description and visibility, as
 * `scraper set`) and POST /{owner}/{scraper}/publish (a multipart form with the CSRF token first and
 * the database file second, published as PUT …/data.sqlite is: the same upload bounds, import and
 * switch, through withUploadedFile and the Catalog). Answered with a redirect to the scraper's page,
 * or a page with the error's status and code.
 */
export function ownerScraperRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; catalog: Catalog; stopping: AbortSignal; bodyFailure: (request: FastifyRequest) => AbortSignal },
): void {
  const { config, store, catalog, stopping, bodyFailure } = deps;

  async function refused(request: FastifyRequest<ScraperRoute>, reply: FastifyReply, title: string, err: unknown): Promise<void> {
    await settleUnreadBody(request, reply);
    const error = asSiphonError(err, reply);
    const back = scraperPath(request.params.owner, request.params.scraper);
    sendPage(
      reply,
      error.status,
      messagePage(
        title,
        error.message,
        visitorOf(request, reply),
        error.status === 404 ? undefined : html`<p><a href="${back}">Back to the scraper</a></p>`,
      ),
      error,
    );
  }

  app.post<ScraperRoute>('/:owner/:scraper/settings', { preHandler: app.csrfProtection }, async (request, reply) => {
    try {
      const scraper = await ownScraper(store, request);
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const description = typeof form.description === 'string' ? form.description.trim() : undefined;
      if (description !== undefined && description.length > maxDescriptionChars) {
        throw errors.formInvalid(`A description is at most ${maxDescriptionChars} characters.`);
      }
      if (form.visibility !== undefined && form.visibility !== 'public' && form.visibility !== 'private') {
        throw errors.formInvalid('Visibility is public or private.');
      }
      const isPrivate = form.visibility === undefined ? undefined : form.visibility === 'private';
      const updated = await catalog.setScraper(`${scraper.owner.name}/${scraper.name}`, { description, isPrivate });
      request.log.info({ scraper: `${updated.owner.name}/${updated.name}`, private: updated.isPrivate }, 'scraper changed on the web');
      return reply.redirect(scraperPath(updated.owner.name, updated.name), 303);
    } catch (err) {
      await refused(request, reply, 'Not saved', err);
    }
  });

  /** A count from the keep form: empty is the default (null); anything not a whole number is refused as out of bounds. */
  const keepField = (value: string | undefined): number | null | undefined =>
    value === undefined ? undefined : value.trim() === '' ? null : /^\d{1,9}$/.test(value.trim()) ? Number(value) : Number.NaN;

  app.post<ScraperRoute>('/:owner/:scraper/keep', { preHandler: app.csrfProtection }, async (request, reply) => {
    try {
      const scraper = await ownScraper(store, request);
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const choice = { versions: keepField(form.versions), days: keepField(form.days) };
      const updated = await catalog.keepVersions(`${scraper.owner.name}/${scraper.name}`, choice);
      request.log.info(
        { scraper: `${updated.owner.name}/${updated.name}`, keep: catalog.retentionOf(updated) },
        'retention changed on the web',
      );
      return reply.redirect(`${scraperPath(updated.owner.name, updated.name)}#owner-tools`, 303);
    } catch (err) {
      await refused(request, reply, 'Not saved', err);
    }
  });

  /** Reads the form's first part, which must be its token, so the CSRF check can run before the file is read. */
  async function readToken(request: FastifyRequest<ScraperRoute>): Promise<void> {
    if (!request.isMultipart()) return;
    const parts = request.parts();
    remainingParts.set(request, parts);
    const first = (await parts.next()).value as Multipart | undefined;
    if (first?.type === 'field' && first.fieldname === '_csrf' && typeof first.value === 'string') setMultipartToken(request, first.value);
  }

  app.post<ScraperRoute>('/:owner/:scraper/publish', { preHandler: [readToken, app.csrfProtection] }, async (request, reply) => {
    const startedAt = performance.now();
    const client = whileClientWaits(reply);
    try {
      const scraper = await ownScraper(store, request);
      const parts = remainingParts.get(request);
      const file = parts && ((await parts.next()).value as MultipartFile | undefined);
      if (file?.type !== 'file' || file.fieldname !== 'db') throw errors.formInvalid('Choose a database file to publish.');
      const published = await withUploadedFile(
        file.file,
        config.dataDir,
        uploadLimits(config),
        (path) => catalog.publish(`${scraper.owner.name}/${scraper.name}`, path, AbortSignal.any([stopping, client.signal])),
        AbortSignal.any([stopping, bodyFailure(request)]),
      );
      request.log.info(
        {
          scraper: `${published.owner.name}/${published.name}`,
          account: scraper.owner.name,
          version: published.data.version,
          bytes: published.data.sizeBytes,
          durationMs: performance.now() - startedAt,
        },
        'data published on the web',
      );
      return reply.redirect(scraperPath(published.owner.name, published.name), 303);
    } catch (err) {
      await refused(request, reply, 'Not published', err);
    } finally {
      client.done();
    }
  });
}
