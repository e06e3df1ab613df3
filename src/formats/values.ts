/**
 * SQLite values as they arrive from better-sqlite3 in safe-integer mode: null, bigint (INTEGER),
 * number (REAL), string (TEXT) or Buffer (BLOB).
 */
export type SqliteValue = null | bigint | number | string | Buffer;

/**
 * `<`, `>` and `&` are escaped as morph.io (ActiveSupport) does, so JSON and JSONP can be embedded
 * in HTML safely; U+2028 and U+2029 because older JavaScript parsers end a string at them.
 */
const htmlAndLineSeparators = /[<>&\u2028\u2029]/g;
const escapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON text with `<`, `>`, `&`, U+2028 and U+2029 escaped (outside its strings JSON text has none). */
function htmlSafeJson(json: string): string {
  // Slices joined between matches: a replace() calling a function per match took twice as long.
  let escaped = '';
  let last = 0;
  htmlAndLineSeparators.lastIndex = 0;
  for (let m = htmlAndLineSeparators.exec(json); m !== null; m = htmlAndLineSeparators.exec(json)) {
    escaped += json.slice(last, m.index) + escapes[m[0]]!;
    last = m.index + 1;
  }
  return escaped + json.slice(last);
}

/**
 * Any character a string's JSON text does not hold as it is: what JSON.stringify escapes (`"`,
 * `\\`, control characters, lone surrogates, matched here as any surrogate, paired or not, which
 * only sends a few strings the slow way) and what `htmlSafeJson` escapes. Written as the characters
 * that pass, which V8 tests as fast as the shorter list JSON.stringify needs alone, where listing
 * the escaped ones took 40 % longer (measured on the benchmark's text columns).
 */
const escapedInJson = /[^ !#-%'-;=?-[\]-\u2027\u202a-\ud7ff\ue000-\uffff]/;

/**
 * A string as JSON text, safe in HTML: the same bytes as JSON.stringify then `htmlSafeJson`, which
 * run only for a string holding something to escape. Most data holds none, and one regex test and a
 * concatenation cost a third of what JSON.stringify does. Testing each string for both sets at
 * once costs less than testing it for JSON's and scanning the encoded rows again for HTML's.
 */
export function jsonString(s: string): string {
  return escapedInJson.test(s) ? htmlSafeJson(JSON.stringify(s)) : `"${s}"`;
}

/**
 * An INTEGER as text, exact to 64 bits. One that fits a double exactly (most) is written as a
 * number, which V8 does in half the time of a bigint's toString; a bigint of 2^53 or more (or
 * -2^53 or less) converts to a double of that size or more, which is not a safe integer.
 */
export function integerText(v: bigint): string {
  const n = Number(v);
  return Number.isSafeInteger(n) ? `${n}` : v.toString();
}

/**
 * A REAL as text that reads back as the same float and stays a float: integral values keep a
 * `.0` (1.0, -0.0) as SQLite and morph.io write them, so typed clients (Python, Ruby) get a float.
 * From 1e21 on, JavaScript writes integral values with an exponent (1e+21), which stays a float.
 */
export function realText(v: number): string {
  if (!Number.isInteger(v)) return hundredthsText(v) ?? String(v);
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  return v < 1e21 && v > -1e21 ? `${v}.0` : String(v);
}

/**
 * A float of at most two decimals (money, most measures) as JavaScript writes it, in under half the
 * time V8 takes (measured on the benchmark's prices); undefined for any other. Its two-decimal text
 * reads back as the float (`x / 100` rounds to it as parsing does), and below 1e12, where floats lie
 * closer together than 0.001, no other text as short does; so it is the shortest, which is the one
 * JavaScript writes.
 */
function hundredthsText(v: number): string | undefined {
  if (v >= 1e12 || v <= -1e12) return undefined;
  const x = Math.round(v * 100);
  if (x / 100 !== v) return undefined;
  const hundredths = Math.abs(x);
  const cents = hundredths % 100;
  const fraction = cents % 10 === 0 ? `${cents / 10}` : cents < 10 ? `0${cents}` : `${cents}`;
  return `${x < 0 ? '-' : ''}${(hundredths - cents) / 100}.${fraction}`;
}

/**
 * One value as JSON text, safe in HTML. Integers are written from their exact 64-bit value (no
 * rounding past 2^53); floats in JavaScript's shortest round-trip form; BLOBs as base64 text.
 * SQLite can hold an infinite REAL, which JSON cannot: it is written as ±9e999, as SQLite's own
 * json functions do, and parses back to ±Infinity.
 */
export function jsonValue(v: SqliteValue): string {
  switch (typeof v) {
    case 'string':
      return jsonString(v);
    case 'bigint':
      return integerText(v);
    case 'number':
      return Number.isFinite(v) ? realText(v) : v > 0 ? '9e999' : '-9e999';
    default:
      return v === null ? 'null' : `"${v.toString('base64')}"`;
  }
}

/** One value as CSV field text, before quoting: NULL is an empty field, infinity is `Infinity`. */
export function textValue(v: SqliteValue): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return integerText(v);
    case 'number':
      return Number.isFinite(v) ? realText(v) : String(v);
    default:
      return v === null ? null : v.toString('base64');
  }
}
