import type { AccountScraperDownloads, KeyListing, ScraperListing } from '../store/types.js';
import { downloadsChart } from './downloads-chart.js';
import { csrfField, formError } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { count, plural, scraperPath, timeElement } from './text.js';

export interface AccountPageModel {
  visitor: Visitor;
  keys: KeyListing[];
  /** A key made by this request: shown this once, as only its hash is kept. */
  newKey?: string;
  scrapers: ScraperListing[];
  downloads: AccountScraperDownloads[];
  chartDays: number;
  /** What the last form did ("Password changed."), or why it was refused. */
  notice?: string;
  error?: { form: 'key' | 'password'; message: string };
}

function newKeySection(key: string): SafeHtml {
  return html`<div class="new-key" role="status">
<p><strong>Your new key.</strong> Copy it now: it is shown this once, and cannot be shown again (only its hash is kept).</p>
<p><code id="new-key">${key}</code></p>
<p class="buttons"><button type="button" id="copy-key" data-copy="#new-key" hidden>Copy</button></p>
</div>`;
}

function keysTable(keys: KeyListing[], csrfToken: string): SafeHtml {
  if (keys.length === 0) return html`<p class="empty">No keys yet.</p>`;
  return html`<div class="table-scroll"><table class="keys">
<thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Read-only</th><th scope="col">Origins</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>
${keys.map(
  (k) => html`<tr data-key-id="${k.id}">
<td><code>${k.prefix ? `${k.prefix}…` : '(made before prefixes were kept)'}</code></td>
<td>${k.label || html`<span class="muted">none</span>`}</td>
<td>${k.readOnly ? 'yes' : 'no'}</td>
<td>${k.origins ? k.origins.join(', ') : 'any'}</td>
<td>${timeElement(k.createdAt)}</td>
<td>${k.lastUsedAt ? timeElement(k.lastUsedAt) : 'never'}</td>
<td>${k.revokedAt ? html`revoked ${timeElement(k.revokedAt)}` : html`<form method="post" action="/account/keys/revoke">${csrfField(csrfToken)}<input type="hidden" name="id" value="${k.id}"><button type="submit" class="secondary">Revoke</button></form>`}</td>
</tr>
`,
)}</tbody></table></div>`;
}

function createKeyForm(model: AccountPageModel): SafeHtml {
  return html`<form method="post" action="/account/keys" class="create-key">
${formError(model.error?.form === 'key' ? model.error.message : undefined, 'key-error')}
${csrfField(model.visitor.csrfToken)}
<div class="field-row">
<div class="field"><label for="key-label">Label <span class="hint">(what it is for; up to 100 characters)</span></label>
<input id="key-label" name="label" maxlength="100"></div>
<div class="field"><label for="key-origins">Web origins <span class="hint">(optional, one a line or separated by spaces: only pages of these may use it)</span></label>
<textarea id="key-origins" name="origins" rows="2" spellcheck="false" placeholder="https://maps.example.org"></textarea></div>
</div>
<p class="checkbox"><input type="checkbox" id="key-read-only" name="readOnly" value="1"> <label for="key-read-only">Read-only: it can query, never publish (a key with origins always is)</label></p>
<p><button type="submit">Create a key</button></p>
</form>`;
}

function downloadsSection(model: AccountPageModel): SafeHtml {
  if (model.downloads.length === 0) return html`<p class="empty">You have made no downloads in the last ${model.chartDays} days.</p>`;
  return html`${model.downloads.map(
    (d) => html`<section class="account-downloads" data-scraper="${d.owner}/${d.name}">
<h3>${d.removed ? `${d.owner}/${d.name} (removed)` : html`<a href="${scraperPath(d.owner, d.name)}">${d.owner}/${d.name}</a>`}: <span data-downloads="${d.total}">${plural(d.total, 'download')}</span></h3>
${downloadsChart(d.perDay)}
</section>`,
  )}`;
}

function scrapersSection(scrapers: ScraperListing[]): SafeHtml {
  if (scrapers.length === 0)
    return html`<p class="empty">You have no scrapers. The operator adds them (<code>siphon scraper add</code>); you can then publish their data from here or with PUT.</p>`;
  return html`<ul class="scrapers">${scrapers.map(
    (l) => html`<li><h3><a href="${scraperPath(l.scraper.owner.name, l.scraper.name)}">${l.scraper.name}</a>
${l.scraper.isPrivate ? html`<span class="private-badge">private</span>` : ''}</h3>
<p class="meta"><span>${plural(l.downloads, 'download')}</span><span>data version ${count(l.scraper.data.version)}</span></p></li>`,
  )}</ul>`;
}

/** `/account`: the signed-in account's keys, scrapers and own downloads, and its password. */
export function accountPage(model: AccountPageModel): SafeHtml {
  const { visitor } = model;
  return layout({
    title: 'Your account',
    visitor,
    scripts: model.newKey ? ['views/client/account.js'] : [],
    body: html`<h1>${visitor.name}</h1>
${model.notice ? html`<p class="notice" role="status">${model.notice}</p>` : ''}
${model.newKey ? newKeySection(model.newKey) : ''}
<section aria-labelledby="keys"><h2 id="keys">API keys</h2>
<p>Send a key with every API call, in the <code>X-API-Key</code> header (see the <a href="/docs#keys">API documentation</a>). Anyone with a key can query as you, and their calls show as your downloads: revoke a key you no longer trust.</p>
${keysTable(model.keys, visitor.csrfToken)}
<h3>Create a key</h3>
${createKeyForm(model)}
</section>
<section aria-labelledby="scrapers"><h2 id="scrapers">Your scrapers</h2>
${scrapersSection(model.scrapers)}
</section>
<section aria-labelledby="downloads"><h2 id="downloads">Your downloads</h2>
<p class="hint">The calls your keys made, per scraper and per day (UTC), over the last ${model.chartDays} days.</p>
${downloadsSection(model)}
</section>
<section aria-labelledby="password"><h2 id="password">Change your password</h2>
<form method="post" action="/account/password" class="narrow">
${formError(model.error?.form === 'password' ? model.error.message : undefined, 'password-error')}
${csrfField(visitor.csrfToken)}
<div class="field"><label for="current-password">Current password</label><input id="current-password" name="current" type="password" required autocomplete="current-password"></div>
<div class="field"><label for="new-password">New password</label><input id="new-password" name="password" type="password" required autocomplete="new-password"></div>
<div class="field"><label for="new-password2">New password again</label><input id="new-password2" name="password2" type="password" required autocomplete="new-password"></div>
<p><button type="submit">Change the password</button> <span class="hint">Your other sessions are logged out.</span></p>
</form>
</section>`,
  });
}
