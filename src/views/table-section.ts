import type { Cell, TablePreview } from '../previews/table-previews.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { tableDownloadButtons } from './download-buttons.js';
import { html, type SafeHtml } from './html.js';
import { tablePath } from './table-paths.js';
import { count, plural, tableRows } from './text.js';

/** Longer texts are cut in the preview; the API returns them whole. */
const maxCellChars = 200;

function cell(c: Cell): SafeHtml {
  if (c.kind === 'null') return html`<td class="null">null</td>`;
  const text = c.text.length > maxCellChars ? `${c.text.slice(0, maxCellChars)}…` : c.text;
  return html`<td${c.kind === 'number' ? html` class="num"` : ''}>${text}</td>`;
}

function previewTable(table: TableInfo, preview: TablePreview): SafeHtml {
  if (!preview.ok) return html`<p class="error">The preview could not be shown: ${preview.error}</p>`;
  if (preview.rows.length === 0) return html`<p class="empty">This table has no rows.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="First rows of ${table.name}">
<table class="data">
<caption>The first ${plural(preview.rows.length, 'row')} of ${table.rowsCapped ? 'more than ' : ''}${count(table.rows)}</caption>
<thead><tr>${table.columns.map((c) => html`<th scope="col">${c.name}</th>`)}</tr></thead>
<tbody>
${preview.rows.map((row) => html`<tr>${row.map(cell)}</tr>\n`)}</tbody>
</table>
</div>`;
}

/** One table of a scraper: its columns and their types, its row count, its first rows, a link to its page and its download buttons. */
export function tableSection(scraper: Scraper, table: TableInfo, preview: TablePreview, index: number): SafeHtml {
  const id = `table-${index + 1}`;
  const page = tablePath(scraper.owner.name, scraper.name, table.name);
  return html`<section class="table" aria-labelledby="${id}">
<h3 id="${id}"><a href="${page}">${table.name}</a>${table.kind === 'view' ? html` <span class="muted">(view)</span>` : ''}</h3>
<p class="meta"><span>${tableRows(table)}</span> <span>${plural(table.columns.length, 'column')}</span>
<a href="${page}">Browse: sort, filter, facets</a>
<a href="?table=${encodeURIComponent(table.name)}#api">Query this table</a></p>
${tableDownloadButtons(scraper, table, undefined, 'Download the table:')}
<details class="columns">
<summary>Columns and types</summary>
<table>
<thead><tr><th scope="col">Column</th><th scope="col">Type</th></tr></thead>
<tbody>
${table.columns.map((c) => html`<tr><td><code>${c.name}</code></td><td>${c.type || 'any'}</td></tr>\n`)}</tbody>
</table>
</details>
${previewTable(table, preview)}
</section>`;
}
