import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  decoyHash,
  hashPassword,
  isAcceptablePassword,
  maxPasswordChars,
  minPasswordChars,
  verifyPassword,
} from '../../accounts/passwords.js';
import { LoginThrottle } from '../../accounts/login-throttle.js';
import type { Config } from '../../config.js';
import { errors, SiphonError } from '../../errors.js';
import type { Catalog } from '../../scrapers/catalog.js';
import { isAccountName } from '../../utils/names.js';
import type { Account, Store } from '../../store/types.js';
import { accountPage, type AccountPageModel } from '../../views/account-page.js';
import { messagePage } from '../../views/message-page.js';
import { loginPage, signupPage } from '../../views/sign-in-pages.js';
import { publicOrigin } from '../public-origin.js';
import { asSiphonError, sendError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { sitePath } from '../site-path.js';
import { currentSessionHash, sessionCookie, signedIn, visitorOf } from '../web-session.js';

type Form = Record<string, string | string[] | undefined>;
/** A form field given once (a repeated one counts as its first), as text. */
const field = (form: unknown, name: string): string => {
  const value = (form as Form | undefined)?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

/** The span of the account page's download charts, as the scraper page's. */
const chartDays = 90;
const maxEmailChars = 254;
const isEmail = (text: string) => text.length <= maxEmailChars && /^[^\s@]+@[^\s@]+$/.test(text);

const notices: Record<string, string> = { 'key-revoked': 'The key was revoked: it is refused from now on.' };

/**
 * Accounts on the web: sign up, log in and out, and `/account` (keys, scrapers, own downloads,
 * password). Every POST carries this browser's CSRF token (checked before the handler runs); a
 * refusal is a page with the error's status and its code in Siphon-Error-Code. Passwords are read
 * from form bodies only, which are never logged.
 */
export function accountRoutes(app: FastifyInstance, deps: { config: Config; store: Store; catalog: Catalog }): void {
  const { config, store, catalog } = deps;
  const throttle = new LoginThrottle({
    perAccount: config.loginFailures,
    perAddress: config.loginFailuresPerAddress,
    signupsPerAddress: config.signupsPerAddress,
    windowMs: config.loginWindowMs,
  });
  const csrf = { preHandler: app.csrfProtection };
  /** Where a sign-in sends the visitor on: the form's `next` when it is a path of this site (only then kept in the form). */
  const nextPath = (request: FastifyRequest, form: unknown) => sitePath(field(form, 'next'), publicOrigin(request, config));

  /** Starts a session for `account`, under a new id (an id a visitor had before signing in is never kept). */
  async function signIn(request: FastifyRequest, account: Account): Promise<void> {
    await request.session.regenerate();
    request.session.accountId = account.id;
    request.session.accountName = account.name;
    request.session.cookie.expires = new Date(Date.now() + config.sessionLifetimeMs);
  }

  function signupRefused(request: FastifyRequest, reply: FastifyReply, err: unknown) {
    const error = asSiphonError(err, reply);
    sendPage(
      reply,
      error.status,
      signupPage({
        csrfToken: reply.generateCsrf(),
        name: field(request.body, 'name'),
        email: field(request.body, 'email'),
        error: error.message,
        minPasswordChars,
        maxPasswordChars,
      }),
      error,
    );
  }

  const closedPage = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(
      reply,
      403,
      messagePage('Sign-ups are closed', errors.signupClosed().message, visitorOf(request, reply)),
      errors.signupClosed(),
    );

  app.get('/signup', async (request, reply) => {
    if (config.signup === 'closed') return closedPage(request, reply);
    if (signedIn(request)) return reply.redirect('/account', 303);
    sendPage(reply, 200, signupPage({ csrfToken: reply.generateCsrf(), minPasswordChars, maxPasswordChars }));
  });

  app.post('/signup', csrf, async (request, reply) => {
    if (config.signup === 'closed') return closedPage(request, reply);
    const [name, password, email] = [
      field(request.body, 'name').trim(),
      field(request.body, 'password'),
      field(request.body, 'email').trim(),
    ];
    try {
      const wait = throttle.signupWaitSeconds(request.ip);
      if (wait > 0) {
        request.log.info('sign-up throttled');
        throw errors.signupThrottled(wait);
      }
      if (!isAccountName(name)) throw errors.nameInvalid('account', name);
      if (!isAcceptablePassword(password)) throw errors.passwordInvalid(minPasswordChars, maxPasswordChars);
      if (password !== field(request.body, 'password2')) throw errors.passwordsDiffer();
      if (email !== '' && !isEmail(email)) throw errors.emailInvalid();
      // Counted once it costs a hash, whether the name then turns out to be taken or not.
      throttle.signedUp(request.ip);
      const account = await store.createAccount(name, { passwordHash: await hashPassword(password), email: email || undefined });
      if (!account) throw errors.accountExists(name);
      request.log.info({ account: account.name }, 'account signed up');
      await signIn(request, account);
      return reply.redirect('/account', 303);
    } catch (err) {
      signupRefused(request, reply, err);
    }
  });

  app.get<{ Querystring: Form }>('/login', async (request, reply) => {
    if (signedIn(request)) return reply.redirect('/account', 303);
    sendPage(reply, 200, loginPage({ csrfToken: reply.generateCsrf(), next: nextPath(request, request.query) }));
  });

  app.post('/login', csrf, async (request, reply) => {
    const [name, password, next] = [field(request.body, 'name').trim(), field(request.body, 'password'), nextPath(request, request.body)];
    const refuse = (error: SiphonError) =>
      sendPage(reply, error.status, loginPage({ csrfToken: reply.generateCsrf(), name, next, error: error.message }), error);
    const wait = throttle.waitSeconds(name, request.ip);
    if (wait > 0) {
      request.log.info({ account: name.slice(0, 40) }, 'sign-in throttled');
      return refuse(errors.signInThrottled(wait));
    }
    const login = isAccountName(name) ? await store.findLogin(name) : undefined;
    // An unknown name costs a hash too, so timing does not tell which names exist.
    const right = (await verifyPassword(password, login?.passwordHash ?? (await decoyHash()))) && typeof login?.passwordHash === 'string';
    if (!login || !right) {
      throttle.failed(name, request.ip);
      request.log.info({ account: name.slice(0, 40) }, 'sign-in failed');
      return refuse(errors.signInFailed());
    }
    throttle.succeeded(name);
    await signIn(request, login.account);
    return reply.redirect(next ?? '/account', 303);
  });

  app.post('/logout', csrf, async (request, reply) => {
    if (request.session.sessionId) await request.session.destroy();
    void reply.clearCookie(sessionCookie, { path: '/' });
    return reply.redirect('/', 303);
  });

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
