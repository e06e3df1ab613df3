import type { TableView } from '../browse/types.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { databaseDownloadPath, downloadHref, savedQueryDownloadPath, withParams } from './table-paths.js';
import { humanSize } from './text.js';

/**
 * @module The pages' download buttons: links (no `download` attribute, so that an anonymous
 * visitor's is followed to the sign-in page rather than saved), answered as files named for the
 * table (routes/page-downloads.ts). `nofollow`: each press is a download of the visitor's.
 */

const button = (href: string, label: string, title: string) =>
  html`<a class="button-link" rel="nofollow" href="${href}" title="${title}">${label}</a>`;

/** CSV, CSV for Excel and JSON of a table's rows: all of them, or every row of `view` (its filters, search, sort and columns). */
export function tableDownloadButtons(scraper: Scraper, table: TableInfo, view: TableView | undefined, label: string): SafeHtml {
  const what = view ? 'every row of this view' : `every row of ${table.name}`;
  return html`<p class="download-buttons"><span class="download-label">${label}</span>
${button(downloadHref(scraper, table, view, 'csv'), 'CSV', `${what} as CSV`)}
${button(downloadHref(scraper, table, view, 'csv', true), 'CSV for Excel', `${what} as CSV that Excel opens right (UTF-8, formulas made inert)`)}
${button(downloadHref(scraper, table, view, 'json'), 'JSON', `${what} as JSON`)}</p>`;
}

/** CSV, CSV for Excel and JSON of every row of a saved query with the page's values (and `version`), by their bare names. */
export function savedQueryDownloadButtons(scraper: Scraper, name: string, params: readonly (readonly [string, string])[]): SafeHtml {
  const href = (format: 'csv' | 'json', excel = false) =>
    withParams(savedQueryDownloadPath(scraper, name, format), excel ? [...params, ['excel', '1']] : params);
  return html`<p class="download-buttons"><span class="download-label">Download every row:</span>
${button(href('csv'), 'CSV', 'every row as CSV')}
${button(href('csv', true), 'CSV for Excel', 'every row as CSV that Excel opens right (UTF-8, formulas made inert)')}
${button(href('json'), 'JSON', 'every row as JSON')}</p>`;
}

/** The whole database as the SQLite file, with its size. */
export function databaseDownloadButton(scraper: Scraper): SafeHtml {
  const size = humanSize(scraper.data.sizeBytes);
  return html`<p class="download-buttons">${button(databaseDownloadPath(scraper), `Download the SQLite database (${size})`, `The whole database, ${size}`)}</p>`;
}

/** Who a download from the pages is for: said once beside the buttons. */
export function downloadsHint(signedIn: boolean): SafeHtml {
  return html`<p class="hint">${
    signedIn
      ? 'Downloads run with your account and count as your downloads, as API calls do.'
      : 'Downloading needs an account: you will be asked to log in or sign up, then the file comes.'
  }</p>`;
}
