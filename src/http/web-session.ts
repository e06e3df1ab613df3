import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyMultipart from '@fastify/multipart';
import fastifySession, { type SessionStore as FastifySessionStore } from '@fastify/session';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { sessionIdHash, sessionSweepMs, StoreSessions } from '../accounts/session-store.js';
import type { Config } from '../config.js';
import { errors, SiphonError } from '../errors.js';
import type { RequestLimits } from '../limits/request-size.js';
import { maxFormBytes } from '../limits/web-forms.js';
import type { Account, SessionStore } from '../store/types.js';
import type { Visitor } from '../views/layout.js';
import { messagePage } from '../views/message-page.js';
import { fromFramework } from './framework-errors.js';
import { sendPage } from './send-page.js';

export const sessionCookie = 'siphon_session';

/** The token a multipart form gave in its first field, read by the route before its file (see owner-scrapers.ts). */
const multipartTokens = new WeakMap<FastifyRequest, string>();
export function setMultipartToken(request: FastifyRequest, token: string): void {
  multipartTokens.set(request, token);
}

declare module 'fastify' {
  interface Session {
    accountId?: number;
    accountName?: string;
  }
}

/** The account signed in on this request, if any. */
export function signedIn(request: FastifyRequest): Account | undefined {
  const { accountId, accountName } = request.session ?? {};
  return accountId !== undefined && accountName !== undefined ? { id: accountId, name: accountName } : undefined;
}

/** What every page's frame needs of the visitor: their account and a token for the "Log out" form. */
export function visitorOf(request: FastifyRequest, reply: FastifyReply): Visitor | undefined {
  const account = signedIn(request);
  return account && { name: account.name, csrfToken: reply.generateCsrf() };
}

/** The hash under which this request's session is stored, to keep it when others are ended. */
export function currentSessionHash(request: FastifyRequest): string | undefined {
  return request.session?.sessionId ? sessionIdHash(request.session.sessionId) : undefined;
}

/**
 * The part of the site a browser signs in to: pages and account forms. Cookies, form bodies, uploads,
 * CSRF tokens and sessions are registered in a scope of their own, so none of it reaches the data
 * API or PUT publishing (keys only; `Access-Control-Allow-Origin: *` stays safe because no cookie
 * authorises anything there). `routes` adds the routes of this scope.
 */
export function webScope(
  app: FastifyInstance,
  deps: { config: Config; store: SessionStore; limits: RequestLimits },
  routes: (scope: FastifyInstance) => void,
): void {
  const { config, store, limits } = deps;
  const secure = config.publicUrl?.startsWith('https:') ?? false;
  void app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifyFormbody, { bodyLimit: maxFormBytes });
    // The file's limit is one byte over the publish limit, so withUploadedFile sees a larger file
    // and refuses it with PUT's own 413, rather than busboy cutting it short at the limit.
    await scope.register(fastifyMultipart, {
      limits: { fileSize: config.maxPublishBytes + 1, files: 1, fields: 4, fieldSize: 1024, parts: 5 },
    });
    await scope.register(fastifyCsrf, {
      cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true },
      getToken: (request) =>
        (request.body as { _csrf?: string } | undefined)?._csrf ??
        (request.headers['x-csrf-token'] as string | undefined) ??
        multipartTokens.get(request),
    });
    // The cookie's signing secret is shared through the store by every server using it.
    const secret = await store.serverSecret('session-cookie', () => randomBytes(32).toString('base64url'));
    await scope.register(fastifySession, {
      // Typed as holding the plugin's Session class; it reads back the fields a session was saved with.
      secret,
      store: new StoreSessions(store) as unknown as FastifySessionStore,
      cookieName: sessionCookie,
      saveUninitialized: false,
      rolling: false,
      // Secure is added below: the plugin would not save a session over plain HTTP with it, and
      // behind a TLS proxy (the only way to an https public URL) every request arrives as HTTP.
      cookie: { path: '/', httpOnly: true, sameSite: 'lax', secure: false },
    });
    // No stored text holds U+0000 (PostgreSQL's cannot: src/store/nul-text.ts), so a form field with
    // one is refused whole, on every engine, before any handler stores a part of it.
    scope.addHook('preValidation', async (request) => {
      const fields = Object.values((request.body ?? {}) as Record<string, unknown>).flat();
      if (fields.some((value) => typeof value === 'string' && value.includes('\u0000'))) {
        throw errors.formInvalid('A form field cannot hold the character U+0000.');
      }
    });
    scope.addHook('onSend', async (request, reply) => {
      const cookies = reply.getHeader('set-cookie');
      if (secure && cookies !== undefined) {
        const list = (Array.isArray(cookies) ? cookies : [String(cookies)]).map((c) => (/;\s*secure\b/i.test(c) ? c : `${c}; Secure`));
        void reply.removeHeader('set-cookie').header('set-cookie', list);
      }
      // A page made for a signed-in visitor (their keys, a new key, their token) is kept by no cache.
      if (signedIn(request) || cookies !== undefined) void reply.header('cache-control', 'private, no-store');
    });
    scope.setErrorHandler(async (err, request, reply) => {
      const error = fromFramework(err, limits);
      // Forms are sent by browsers: their refusals are pages. Anything else goes to the server's handler.
      if (
        error instanceof SiphonError &&
        error.code === errors.csrfInvalid().code &&
        (request.headers.accept ?? '').includes('text/html')
      ) {
        return sendPage(
          reply,
          403,
          messagePage('Form refused', errors.csrfInvalid().message, visitorOf(request, reply)),
          errors.csrfInvalid(),
        );
      }
      throw err;
    });
    const sweep = setInterval(() => {
      store
        .removeExpiredSessions(new Date().toISOString())
        .catch((err: unknown) => scope.log.error({ err }, 'could not remove expired sessions'));
    }, sessionSweepMs);
    sweep.unref();
    scope.addHook('onClose', async () => clearInterval(sweep));
    await store.removeExpiredSessions(new Date().toISOString());
    routes(scope);
  });
}
