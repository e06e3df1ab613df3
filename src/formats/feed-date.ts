import type { SqliteValue } from './values.js';

/**
 * Reads the `date` a scraper wrote as an RFC 3339 date-time for an Atom feed, or returns undefined
 * when it cannot be read. The result must also be an xsd:dateTime (RFC 4287's schema), which is
 * stricter than RFC 3339 in two places: no leap second (:60) and offsets within ±14:00.
 *
 * Text: `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM`, `HH:MM:SS` or
 * `HH:MM:SS.fraction`, then optionally `Z` or an offset (`+10:00`, `+1000`, `+10`). Without an
 * offset the time is UTC, as SQLite's own date functions write it; a date alone is midnight UTC.
 * The offset and the fraction are kept as written. Anything else (other shapes, impossible dates
 * such as 2023-02-29) is unreadable: guessing would put wrong dates in readers.
 *
 * INTEGER and REAL: Unix time in seconds, within years 0001 to 9999.
 */
export function feedDate(value: SqliteValue): string | undefined {
  switch (typeof value) {
    case 'string':
      return dateText(value.trim());
    case 'bigint':
      return unixSeconds(Number(value));
    case 'number':
      return unixSeconds(value);
    default:
      return undefined; // NULL, BLOB
  }
}

const shape = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

function dateText(text: string): string | undefined {
  const m = shape.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', , sign, oh, om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  if (year < 1 || month < 1 || month > 12 || Number(d) < 1 || Number(d) > daysIn(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (sign && (Number(oh) > 14 || Number(om) > 59 || (Number(oh) === 14 && om !== '00'))) return undefined;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${sign ? `${sign}${oh}:${om}` : 'Z'}`;
}

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds: four-digit years only. */
const firstSecond = -62_135_596_800;
const lastSecond = 253_402_300_799;

function unixSeconds(seconds: number): string | undefined {
  if (!Number.isFinite(seconds) || seconds < firstSecond || seconds > lastSecond) return undefined;
  return new Date(Math.floor(seconds * 1000)).toISOString().replace('.000Z', 'Z');
}
