import type { BrowsePage, Cell, TableView } from '../browse/types.js';
import { csvStyle, type CsvOptions } from '../formats/csv.js';
import { jsonString } from '../formats/values.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { facetFilter, toggledFilter } from '../views/view-links.js';
import { viewHref } from '../views/table-paths.js';

/**
 * @module The bodies of the table pages' twins for programs. Values are written as the data API's
 * json and csv formats write them: numbers with the exact text SQLite gave (64-bit integers
 * whole), NULL as `null` (an empty CSV field), text as JSON strings safe in HTML.
 */

/** A rowid in a row page's path: an SQLite integer, as text. */
export const rowIdPattern = /^-?\d{1,19}$/;

function jsonCell(cell: Cell): string {
  return cell.kind === 'null' ? 'null' : cell.kind === 'number' ? cell.text : jsonString(cell.text);
}

function jsonObject(columns: readonly string[], cells: readonly Cell[]): string {
  return `{${columns.map((c, i) => `${jsonString(c)}:${jsonCell(cells[i]!)}`).join(',')}}`;
}

const jsonList = (items: readonly string[]) => `[${items.join(',')}]`;

function facetsJson(scraper: Scraper, table: TableInfo, view: TableView, page: BrowsePage): string {
  const facets = view.facets.filter((c) => page.facets[c]);
  return `{${facets
    .map((column) => {
      const facet = page.facets[column]!;
      const values = facet.values.map((v) => {
        const cut = v.value.kind !== 'null' && v.value.cut === true;
        const toggle = cut ? 'null' : jsonString(viewHref(scraper, table, toggledFilter(view, facetFilter(column, v.value)), '.json'));
        return `{"value":${jsonCell(v.value)},"count":${v.count},"selected":${v.selected},"cut":${cut},"toggle_url":${toggle}}`;
      });
      return `${jsonString(column)}:{"values":${jsonList(values)},"truncated":${facet.truncated},"timed_out":${facet.timedOut}}`;
    })
    .join(',')}}`;
}

/**
 * `{"rows": [{column: value, …}], "columns", "rowids", "count", "count_truncated", "description",
 * "next", "next_url", "timed_out"}`, and `"facets"` and `"suggested_facets"` when the view asks for facets.
 */
export function jsonBody(scraper: Scraper, table: TableInfo, view: TableView, page: BrowsePage, nextUrl: string | null): string {
  const rows = page.rows.map((r) => jsonObject(page.columns, r.cells));
  const isTable = page.rows.some((r) => r.rowid !== null);
  const parts = [
    `"rows":${jsonList(rows)}`,
    `"columns":${jsonList(page.columns.map(jsonString))}`,
    `"rowids":${isTable ? jsonList(page.rows.map((r) => r.rowid ?? 'null')) : 'null'}`,
    `"count":${page.count}`,
    `"count_truncated":${page.countTruncated}`,
    `"description":${jsonString(page.description)}`,
    `"next":${page.next === null ? 'null' : jsonString(page.next)}`,
    `"next_url":${nextUrl === null ? 'null' : jsonString(nextUrl)}`,
    `"timed_out":${page.timedOut}`,
  ];
  if (view.facets.length > 0) {
    parts.push(
      `"facets":${facetsJson(scraper, table, view, page)}`,
      `"suggested_facets":${jsonList(page.suggestedFacets.map(jsonString))}`,
    );
  }
  return `{${parts.join(',')}}\n`;
}

/** `{"rowid", "columns", "rows": [{column: value, …}]}`: a list of one, so the table's parsing reads it too. */
export function rowJsonBody(rowid: string, row: { columns: string[]; cells: Cell[] }): string {
  return `{"rowid":${rowid},"columns":${jsonList(row.columns.map(jsonString))},"rows":[${jsonObject(row.columns, row.cells)}]}\n`;
}

/** The page's rows as the data API's csv writes them with the same options: a header line, LF line ends (for Excel, CRLF after a BOM). */
export function csvBody(page: BrowsePage, options: CsvOptions): string {
  const { text, eol, bom } = csvStyle(options);
  const cell = (c: Cell) => (c.kind === 'null' ? '' : c.kind === 'number' ? c.text : text(c.text));
  let out = `${bom}${page.columns.map(text).join(',')}${eol}`;
  for (const row of page.rows) out += `${row.cells.map(cell).join(',')}${eol}`;
  return out;
}
