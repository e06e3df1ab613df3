import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyPassword } from '../../accounts/passwords.js';
import { LoginThrottle } from '../../accounts/login-throttle.js';
import type { Config } from '../../config.js';
import { errors, SiphonError } from '../../errors.js';
import type { Catalog } from '../../scrapers/catalog.js';
import type { Store } from '../../store/types.js';
import { accountPage, type AccountPageModel } from '../../views/account-page.js';
import { asSiphonError, sendError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { currentSessionHash, signedIn, visitorOf } from '../web-session.js';
import { field, type Form } from './form-field.js';
import { signInRoutes } from './sign-in.js';

/** The span of the account page's download charts, as the scraper page's. */
const chartDays = 90;

const notices: Record<string, string> = { 'key-revoked': 'The key was revoked: it is refused from now on.' };

/**
 * Accounts on the web: sign up, log in and out (sign-in.ts), and `/account` (keys, scrapers, own
 * downloads, password). Every POST carries this browser's CSRF token (checked before the handler
 * runs); a refusal is a page with the error's status and its code in Siphon-Error-Code. Passwords are
 * read from form bodies only, which are never logged.
 */
export function accountRoutes(app: FastifyInstance, deps: { config: Config; store: Store; catalog: Catalog }): void {
  const { config, store, catalog } = deps;
  const throttle = new LoginThrottle({
    perAccount: config.loginFailures,
    perAddress: config.loginFailuresPerAddress,
    signupsPerAddress: config.signupsPerAddress,
    windowMs: config.loginWindowMs,
  });
  signInRoutes(app, { config, store, throttle });
  const csrf = { preHandler: app.csrfProtection };

  /**
   * The account page of the visitor signed in, with what this request adds; to /login when no one is.
   * A refusal gives the page its status, Siphon-Error-Code and Retry-After.
   */
  async function showAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<AccountPageModel> = {},
    status = 200,
    refusal?: SiphonError,
  ) {
    const account = signedIn(request);
    if (!account) return reply.redirect('/login?next=/account', 303);
    const [keys, scrapers, downloads] = await Promise.all([
      store.listKeys(account.id),
      store.listScrapers({ owner: account.name, includePrivate: true }),
      store.accountDownloads(account.id, chartDays),
    ]);
    sendPage(reply, status, accountPage({ visitor: visitorOf(request, reply)!, keys, scrapers, downloads, chartDays, ...extra }), refusal);
  }

  /** The account page with `error` shown at its form. */
  const refuseOnAccount = (request: FastifyRequest, reply: FastifyReply, form: 'key' | 'password', error: SiphonError) =>
    showAccount(request, reply, { error: { form, message: error.message } }, error.status, error);

  app.get<{ Querystring: Form }>('/account', async (request, reply) =>
    showAccount(request, reply, { notice: notices[field(request.query, 'done')] }),
  );

  app.post('/account/keys', csrf, async (request, reply) => {
    const account = signedIn(request);
    if (!account) return reply.redirect('/login?next=/account', 303);
    try {
      const origins = field(request.body, 'origins')
        .split(/\s+/)
        .filter((o) => o !== '');
      const key = await catalog.createKey(account.name, {
        label: field(request.body, 'label').trim(),
        readOnly: field(request.body, 'readOnly') === '1',
        origins,
      });
      request.log.info({ account: account.name }, 'key created on the web');
      return showAccount(request, reply, { newKey: key }, 201);
    } catch (err) {
      return refuseOnAccount(request, reply, 'key', asSiphonError(err, reply));
    }
  });

  app.post('/account/keys/revoke', csrf, async (request, reply) => {
    const account = signedIn(request);
    if (!account) return reply.redirect('/login?next=/account', 303);
    const id = Number(field(request.body, 'id'));
    if (!Number.isSafeInteger(id) || !(await store.revokeAccountKey(account.id, id))) {
      return refuseOnAccount(request, reply, 'key', errors.formInvalid('You have no such key.'));
    }
    request.log.info({ account: account.name, keyId: id }, 'key revoked on the web');
    return reply.redirect('/account?done=key-revoked', 303);
  });

  app.post('/account/password', csrf, async (request, reply) => {
    const account = signedIn(request);
    if (!account) return reply.redirect('/login?next=/account', 303);
    const refuse = (error: SiphonError) => refuseOnAccount(request, reply, 'password', error);
    const wait = throttle.waitSeconds(account.name, request.ip);
    if (wait > 0) return refuse(errors.signInThrottled(wait));
    const login = await store.findLogin(account.name);
    if (!login?.passwordHash || !(await verifyPassword(field(request.body, 'current'), login.passwordHash))) {
      throttle.failed(account.name, request.ip);
      return refuse(errors.signInFailed());
    }
    const password = field(request.body, 'password');
    if (password !== field(request.body, 'password2')) return refuse(errors.passwordsDiffer());
    try {
      await catalog.setPassword(account.name, password, currentSessionHash(request));
    } catch (err) {
      return refuse(asSiphonError(err, reply));
    }
    request.log.info({ account: account.name }, 'password changed on the web');
    return showAccount(request, reply, { notice: 'Your password was changed, and your other sessions were logged out.' });
  });

  /**
   * The query builder's "Use a new key" button: a read-only key made for the visitor who pressed it,
   * answered as JSON to that page's script (its token in the X-CSRF-Token header), never stored by a cache.
   */
  app.post('/account/builder-key', csrf, async (request, reply) => {
    const account = signedIn(request);
    if (!account) return sendError(reply, errors.signInRequired());
    // The label names the page's scraper, cut to fit a label's 100 characters.
    const scraper = field(request.body, 'scraper')
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
      .slice(0, 80);
    const key = await catalog.createKey(account.name, { readOnly: true, label: `query builder${scraper ? ` (${scraper})` : ''}` });
    request.log.info({ account: account.name }, 'key created for the query builder');
    return reply.header('cache-control', 'no-store').send({ key });
  });
}
