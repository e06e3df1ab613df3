import type { BrowsePage, TableView } from '../browse/types.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { tableCell } from './cell-html.js';
import { tableDownloadButtons, downloadsHint } from './download-buttons.js';
import { facetList, type ViewHref } from './facet-list.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { opLabels, tableControls } from './table-controls.js';
import { atVersion, rowPath, tablePath, viewHref } from './table-paths.js';
import { count, ownerPath, plural, scraperPath, tableRows } from './text.js';
import { versionLine } from './version-links.js';
import { firstPage, plainView, sortedBy, withoutFilter, withoutSearch } from './view-links.js';

/** Operators whose value is not shown: it is not used. */
const valueless = new Set(['isnull', 'notnull', 'isblank', 'notblank']);

export interface TablePageModel {
  scraper: Scraper;
  table: TableInfo;
  view: TableView;
  page: BrowsePage;
  /** Text values longer than this are cut, with a link to the row page. */
  maxCellChars: number;
  visitor?: Visitor;
}

/** The model with the address of a changed view of its table, which every link is built from. */
type Linked = TablePageModel & { href: ViewHref };

/** The filters and search in force, each with a link that removes it. */
function activeFilters({ view, href }: Linked): SafeHtml | '' {
  if (view.filters.length === 0 && !view.search) return '';
  return html`<ul class="active-filters" aria-label="Filters in force">
${view.search ? html`<li>search “${view.search}” <a href="${href(withoutSearch(view))}" aria-label="Remove the search" title="Remove">×</a></li>` : ''}
${view.filters.map(
  (f, i) =>
    html`<li><code>${f.column}</code> ${opLabels[f.op]}${f.value === '' || valueless.has(f.op) ? '' : html` <q>${f.value}</q>`} <a href="${href(withoutFilter(view, i))}" aria-label="Remove the filter on ${f.column}" title="Remove">×</a></li>`,
)}
</ul>`;
}

function header(model: Linked, withRowLinks: boolean): SafeHtml {
  const { view, href, page } = model;
  return html`<thead><tr>${withRowLinks ? html`<th scope="col" class="rowid">rowid</th>` : ''}${page.columns.map((c) => {
    const key = view.sort.find((k) => k.column === c);
    const first = view.sort[0]?.column === c;
    const sort = first ? html` aria-sort="${key!.desc ? 'descending' : 'ascending'}"` : '';
    const arrow = key ? html` <span class="sort-mark" aria-hidden="true">${key.desc ? '▼' : '▲'}</span>` : '';
    return html`<th scope="col"${sort}><a href="${href(sortedBy(view, c))}" title="Sort by ${c}">${c}</a>${arrow}</th>`;
  })}</tr></thead>`;
}

function rowsTable(model: Linked): SafeHtml {
  const { scraper, table, page, maxCellChars } = model;
  const withRowLinks = page.rows.some((r) => r.rowid !== null);
  const rowHref = (rowid: string | null) =>
    rowid === null ? undefined : atVersion(rowPath(scraper.owner.name, scraper.name, table.name, rowid), model.view.version);
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Rows of ${table.name}">
<table class="data browse">
${header(model, withRowLinks)}
<tbody>
${page.rows.map((row) => {
  const href = rowHref(row.rowid);
  return html`<tr>${withRowLinks ? html`<td class="rowid">${href ? html`<a href="${href}">${row.rowid}</a>` : ''}</td>` : ''}${row.cells.map((c) => tableCell(c, maxCellChars, href))}</tr>\n`;
})}</tbody>
</table>
</div>`;
}

function pager({ view, page, href }: Linked): SafeHtml | '' {
  if (!page.next && !view.next) return '';
  return html`<nav class="pager" aria-label="Pages">
${view.next ? html`<a href="${href(firstPage(view))}">First page</a>` : ''}
${page.next ? html`<a rel="next" href="${href({ ...view, next: page.next })}">Next page →</a>` : html`<span class="hint">This is the last page.</span>`}
</nav>`;
}

function rowsOrNotice(model: Linked): SafeHtml {
  const { view, page, href, table } = model;
  if (page.timedOut) {
    return html`<div class="notice timed-out" role="status"><p><strong>This view took longer than the time limit for a page.</strong> Ask for a narrower view: add a filter or a search, sort by another column, or show fewer rows.</p>
<p><a href="${href({ ...firstPage(view), size: 10 })}">The same view, 10 rows per page</a> · <a href="${href(
      plainView(
        view,
        table.columns.map((c) => c.name),
      ),
    )}">The table unsorted and unfiltered</a></p></div>`;
  }
  if (page.rows.length === 0) {
    return html`<p class="empty">No rows match this view. <a href="${href(
      plainView(
        view,
        table.columns.map((c) => c.name),
      ),
    )}">See the whole table</a></p>`;
  }
  return html`${rowsTable(model)}
${pager(model)}
<p class="hint">Text longer than ${plural(model.maxCellChars, 'character')} is cut here; each row's page shows it whole.</p>`;
}

