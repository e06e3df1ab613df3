import { errors } from '../errors.js';
import type { Scraper } from '../store/types.js';
import { atomFields, examples, guessAtomMapping, requestUrl, type ApiRequest } from '../shared/api-request.js';
import { html, type SafeHtml } from './html.js';
import { saveQueryForm } from './saved-query-forms.js';
import { humanSize, tableRows } from './text.js';

export interface BuilderFormat {
  name: string;
  kind: 'rows' | 'file';
}

/** What the builder shows first: the defaults, or what a visitor without JavaScript submitted. */
export interface BuilderState {
  table: string;
  sql: string;
  format: string;
  callback: string;
}

export interface BuilderModel {
  base: string;
  scraper: Scraper;
  formats: BuilderFormat[];
  state: BuilderState;
  /** Form fields to keep when the form is submitted without JavaScript (the docs page's scraper). */
  hidden?: Record<string, string>;
  /** The page's URL gave a callback the API would refuse: it was left out, and the builder says so. */
  callbackRefused?: boolean;
  /** A signed-in visitor's CSRF token: the builder offers to fill in a new read-only key of theirs. */
  keyToken?: string;
  /** The scraper's owner's CSRF token: the builder offers to save its query (saved-query-forms.ts). */
  saveToken?: string;
}

const formatHints: Record<string, string> = {
  json: 'an array of row objects',
  csv: 'a header row, then one line per row',
  ndjson: 'one JSON object per line',
  atom: 'a feed: one entry per row',
  sqlite: 'the whole database file',
};

function atomMapping(model: BuilderModel): SafeHtml {
  const table = model.scraper.data.tables.find((t) => t.name === model.state.table);
  const guess = guessAtomMapping(table?.columns.map((c) => c.name) ?? []);
  return html`<fieldset class="atom-mapping" data-for-format="atom"${model.state.format === 'atom' ? '' : html` hidden`}>
<legend>Columns of the Atom feed</legend>
<p>A feed is built from four columns named <code>title</code>, <code>content</code>, <code>link</code> and
<code>date</code>. Give an SQL expression for each: a column such as <code>"name"</code>, or several joined
with <code>||</code>, such as <code>"street" || ', ' || "suburb"</code>. The SQL above is rewritten as you type.
<code>link</code> becomes the entry's link when it is an absolute http(s) URL; <code>date</code> is read as
<code>YYYY-MM-DD</code> (with an optional time and offset) or Unix seconds, else the entry takes the date the
data last changed. Title and content are shown as text: markup in them is never run.</p>
<div class="atom-fields">
${atomFields.map(
  (f) => html`<div class="field"><label for="qb-atom-${f}">${f}</label>
<input id="qb-atom-${f}" data-atom-field="${f}" value="${guess[f]}" list="qb-columns" spellcheck="false" autocomplete="off"></div>
`,
)}</div>
<datalist id="qb-columns"></datalist>
</fieldset>`;
}

function exampleList(req: ApiRequest): SafeHtml {
  return html`${examples(req).map(
    (e, i) => html`<details data-example="${e.id}"${i === 0 ? html` open` : ''}>
<summary>${e.label}</summary>
<pre><code data-example="${e.id}">${e.code}</code></pre>
</details>
`,
  )}`;
}

/**
 * The "Use the API" form: choose a table, write SQL, pick a format, and read the request URL and
 * ready-to-run examples. Without JavaScript the form submits to the page itself and the server
 * renders the same URL and examples; with it (client/query-builder.ts) they follow every keystroke,
 * and a pasted key can run the query. The key field has no name, so the form never submits it.
 */
export function queryBuilder(model: BuilderModel): SafeHtml {
  const { scraper, state } = model;
  const fullName = `${scraper.owner.name}/${scraper.name}`;
  const kind = model.formats.find((f) => f.name === state.format)?.kind ?? 'rows';
  const req: ApiRequest = { base: model.base, scraper: fullName, format: state.format, kind, sql: state.sql, callback: state.callback };
  const tables = JSON.stringify(scraper.data.tables.map((t) => ({ name: t.name, columns: t.columns.map((c) => ({ name: c.name })) })));
  return html`<div class="builder" data-query-builder data-base="${model.base}" data-scraper="${fullName}" data-tables="${tables}">
<form method="get" action="#api" class="builder-form">
${model.callbackRefused ? html`<p class="error" id="qb-callback-refused" role="alert">The callback in this page's address was left out. ${errors.callbackInvalid().message}</p>\n` : ''}${Object.entries(model.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}
<div class="field">
  <label for="qb-table">Table</label>
  <select id="qb-table" name="table">
  ${scraper.data.tables.map((t) => html`<option value="${t.name}"${t.name === state.table ? html` selected` : ''}>${t.name} (${tableRows(t)})</option>`)}
  </select>
</div>
<div class="field">
  <label for="qb-sql">SQL query <span class="hint">(one SELECT, WITH or VALUES statement)</span></label>
  <textarea id="qb-sql" name="sql" rows="3" spellcheck="false" autocomplete="off">${state.sql}</textarea>
  <p class="hint" data-for-kind="file"${kind === 'file' ? '' : html` hidden`}>The sqlite format sends the whole database: the query is not needed.</p>
</div>
<div class="field-row">
  <div class="field">
    <label for="qb-format">Format</label>
    <select id="qb-format" name="format">
    ${model.formats.map((f) => html`<option value="${f.name}" data-kind="${f.kind}"${f.name === state.format ? html` selected` : ''}>${f.name}${formatHints[f.name] ? ` — ${formatHints[f.name]}` : ''}</option>`)}
    </select>
  </div>
  <div class="field" data-for-format="json"${state.format === 'json' ? '' : html` hidden`}>
    <label for="qb-callback">Callback <span class="hint">(optional: answer as JSONP)</span></label>
    <input id="qb-callback" name="callback" value="${state.callback}" spellcheck="false" autocomplete="off" maxlength="128">
  </div>
</div>
${atomMapping(model)}
<p data-without-js><button type="submit">Update the URL and examples</button></p>
<div class="run" data-needs-js hidden>
  <div class="field">
    <label for="qb-key">Your API key</label>
    <input id="qb-key" type="password" autocomplete="off" spellcheck="false" placeholder="sph_…">
    <p class="hint">Stays in this page: it is sent only to the API, in the X-API-Key header, when you press Run, and is never stored.</p>
    ${
      model.keyToken
        ? html`<p><button type="button" id="qb-new-key" class="secondary" data-csrf="${model.keyToken}">Fill in a new read-only key of mine</button> <span class="hint">(made now, listed on <a href="/account">your account page</a>, where you can revoke it)</span></p>`
        : html`<p class="hint">No key yet? <a href="/signup">Sign up</a> or <a href="/login">log in</a> to make one.</p>`
    }
  </div>
  <p class="buttons"><button type="button" id="qb-run">Run</button>
  <button type="button" id="qb-download" class="secondary">Download the whole database (${humanSize(scraper.data.sizeBytes)})</button></p>
</div>
</form>
${model.saveToken ? saveQueryForm(scraper, model.saveToken, state.sql) : ''}
<p class="request-url"><span>Request URL</span> <code id="qb-url">${requestUrl(req)}</code></p>
<div id="qb-result" class="result" aria-live="polite"></div>
<h3>Examples</h3>
<p class="hint">Replace <code>YOUR_API_KEY</code> with your key, or paste it above to have it filled in.</p>
<div id="qb-examples" class="examples">
${exampleList(req)}</div>
</div>`;
}
