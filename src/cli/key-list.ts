import type { KeyListing } from '../store/types.js';

/** A timestamp to the second, as `2026-11-23T10:00:00Z`. */
const toSecond = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

/**
 * What `key list` prints: one line per key, in columns, oldest first. A key is shown by its prefix,
 * never by the key or its hash (a KeyListing holds neither).
 */
export function formatKeyList(keys: readonly KeyListing[]): string {
  const rows = [
    ['PREFIX', 'LABEL', 'READ-ONLY', 'ORIGINS', 'CREATED', 'LAST USED', 'REVOKED'],
    ...keys.map((k) => [
      // Keys made before prefixes were kept: the prefix cannot be recovered from the hash.
      k.prefix === null ? '(unknown)' : `${k.prefix}…`,
      k.label === '' ? '-' : k.label,
      k.readOnly ? 'yes' : 'no',
      k.origins === null ? 'any' : k.origins.join(', '),
      toSecond(k.createdAt),
      k.lastUsedAt === null ? 'never' : toSecond(k.lastUsedAt),
      k.revokedAt === null ? 'no' : toSecond(k.revokedAt),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}