function otherTables({ scraper, table }: TablePageModel): SafeHtml | '' {
  const tables = scraper.data.tables;
  if (tables.length < 2) return '';
  return html`<details class="other-tables"><summary>All ${plural(tables.length, 'table')} of this scraper</summary>
<ul>${tables.map(
    (t) =>
      html`<li>${t.name === table.name ? html`<strong aria-current="page">${t.name}</strong>` : html`<a href="${tablePath(scraper.owner.name, scraper.name, t.name)}">${t.name}</a>`} <span class="count">${tableRows(t)}</span></li>`,
  )}</ul>
</details>`;
}

/** `/{owner}/{scraper}/tables/{table}`: a view of one table, its forms, facets, pages and twins. */
export function tablePage(model: TablePageModel): SafeHtml {
  const { scraper, table, view, page } = model;
  const href: ViewHref = (changed) => viewHref(scraper, table, changed);
  const linked: Linked = { ...model, href };
  const json = viewHref(scraper, table, view, '.json');
  const csv = viewHref(scraper, table, view, '.csv');
  const columns = table.columns.map((c) => c.name);
  return layout({
    title: `${table.name} · ${scraper.owner.name}/${scraper.name}`,
    visitor: model.visitor,
    scripts: ['views/client/table-page.js'],
    head: html`<link rel="alternate" type="application/json" href="${json}">
<link rel="alternate" type="text/csv" href="${csv}">
${page.next ? html`<link rel="next" href="${href({ ...view, next: page.next })}">\n` : ''}`,
    body: html`<p class="crumbs"><a href="${ownerPath(scraper.owner.name)}">${scraper.owner.name}</a> / <a href="${scraperPath(scraper.owner.name, scraper.name)}">${scraper.name}</a> / ${table.kind === 'view' ? 'view' : 'table'}</p>
<h1 class="table-name">${table.name} <span class="count">${tableRows(table)}</span></h1>
<p class="lead description">${page.description}${
      page.countTruncated ? html` <a class="count-all" href="${href({ ...firstPage(view), countAll: true })}">Count all</a>` : ''
    }</p>
${versionLine(scraper, table, view)}
${tableDownloadButtons(scraper, table, view, 'Download what you see:')}
${downloadsHint(model.visitor !== undefined)}
<p class="twins">For programs, this view as <a href="${json}">JSON</a> or <a href="${csv}">CSV</a>: API calls, with <a href="/docs#keys">a key</a>, counted as downloads (<a href="/docs#table-views">how</a>).</p>
${otherTables(model)}
${activeFilters(linked)}
${tableControls(view, columns, table.fts !== undefined, tablePath(scraper.owner.name, scraper.name, table.name))}
${facetList(view, page, href)}
${rowsOrNotice(linked)}
<p class="hint">${count(page.columns.length)} of ${plural(columns.length, 'column')} shown.</p>`,
  });
}
