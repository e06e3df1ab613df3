import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import { catalogWithImportLimits } from '../../scrapers/limited-catalog.js';
import { uploadLimits, withUploadedFile } from '../../scrapers/upload.js';
import type { ApiKey, Scraper, Store } from '../../store/types.js';
import { authenticate } from '../authenticate.js';
import { admitOrigin } from '../key-origin.js';
import { whileClientWaits } from '../client-waits.js';
import { loggedWhenDone, noteRequest } from '../request-log.js';
import { sendError } from '../send-error.js';
import { findScraperFor, singleParam } from './params.js';
import { settleUnreadBody } from '../unread-body.js';

interface PublishRoute {
  Params: { owner: string; scraper: string };
  Querystring: Record<string, string | string[] | undefined>;
}

/** What the body may be labelled. No Content-Type is fine too: the file is checked for what it is. */
const sqliteTypes = new Set(['application/vnd.sqlite3', 'application/x-sqlite3', 'application/octet-stream']);
const sqliteTypesAccepted = 'application/vnd.sqlite3 (application/x-sqlite3, application/octet-stream or none are accepted too)';

function checkContentType(headers: IncomingHttpHeaders): void {
  const sent = headers['content-type'];
  if (sent === undefined) return;
  const mediaType = sent.split(';')[0]!.trim().toLowerCase();
  if (!sqliteTypes.has(mediaType)) throw errors.contentType(sqliteTypesAccepted);
}

/**
 * The scraper this key may publish to. A private scraper is unknown to everyone but its owner, as
 * for reads; a read-only key can never publish, whoever's it is.
 */
async function findPublishable(store: Store, key: ApiKey, owner: string, name: string): Promise<Scraper> {
  const scraper = await findScraperFor(store, key.account.id, owner, name);
  if (key.readOnly) throw errors.keyReadOnly();
  if (scraper.owner.id !== key.account.id) throw errors.forbidden(`${scraper.owner.name}/${scraper.name}`);
  return scraper;
}

/**
 * PUT /:owner/:scraper/data.sqlite — replaces a scraper's data with the SQLite file in the body, as
 * `siphon scraper publish` does. Steps, each failing with its own status: authenticate (401; 403 for
 * a key used from a web origin it is not for) → find the scraper (404) → read-only key or not the
 * owner (403) → Content-Type (415) → Content-Length over the limit (413, before reading) → stream the
 * body to a temporary file (413 once over the limit; 408 if it stalls) → import it in a process of
 * its own (400 if it is not a sound SQLite database, or its import runs out of time or memory;
 * stopped if the client leaves) → switch in one step (publishes running at the same time each get
 * their own version) → keep it as the key's last use. A publish is not a download. When the service
 * stops (`stopping`), a publish still uploading or importing is stopped and answered 503.
 */
export function publishRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; stopping: AbortSignal; bodyFailure: (request: FastifyRequest) => AbortSignal },
): void {
  const { config, store, stopping, bodyFailure } = deps;
  const catalog = catalogWithImportLimits(store, config);

  async function handle(request: FastifyRequest<PublishRoute>, reply: FastifyReply): Promise<void> {
    const fullName = `${request.params.owner}/${request.params.scraper}`;
    const client = whileClientWaits(reply);
    try {
      const key = await authenticate(request.headers, singleParam(request.query.key), store);
      // Its answer is for no web page (a publish has no preflight): only the origin's refusal counts.
      admitOrigin(key, request.headers);
      noteRequest(request, { keyId: key.id, scraper: fullName });
      const scraper = await findPublishable(store, key, request.params.owner, request.params.scraper);
      checkContentType(request.headers);
      if (Number(request.headers['content-length'] ?? 0) > config.maxPublishBytes) {
        throw errors.dataTooLarge(config.maxPublishBytes);
      }
      const body = (request.body as Readable | undefined) ?? request.raw;
      // A client leaving mid-body already fails the upload, with its own message.
      const importSignal = AbortSignal.any([stopping, client.signal]);
      const published = await withUploadedFile(
        body,
        config.dataDir,
        uploadLimits(config),
        (file) => catalog.publish(`${scraper.owner.name}/${scraper.name}`, file, importSignal),
        AbortSignal.any([stopping, bodyFailure(request)]),
      );
      // Without this, a key that only publishes would be listed as never used, and look safe to revoke.
      await store.recordKeyUse(key.id, new Date().toISOString());
      noteRequest(request, {
        scraper: `${published.owner.name}/${published.name}`,
        version: published.data.version,
        bytes: published.data.sizeBytes,
      });
      void reply.header('cache-control', 'no-store').send({
        owner: published.owner.name,
        name: published.name,
        description: published.description,
        updated_at: published.data.updatedAt,
        version: published.data.version,
        tables: published.data.tables,
      });
    } catch (err) {
      await settleUnreadBody(request, reply);
      sendError(reply, err);
    } finally {
      client.done();
    }
  }

  // The body is the database file: the request stream (Fastify's parsers are off, see server.ts),
  // never buffered; the handler checks type and size.
  app.put<PublishRoute>('/:owner/:scraper/data.sqlite', loggedWhenDone(handle));
}
