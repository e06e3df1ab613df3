import type { Cell } from '../browse/types.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { wholeValue } from './cell-html.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { atVersion, rowPath, tablePath } from './table-paths.js';
import { ownerPath, scraperPath, tableRows } from './text.js';

export interface RowPageModel {
  scraper: Scraper;
  table: TableInfo;
  rowid: string;
  row: { columns: string[]; cells: Cell[] };
  /** This page's address with the scheme and host, when the request said them (else its path). */
  origin: string;
  /** The data version the page was asked for (`version=`), which its links keep; absent, the current data. */
  version?: number;
  visitor?: Visitor;
}

/** `/{owner}/{scraper}/tables/{table}/{rowid}`: one row, every value whole, with its permanent link and JSON twin. */
export function rowPage(model: RowPageModel): SafeHtml {
  const { scraper, table, rowid, row, version } = model;
  const path = atVersion(rowPath(scraper.owner.name, scraper.name, table.name, rowid), version);
  const json = atVersion(rowPath(scraper.owner.name, scraper.name, table.name, rowid, '.json'), version);
  const tableHref = atVersion(tablePath(scraper.owner.name, scraper.name, table.name), version);
  const shows =
    version === undefined
      ? "this row of the scraper's current data, whatever it holds then"
      : `this row of data version ${version}, for as long as that version is kept`;
  return layout({
    title: `Row ${rowid} of ${table.name} · ${scraper.owner.name}/${scraper.name}`,
    visitor: model.visitor,
    head: html`<link rel="alternate" type="application/json" href="${json}">`,
    body: html`<p class="crumbs"><a href="${ownerPath(scraper.owner.name)}">${scraper.owner.name}</a> / <a href="${scraperPath(scraper.owner.name, scraper.name)}">${scraper.name}</a> / <a href="${tableHref}">${table.name}</a> <span class="count">${tableRows(table)}</span></p>
<h1 class="row-title">Row ${rowid} <span class="muted">of ${table.name}</span></h1>
<p class="permalink">Permanent link: <a href="${path}">${model.origin}${path}</a> (it shows ${shows}). For programs: <a href="${json}">JSON</a>, an API call with <a href="/docs#keys">a key</a>.</p>
<dl class="row-values">
${row.columns.map((c, i) => html`<div><dt>${c}</dt><dd>${wholeValue(row.cells[i]!)}</dd></div>\n`)}</dl>
<p><a href="${tableHref}">All rows of ${table.name}</a></p>`,
  });
}
