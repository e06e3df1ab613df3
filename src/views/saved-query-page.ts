import type { QueryRows } from '../browse/query-rows.js';
import { rowFormatNames } from '../formats/index.js';
import type { SavedQuery, Scraper } from '../store/types.js';
import { tableCell } from './cell-html.js';
import { downloadsHint, savedQueryDownloadButtons } from './download-buttons.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { withParams } from './table-paths.js';
import { ownerPath, plural, savedQueryPath, scraperPath } from './text.js';

/** What the page shows below the form: the first rows, the parameters still to fill in, or why the query failed. */
export type SavedQueryOutcome =
  { kind: 'rows'; rows: QueryRows } | { kind: 'missing'; names: string[] } | { kind: 'refused'; code: string; message: string };

export interface SavedQueryPageModel {
  scraper: Scraper;
  query: SavedQuery;
  /** Its `:named` parameters, in the order its SQL first uses them. */
  params: string[];
  /** The values the address gives them, by bare name. */
  values: Record<string, string>;
  /** The data version the address names (`version=`), kept in the form and the data URLs. */
  version?: number;
  outcome: SavedQueryOutcome;
  maxRows: number;
  maxCellChars: number;
  visitor?: Visitor;
  /** The visitor owns the scraper: a link to the query's edit page (saved-query-forms.ts). */
  own: boolean;
}

/** The address's own parameters, for the data URLs and the form: the values, then `version`. */
function addressParams({ params, values, version }: SavedQueryPageModel): [string, string][] {
  const given: [string, string][] = params.flatMap((name) =>
    values[name] === undefined ? [] : [[name, values[name]] as [string, string]],
  );
  return version === undefined ? given : [...given, ['version', String(version)]];
}

/** One labelled text field a parameter, kept filled from the address; a GET form, so its result has an address to share. */
function parameterForm(model: SavedQueryPageModel, path: string): SafeHtml | '' {
  const { params, values, version } = model;
  if (params.length === 0) return '';
  return html`<form class="query-params" method="get" action="${path}" aria-label="Parameters">
<div class="field-row">${params.map(
    (name, i) =>
      html`<div class="field"><label for="param-${i + 1}"><code>:${name}</code></label> <input id="param-${i + 1}" type="text" name="${name}" value="${values[name] ?? ''}"></div>`,
  )}</div>
${version === undefined ? '' : html`<input type="hidden" name="version" value="${version}">`}
<p><button type="submit">Run</button></p>
</form>`;
}

function rowsTable(model: SavedQueryPageModel, { columns, rows, more }: QueryRows): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">The query returns no rows.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Rows of ${model.query.title}">
<table class="data browse">
<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>
${rows.map((row) => html`<tr>${row.map((c) => tableCell(c, model.maxCellChars, undefined))}</tr>\n`)}</tbody>
</table>
</div>
<p class="hint">${
    more ? `The first ${plural(model.maxRows, 'row')} are shown; the data below has every row.` : `All ${plural(rows.length, 'row')} shown.`
  } Text longer than ${plural(model.maxCellChars, 'character')} is cut here.</p>`;
}

function outcomeHtml(model: SavedQueryPageModel): SafeHtml {
  const { outcome } = model;
  if (outcome.kind === 'rows') return rowsTable(model, outcome.rows);
  if (outcome.kind === 'refused') return html`<p class="error" role="alert">${outcome.message} <code>${outcome.code}</code></p>`;
  return html`<p class="hint missing-params">Fill in ${outcome.names.map((name, i) => html`${i === 0 ? '' : ', '}<code>:${name}</code>`)} and press Run to see the rows.</p>`;
}

/** `/{owner}/{scraper}/queries/{name}`: a saved query, its parameters as a form, its first rows, its data URLs. */
export function savedQueryPage(model: SavedQueryPageModel): SafeHtml {
  const { scraper, query } = model;
  const owner = scraper.owner.name;
  const path = savedQueryPath(owner, scraper.name, query.name);
  const data = (format: string) => withParams(savedQueryPath(owner, scraper.name, query.name, `.${format}`), addressParams(model));
  return layout({
    title: `${query.title} · ${owner}/${scraper.name}`,
    visitor: model.visitor,
    body: html`<p class="crumbs"><a href="${ownerPath(owner)}">${owner}</a> / <a href="${scraperPath(owner, scraper.name)}">${scraper.name}</a> / <a href="${scraperPath(owner, scraper.name)}#queries">saved query</a></p>
<h1 class="query-title">${query.title}${query.isPrivate ? html` <span class="private-badge">private</span>` : ''}</h1>
${query.description ? html`<p class="lead description saved-description">${query.description}</p>` : ''}
${model.own ? html`<p class="owner-links"><a href="${path}/edit">Edit this query</a> <span class="hint">(only you see this link)</span></p>` : ''}
${model.version === undefined ? '' : html`<p class="notice">Data version ${model.version}, as this address names it. <a href="${withParams(path, addressParams({ ...model, version: undefined }))}">The same query on the current data</a></p>`}
<details class="query-sql" open><summary>SQL</summary>
<pre><code>${query.sql}</code></pre>
</details>
${parameterForm(model, path)}
${outcomeHtml(model)}
${
  model.outcome.kind === 'missing'
    ? ''
    : html`${savedQueryDownloadButtons(scraper, query.name, addressParams(model))}
${downloadsHint(model.visitor !== undefined)}`
}
<p class="twins">Every row, for programs: ${rowFormatNames.map((f, i) => html`${i === 0 ? '' : ' · '}<a href="${data(f)}">${f.toUpperCase()}</a>`)}. API calls, with <a href="/docs#keys">a key</a>, counted as downloads (<a href="/docs#saved-queries">how</a>).</p>`,
  });
}
