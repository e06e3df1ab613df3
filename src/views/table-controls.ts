import type { FilterOp, TableView } from '../browse/types.js';
import { html, type SafeHtml } from './html.js';

/**
 * @module The table page's one form: filters, sort, columns, rows per page, search and facets. It is
 * submitted with GET and holds the whole view, so it works without JavaScript; its numbered fields
 * (`_filter_column_1`, `_sort_column_1`, …) are not the view's canonical parameters, so the page
 * answers them with a redirect to the canonical URL (as Datasette does), built by `formParams` here,
 * where the fields are named.
 */

/** Each operator as people read it; typed by every operator, so a new one cannot be left out of the form. */
export const opLabels: Record<FilterOp, string> = {
  exact: '=',
  not: '≠',
  contains: 'contains',
  notcontains: 'does not contain',
  startswith: 'starts with',
  endswith: 'ends with',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  like: 'like',
  notlike: 'not like',
  glob: 'glob',
  in: 'in (a,b or JSON list)',
  notin: 'not in',
  date: 'date is',
  isnull: 'is null',
  notnull: 'is not null',
  isblank: 'is blank',
  notblank: 'is not blank',
};
/** In the order people look for them. */
const formOps = Object.keys(opLabels) as FilterOp[];

/** Rows per page offered; any other `_size` from 1 to 1000 is kept when the URL gives it. */
const sizes = [10, 20, 50, 100, 200, 500, 1000];

const formField = /^_(filter_(column|op|value)|sort_(column|dir))_(\d+)$/;

function option(value: string, label: string, selected: boolean): SafeHtml {
  return html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
}

function columnSelect(name: string, label: string, columns: string[], chosen: string, empty: string, apply = false): SafeHtml {
  return html`<select name="${name}" aria-label="${label}"${apply ? html` data-apply` : ''}>${option('', empty, chosen === '')}${columns.map((c) => option(c, c, c === chosen))}</select>`;
}

function filterRow(n: number, columns: string[], filter: { column: string; op: FilterOp; value: string }): SafeHtml {
  return html`<div class="filter-row">
${columnSelect(`_filter_column_${n}`, `Filter ${n}: column`, columns, filter.column, '— column —')}
<select name="_filter_op_${n}" aria-label="Filter ${n}: operator">${formOps.map((op) => option(op, opLabels[op], op === filter.op))}</select>
<input type="text" name="_filter_value_${n}" value="${filter.value}" aria-label="Filter ${n}: value" placeholder="value">
</div>`;
}

function sortRow(n: number, columns: string[], key: { column: string; desc: boolean }): SafeHtml {
  return html`<div class="sort-row">
${columnSelect(`_sort_column_${n}`, `Sort ${n}: column`, columns, key.column, n === 1 ? '— no sort —' : '— then by —')}
<select name="_sort_dir_${n}" aria-label="Sort ${n}: direction">${option('asc', 'ascending', !key.desc)}${option('desc', 'descending', key.desc)}</select>
</div>`;
}

/** The form for a view of a table with these columns; `searchable`: the table has a full-text index. */
export function tableControls(view: TableView, allColumns: string[], searchable: boolean, action: string): SafeHtml {
  const filters = [...view.filters, { column: '', op: 'exact' as const, value: '' }];
  const sorts = [...view.sort, { column: '', desc: false }];
  const sizeChoices = sizes.includes(view.size) ? sizes : [...sizes, view.size].sort((a, b) => a - b);
  const unfaceted = allColumns.filter((c) => !view.facets.includes(c));
  return html`<form class="table-controls" method="get" action="${action}">
${searchable ? html`<div class="field search-field"><label for="table-search">Search</label> <input type="search" id="table-search" name="_search" value="${view.search ?? ''}"></div>` : ''}
<fieldset class="filters"><legend>Filters</legend>
${filters.map((f, i) => filterRow(i + 1, allColumns, f))}
</fieldset>
<fieldset class="sorts"><legend>Sort</legend>
${sorts.map((s, i) => sortRow(i + 1, allColumns, s))}
</fieldset>
<details class="column-choice"${view.columns.length < allColumns.length ? html` open` : ''}><summary>Columns shown (${view.columns.length} of ${allColumns.length})</summary>
<div class="checkboxes">${allColumns.map(
    (c) =>
      html`<label class="checkbox"><input type="checkbox" name="_col" value="${c}"${view.columns.includes(c) ? html` checked` : ''}> ${c}</label>`,
  )}</div>
</details>
${view.facets.map((c) => html`<input type="hidden" name="_facet" value="${c}">`)}
<div class="field-row">
<label>Rows per page <select name="_size" data-apply>${sizeChoices.map((n) => option(String(n), String(n), n === view.size))}</select></label>
<label>Facet by ${columnSelect('_facet', 'Facet by column', unfaceted, '', '— add a facet —', true)}</label>
</div>
${view.facetSize !== 30 ? html`<input type="hidden" name="_facet_size" value="${view.facetSize}">` : ''}
${view.version !== undefined ? html`<input type="hidden" name="version" value="${view.version}">` : ''}
<div class="buttons"><button type="submit">Apply</button></div>
</form>`;
}

/**
 * The canonical parameters of what the form submitted, in order, or undefined when the parameters
 * are not the form's (they are then canonical already). Rows left without a column, empty searches
 * and the empty "add a facet" choice are dropped; every choice of columns is kept as `_col`.
 */
export function formParams(pairs: readonly [string, string][]): [string, string][] | undefined {
  if (!pairs.some(([name]) => formField.test(name))) return undefined;
  const filters = new Map<number, { column?: string; op?: string; value?: string }>();
  const sorts = new Map<number, { column?: string; dir?: string }>();
  const out: [string, string][] = [];
  for (const [name, value] of pairs) {
    const match = formField.exec(name);
    if (match) {
      const n = Number(match[4]);
      if (match[2]) filters.set(n, { ...filters.get(n), [match[2]]: value });
      else sorts.set(n, { ...sorts.get(n), [match[3] === 'dir' ? 'dir' : 'column']: value });
    } else if (!((name === '_search' || name === '_facet') && value === '') && name !== '_next') {
      out.push([name, value]);
    }
  }
  const byNumber = <T>(rows: Map<number, T>) => [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
  for (const f of byNumber(filters)) if (f.column) out.push([`${f.column}__${f.op || 'exact'}`, f.value ?? '']);
  for (const s of byNumber(sorts)) if (s.column) out.push([s.dir === 'desc' ? '_sort_desc' : '_sort', s.column]);
  return out;
}
