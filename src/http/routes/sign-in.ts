import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  decoyHash,
  hashPassword,
  isAcceptablePassword,
  maxPasswordChars,
  minPasswordChars,
  verifyPassword,
} from '../../accounts/passwords.js';
import type { LoginThrottle } from '../../accounts/login-throttle.js';
import type { Config } from '../../config.js';
import { errors, SiphonError } from '../../errors.js';
import { isAccountName } from '../../utils/names.js';
import type { Account, Store } from '../../store/types.js';
import { messagePage } from '../../views/message-page.js';
import { loginPage, signupPage } from '../../views/sign-in-pages.js';
import { publicOrigin } from '../public-origin.js';
import { asSiphonError } from '../send-error.js';
import { sendPage } from '../send-page.js';
import { sitePath } from '../site-path.js';
import { sessionCookie, signedIn, visitorOf } from '../web-session.js';
import { field, type Form } from './form-field.js';

const maxEmailChars = 254;
const isEmail = (text: string) => text.length <= maxEmailChars && /^[^\s@]+@[^\s@]+$/.test(text);

/**
 * Signing up, in and out on the web: `/signup`, `/login`, `/logout`. Each POST carries this
 * browser's CSRF token (checked before the handler runs); a refusal is the form again, with the
 * error's status and its code in Siphon-Error-Code. Sign-ups and failed sign-ins are throttled per
 * name and address (`throttle`, shared with the password form).
 */
export function signInRoutes(app: FastifyInstance, deps: { config: Config; store: Store; throttle: LoginThrottle }): void {
  const { config, store, throttle } = deps;
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
        next: nextPath(request, request.body),
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

  app.get<{ Querystring: Form }>('/signup', async (request, reply) => {
    if (config.signup === 'closed') return closedPage(request, reply);
    const next = nextPath(request, request.query);
    if (signedIn(request)) return reply.redirect(next ?? '/account', 303);
    sendPage(reply, 200, signupPage({ csrfToken: reply.generateCsrf(), next, minPasswordChars, maxPasswordChars }));
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
      return reply.redirect(nextPath(request, request.body) ?? '/account', 303);
    } catch (err) {
      signupRefused(request, reply, err);
    }
  });

  app.get<{ Querystring: Form }>('/login', async (request, reply) => {
    const next = nextPath(request, request.query);
    if (signedIn(request)) return reply.redirect(next ?? '/account', 303);
    sendPage(reply, 200, loginPage({ csrfToken: reply.generateCsrf(), next }));
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
}
