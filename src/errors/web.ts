import { make } from './siphon-error.js';

/**
 * Accounts on the web (/signup, /login, /account): answered as pages, with the code in
 * Siphon-Error-Code.
 */
export const webErrors = {
  signInFailed: () => make('SIPHON_ERR_SIGN_IN_FAILED', 401, 'The account name or the password is wrong.'),
  signInRequired: () => make('SIPHON_ERR_SIGN_IN_REQUIRED', 401, 'Sign in first: this needs a signed-in account.'),
  signInThrottled: (retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_SIGN_IN_THROTTLED',
      429,
      `Too many wrong passwords for this account or from this address. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),
  signupThrottled: (retryAfterSeconds: number) =>
    make(
      'SIPHON_ERR_SIGNUP_THROTTLED',
      429,
      `Too many sign-ups from this address. Try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    ),
  signupClosed: () =>
    make(
      'SIPHON_ERR_SIGNUP_CLOSED',
      403,
      'This server does not take sign-ups: accounts and keys come from its operator (siphon user add).',
    ),
  passwordInvalid: (minChars: number, maxChars: number) =>
    make('SIPHON_ERR_PASSWORD_INVALID', 400, `A password is ${minChars} to ${maxChars} characters long.`),
  passwordsDiffer: () => make('SIPHON_ERR_PASSWORDS_DIFFER', 400, 'The two passwords given are not the same.'),
  emailInvalid: () => make('SIPHON_ERR_EMAIL_INVALID', 400, 'The email address is not valid: one @, no spaces, at most 254 characters.'),
  /** The form's token is missing or not this browser's: a page of another site sent it, or it was too old. */
  csrfInvalid: () =>
    make(
      'SIPHON_ERR_CSRF',
      403,
      "This form was not sent from this site's own page, or the page is too old. Reload the page and send it again; nothing was changed.",
    ),
  /** A download address of the pages, asked for by another site's page: it would spend the visitor's downloads. */
  downloadCrossSite: () =>
    make(
      'SIPHON_ERR_DOWNLOAD_CROSS_SITE',
      403,
      "A download from this site's pages runs with your account only when you ask for it on this site: open the scraper's page here and press its download button.",
    ),
  formInvalid: (why: string) => make('SIPHON_ERR_FORM_INVALID', 400, why),
} as const;
