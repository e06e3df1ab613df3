/**
 * @module The paths of the table pages and their twins: `/{owner}/{scraper}/tables/{table}` and
 * `…/{table}/{rowid}`, each with `.json` (and the table's `.csv`). A table may be named anything
 * SQLite accepts (dots, slashes, spaces, quotes, `x.json`), so its name is written in one path
 * segment with tilde-encoding, as Datasette does: ASCII letters, digits, `_` and `-` stay as they are,
 * a space becomes `+`, every other ASCII character becomes `~` and its two hex digits (`.` is `~2E`,
 * `/` is `~2F`, `~` is `~7E`), and letters beyond ASCII stay letters (percent-encoded in the URL as
 * UTF-8, which browsers show as the letters). A segment therefore never holds a literal `.`, so the
 * `.json`/`.csv` after it is unambiguous, and never a `/` or `%2E`, which proxies and routers decode.
 * The empty name is the lone `~`. Not percent-encoding: Fastify's router (like many proxies) decodes
 * `%2E` and `%2F` before any handler sees the path.
 */

import { viewParams } from '../browse/index.js';
import type { TableView } from '../browse/types.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { scraperPath } from './text.js';

/** Kept as they are: the characters no router, proxy or browser changes in a path segment. */
const safe = /[A-Za-z0-9_-]/;

/** A table name as its path segment, ready to put in a URL (see the module's comment). */
export function tableSegment(name: string): string {
  if (name === '') return '~';
  let out = '';
  for (const ch of name) {
    if (safe.test(ch)) out += ch;
    else if (ch === ' ') out += '+';
    else if (ch.codePointAt(0)! < 0x80) out += `~${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    // As UTF-8 bytes (a lone surrogate, which no SQLite name holds, as U+FFFD's).
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase()}`;
  }
  return out;
}

/**
 * The table name of a path segment as the router gives it (percent-escapes already decoded). Lenient:
 * a character the encoding would have escaped is taken as itself, so a hand-typed `/tables/a.b`
 * finds the table `a.b`; `~XX` runs are UTF-8 bytes (a `~` not followed by two hex digits is itself).
 */
export function tableNameOf(segment: string): string {
  if (segment === '~') return '';
  const spaced = segment.replaceAll('+', ' ');
  return spaced.replace(/(?:~[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('~', ''), 'hex').toString('utf8'));
}

/** `/{owner}/{scraper}/tables/{table}`, then `.json`, `.csv` or nothing. */
export function tablePath(owner: string, scraper: string, table: string, extension = ''): string {
  return `/${encodeURIComponent(owner)}/${encodeURIComponent(scraper)}/tables/${tableSegment(table)}${extension}`;
}

/** `/{owner}/{scraper}/tables/{table}/{rowid}`, then `.json` or nothing. */
export function rowPath(owner: string, scraper: string, table: string, rowid: string, extension = ''): string {
  return `${tablePath(owner, scraper, table)}/${encodeURIComponent(rowid)}${extension}`;
}

/** A path with its query string, `?` only when there are parameters. */
export function withParams(path: string, params: readonly (readonly [string, string])[]): string {
  const query = new URLSearchParams(params as [string, string][]).toString();
  if (query === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** A page's or twin's path at the data version `version` names (`version=`), or as it is (the current data) without one. */
export function atVersion(path: string, version: number | undefined): string {
  return version === undefined ? path : withParams(path, [['version', String(version)]]);
}

/** The parameters a twin reads as its own, never as a filter: the API key, `dl` and csv's `excel`. */
export const twinOwnParams: ReadonlySet<string> = new Set(['key', 'dl', 'excel']);

/** A view's parameters where `key`, `dl` and `excel` are the address's own: an exact filter on such a column as `NAME__exact`. */
const ownedNamesEscaped = (params: [string, string][]) =>
  params.map(([name, value]): [string, string] => [twinOwnParams.has(name) ? `${name}__exact` : name, value]);

/**
 * The address of a view of a table (its canonical parameters), of its page or, with an extension, of
 * a twin. The twins read `key`, `dl` and `excel` as their own (twinOwnParams), so there an exact
 * filter on a column of one of those names is written `key__exact`, which reads back as the same filter.
 */
export function viewHref(scraper: Scraper, table: TableInfo, view: TableView, extension = ''): string {
  const params = viewParams(view, table);
  return withParams(
    tablePath(scraper.owner.name, scraper.name, table.name, extension),
    extension === '' ? params : ownedNamesEscaped(params),
  );
}

/** A view's parameters that shape its pages, not which rows and columns it holds: a download of every row has no use for them. */
const pageOnlyParams: ReadonlySet<string> = new Set(['_size', '_next', '_facet', '_facet_size', '_count']);

/** `/{owner}/{scraper}/download.sqlite`: the pages' button for the whole database. */
export function databaseDownloadPath(scraper: Scraper): string {
  return `${scraperPath(scraper.owner.name, scraper.name)}/download.sqlite`;
}

/** A saved query's download button, `/{owner}/{scraper}/download/queries/{name}.{format}`. */
export function savedQueryDownloadPath(scraper: Scraper, name: string, format: 'csv' | 'json'): string {
  return `${scraperPath(scraper.owner.name, scraper.name)}/download/queries/${encodeURIComponent(name)}.${format}`;
}

/** Whether a path of this site is one of the download buttons' (a sign-in on the way to it says so). */
export function isDownloadPath(path: string): boolean {
  return /^\/[^/?]+\/[^/?]+\/download(?:\.sqlite|\/(?:queries\/)?[^/?]+\.(?:csv|json))(?:\?|$)/.test(path);
}

/**
 * `/{owner}/{scraper}/download/{table}.csv` (or `.json`): the pages' download of every row of a
 * view, its filters, search, sort and columns (the whole table without a view), `excel=1` for a CSV
 * for Excel. Read back by routes/page-downloads.ts, as a twin reads its view.
 */
export function downloadHref(
  scraper: Scraper,
  table: TableInfo,
  view: TableView | undefined,
  format: 'csv' | 'json',
  excel = false,
): string {
  const params = view ? ownedNamesEscaped(viewParams(view, table)).filter(([name]) => !pageOnlyParams.has(name)) : [];
  if (excel) params.push(['excel', '1']);
  const path = `${scraperPath(scraper.owner.name, scraper.name)}/download/${tableSegment(table.name)}.${format}`;
  return withParams(path, params);
}
