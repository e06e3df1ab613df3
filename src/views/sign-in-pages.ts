import { html, type SafeHtml } from './html.js';
import { csrfField, formError } from './forms.js';
import { layout } from './layout.js';
import { isDownloadPath } from './table-paths.js';

export interface SignInForm {
  csrfToken: string;
  /** What was typed, kept when the form is refused (never the password). */
  name?: string;
  email?: string;
  error?: string;
  /** Where to go once signed in (a path of this site). */
  next?: string;
}

/** Said above the form when it leads to a download: the file comes once the visitor is in, and they stay on this page. */
const downloadLead = (next: string | undefined, action: string) =>
  next && isDownloadPath(next)
    ? html`<p class="lead">${action} to download the file you asked for: it comes as soon as you are in, and downloads made from the pages count as your account's.</p>`
    : '';

/** Where the visitor goes on once signed in or up, kept through the form. */
const nextField = (next: string | undefined) => (next ? html`<input type="hidden" name="next" value="${next}">` : '');

/** The other form's address, keeping where to go on: a visitor sent to log in may need to sign up first. */
const withNext = (path: string, next: string | undefined) => (next ? `${path}?next=${encodeURIComponent(next)}` : path);

/** `/signup`: an account name under the account-name rules, a password twice, an optional email. */
export function signupPage(form: SignInForm & { minPasswordChars: number; maxPasswordChars: number }): SafeHtml {
  return layout({
    title: 'Sign up',
    body: html`<div class="narrow">
<h1>Sign up</h1>
${downloadLead(form.next, 'Sign up')}
<p class="lead">An account gives you API keys to query every public scraper, and a page of your own downloads.</p>
${formError(form.error, 'signup-error')}
<form method="post" action="/signup">
${csrfField(form.csrfToken)}
${nextField(form.next)}
<div class="field"><label for="signup-name">Account name <span class="hint">(letters, digits, _ and -, up to 39; shown with your downloads)</span></label>
<input id="signup-name" name="name" value="${form.name ?? ''}" required maxlength="39" pattern="[A-Za-z0-9][A-Za-z0-9_\\-]*" autocomplete="username" spellcheck="false"></div>
<div class="field"><label for="signup-password">Password <span class="hint">(${form.minPasswordChars} to ${form.maxPasswordChars} characters)</span></label>
<input id="signup-password" name="password" type="password" required minlength="${form.minPasswordChars}" maxlength="${form.maxPasswordChars}" autocomplete="new-password"></div>
<div class="field"><label for="signup-password2">Password again</label>
<input id="signup-password2" name="password2" type="password" required autocomplete="new-password"></div>
<div class="field"><label for="signup-email">Email <span class="hint">(optional; this server sends no email)</span></label>
<input id="signup-email" name="email" type="email" value="${form.email ?? ''}" maxlength="254" autocomplete="email"></div>
<p><button type="submit">Create the account</button></p>
</form>
<p>Already have an account? <a href="${withNext('/login', form.next)}">Log in</a>.</p>
</div>`,
  });
}

/** `/login`. */
export function loginPage(form: SignInForm): SafeHtml {
  return layout({
    title: 'Log in',
    body: html`<div class="narrow">
<h1>Log in</h1>
${downloadLead(form.next, 'Log in')}
${formError(form.error, 'login-error')}
<form method="post" action="/login">
${csrfField(form.csrfToken)}
${nextField(form.next)}
<div class="field"><label for="login-name">Account name</label>
<input id="login-name" name="name" value="${form.name ?? ''}" required maxlength="39" autocomplete="username" spellcheck="false"></div>
<div class="field"><label for="login-password">Password</label>
<input id="login-password" name="password" type="password" required autocomplete="current-password"></div>
<p><button type="submit">Log in</button></p>
</form>
<p>No account yet? <a href="${withNext('/signup', form.next)}">Sign up</a>. Forgot your password? Ask this server's operator to set a new one (<code>siphon user passwd NAME</code>).</p>
</div>`,
  });
}
