import type { AccountListing, KeyListing, ScraperListing } from '../store/types.js';
import { byteSize } from '../utils/byte-size.js';

/** A timestamp to the second, as `2026-11-23T10:00:00Z`. */
const toSecond = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

/** A header and rows in columns two spaces apart, one line each: what every list of the CLI prints. */
function columns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  return (
    all
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/**
 * What `key list` prints: one line per key, oldest first. A key is shown by its prefix, never by the
 * key or its hash (a KeyListing holds neither).
 */
export function formatKeyList(keys: readonly KeyListing[]): string {
  return columns(
    ['PREFIX', 'LABEL', 'READ-ONLY', 'ORIGINS', 'CREATED', 'LAST USED', 'REVOKED'],
    keys.map((k) => [
      // Keys made before prefixes were kept: the prefix cannot be recovered from the hash.
      k.prefix === null ? '(unknown)' : `${k.prefix}…`,
      k.label === '' ? '-' : k.label,
      k.readOnly ? 'yes' : 'no',
      k.origins === null ? 'any' : k.origins.join(', '),
      toSecond(k.createdAt),
      k.lastUsedAt === null ? 'never' : toSecond(k.lastUsedAt),
      k.revokedAt === null ? 'no' : toSecond(k.revokedAt),
    ]),
  );
}

/** What `user list` prints: one line per account, by name. */
export function formatUserList(accounts: readonly AccountListing[]): string {
  return columns(
    ['NAME', 'CREATED', 'KEYS', 'REVOKED KEYS', 'SCRAPERS'],
    accounts.map((a) => [a.name, toSecond(a.createdAt), String(a.keys), String(a.revokedKeys), String(a.scrapers)]),
  );
}

/** What `scraper list` prints: one line per scraper, private ones marked, its tables last (the widest). */
export function formatScraperList(listings: readonly ScraperListing[]): string {
  return columns(
    ['SCRAPER', 'VISIBILITY', 'VERSION', 'SIZE', 'UPDATED', 'DOWNLOADS', 'TABLES'],
    listings.map(({ scraper, downloads }) => [
      `${scraper.owner.name}/${scraper.name}`,
      scraper.isPrivate ? 'private' : 'public',
      String(scraper.data.version),
      byteSize(scraper.data.sizeBytes),
      toSecond(scraper.data.updatedAt),
      String(downloads),
      scraper.data.tables.map((t) => `${t.name} (${t.rows} rows)`).join(', ') || '-',
    ]),
  );
}

/** What `store copy` prints once it has committed: the rows copied, per table. */
export function formatCopyCounts(counts: Readonly<Record<string, number>>): string {
  return `copied into PostgreSQL, in one transaction:\n${columns(
    ['TABLE', 'ROWS'],
    Object.entries(counts).map(([table, rows]) => [table, String(rows)]),
  )}`;
}
