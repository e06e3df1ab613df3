import { createHash } from 'node:crypto';
import type { Scraper } from '../store/types.js';

/**
 * @module What a download is saved as: its file name, and the `Content-Disposition` header that
 * names it. Every response sent as a file builds its header here.
 */

/** Anything but letters, digits, `.`, `_` and `-`: quotes, backslashes, slashes, control and non-ASCII characters. */
const unsafeInFallback = /[^A-Za-z0-9._-]/g;

/** RFC 5987 attr-chars that encodeURIComponent leaves as they are but the grammar does not allow. */
const notAttrChars = /['()*]/g;

/**
 * `attachment` named `name`: in `filename` with every character that is not plainly safe made `_`
 * (for clients that read only that), and whole in RFC 6266's `filename*=UTF-8''…`, percent-encoded,
 * so a name in any script survives. `fallbackOnly` writes `filename` alone, exactly as the data API
 * always did for csv and sqlite (morph.io's clients see the header they knew).
 */
export function contentDisposition(name: string, fallbackOnly = false): string {
  const fallback = `attachment; filename="${name.replace(unsafeInFallback, '_')}"`;
  if (fallbackOnly) return fallback;
  const encoded = encodeURIComponent(name).replace(notAttrChars, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${fallback}; filename*=UTF-8''${encoded}`;
}

/** `<owner>-<scraper>`, the start of every download's name. */
const scraperPart = (scraper: Scraper) => `${scraper.owner.name}-${scraper.name}`;

/** The file a table's data is saved as: `<owner>-<scraper>-<table>.<extension>` (a saved query's: its name for the table's). */
export function tableFileName(scraper: Scraper, table: string, extension: string): string {
  return `${scraperPart(scraper)}-${table}.${extension}`;
}

/** The file a scraper's whole database is saved as: `<owner>-<scraper>.<extension>`. */
export function scraperFileName(scraper: Scraper, extension: string): string {
  return `${scraperPart(scraper)}.${extension}`;
}

/** `select * from <name>` with the name bare, "quoted", `quoted` or [bracketed], and an optional `;`. */
const wholeTable = /^\s*select\s+\*\s+from\s+(?:"((?:[^"]|"")+)"|`((?:[^`]|``)+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_]*))\s*;?\s*$/i;

/** The table a query reads whole, unfiltered and unsorted, if it is one of the scraper's tables. */
function wholeTableOf(scraper: Scraper, sql: string): string | undefined {
  const match = wholeTable.exec(sql);
  if (!match) return undefined;
  const [, doubled, backticked, bracketed, bare] = match;
  const name = doubled?.replace(/""/g, '"') ?? backticked?.replace(/``/g, '`') ?? bracketed ?? bare!;
  // SQLite matches table names without regard to ASCII case.
  return scraper.data.tables.find((t) => t.name.toLowerCase() === name.toLowerCase())?.name;
}

/**
 * The file a query's rows are saved as: the table's name for a query of a whole table, otherwise
 * `query-` and the first 8 hex digits of the SQL's SHA-256, so the same query is always the same file.
 */
export function queryFileName(scraper: Scraper, sql: string, extension: string): string {
  const table = wholeTableOf(scraper, sql);
  if (table !== undefined) return tableFileName(scraper, table, extension);
  const hash = createHash('sha256').update(sql).digest('hex').slice(0, 8);
  return `${scraperPart(scraper)}-query-${hash}.${extension}`;
}
