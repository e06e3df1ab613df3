import type { webErrors } from '../../errors/web.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/web.ts. */
export const webErrorDocs: ErrorDocs<typeof webErrors> = {
  signInFailed: {
    example: [],
    area: 'web',
    when: 'logging in on the web (`POST /login`, or the current password on `/account`) with an unknown account, a wrong password, or an account that has none',
  },
  signInRequired: {
    example: [],
    area: 'web',
    when: 'the query builder\'s "Fill in a new read-only key of mine" button (`POST /account/builder-key`) without being signed in (`/account` and its forms send to `/login` instead)',
  },
  signInThrottled: {
    example: [900],
    area: 'web',
    when: 'too many wrong passwords for the account (`--login-failures`) or from the address (`--login-failures-per-address`) within `--login-window`, at `/login` or for the current password on `/account`; `Retry-After` says when to try again',
  },
  signupThrottled: {
    example: [900],
    area: 'web',
    when: 'more sign-ups from the address than `--signups-per-address` within `--login-window` (each one whose fields were accepted counts, whether its name was free or not); `Retry-After` says when to try again',
  },
  signupClosed: { example: [], area: 'web', when: '`/signup` on a server started with `--signup closed`' },
  passwordInvalid: {
    example: [10, 200],
    area: 'web',
    when: 'a password shorter than 10 or longer than 200 characters (sign-up, `/account`, `user passwd`)',
  },
  passwordsDiffer: { example: [], area: 'web', when: "a form's password and its repetition differ (sign-up, `/account`)" },
  emailInvalid: {
    example: [],
    area: 'web',
    when: "a sign-up's optional email is not an address (one `@`, no spaces, at most 254 characters)",
  },
  csrfInvalid: {
    example: [],
    area: 'web',
    when: "a form of the site that changes something (sign-up, log in, log out, keys, password, a scraper's settings or data) sent without this browser's token: from another site, or from a page older than the browser's token cookie; nothing was changed",
  },
  downloadCrossSite: {
    example: [],
    area: 'web',
    when: "a download button's address (`/{owner}/{scraper}/download…`) opened by another site's page (`Sec-Fetch-Site` other than `same-origin` or `none`), which would spend the signed-in visitor's downloads",
  },
  formInvalid: {
    example: ['Choose a database file to publish.'],
    area: 'web',
    when: "a field of one of the site's forms is missing or not allowed (a description over 1,000 characters, a visibility other than `public` or `private`, no file chosen to publish, a key to revoke that is not the account's, any field holding the character U+0000)",
  },
};
