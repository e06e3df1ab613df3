/**
 * SQLite values as they arrive from better-sqlite3 in safe-integer mode: null, bigint (INTEGER),
 * number (REAL), string (TEXT) or Buffer (BLOB).
 */
export type SqliteValue = null | bigint | number | string | Buffer;

/**
 * `<`, `>` and `&` are escaped as morph.io (ActiveSupport) does, so JSON and JSONP can be embedded
 * in HTML safely; U+2028 and U+2029 because older JavaScript parsers end a string at them.
 */
const htmlOrLineSeparator = /[<>&\u2028\u2029]/;
const htmlAndLineSeparators = /[<>&\u2028\u2029]/g;
const escapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON text with `<`, `>`, `&`, U+2028 and U+2029 escaped. Outside its strings JSON text has none
 * of them, so escaping a whole batch of encoded rows gives the same bytes as escaping each string,
 * in one scan instead of one per value; and escaped text has none left, so escaping twice is once.
 */
export function htmlSafeJson(json: string): string {
  if (!htmlOrLineSeparator.test(json)) return json;
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
 * What JSON.stringify escapes in a string: `"`, `\\`, control characters, and lone surrogates
 * (matched here as any surrogate, paired or not, which only sends a few strings the slow way).
 */
const jsonEscaped = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON text, before `htmlSafeJson`: the same bytes as JSON.stringify, which is called
 * only for a string holding something to escape. Most data holds none, and one regex test and a
 * concatenation cost a third of what JSON.stringify does (measured on the benchmark's text columns).
 */
function unescapedJsonString(s: string): string {
  return jsonEscaped.test(s) ? JSON.stringify(s) : `"${s}"`;
}

export function jsonString(s: string): string {
  return htmlSafeJson(unescapedJsonString(s));
}

/**
 * A REAL as text that reads back as the same float and stays a float: integral values keep a
 * `.0` (1.0, -0.0) as SQLite and morph.io write them, so typed clients (Python, Ruby) get a float.
 * From 1e21 on, JavaScript writes integral values with an exponent (1e+21), which stays a float.
 */
export function realText(v: number): string {
  if (!Number.isInteger(v)) return String(v);
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  return v < 1e21 && v > -1e21 ? `${v}.0` : String(v);
}

/**
 * One value as JSON text, with the characters of `htmlSafeJson` left as they are: for encoders that
 * escape whole batches. Integers are written from their exact 64-bit value (no rounding past 2^53);
 * floats in JavaScript's shortest round-trip form; BLOBs as base64 text.
 * SQLite can hold an infinite REAL, which JSON cannot: it is written as ±9e999, as SQLite's own
 * json functions do, and parses back to ±Infinity.
 */
export function unescapedJsonValue(v: SqliteValue): string {
  switch (typeof v) {
    case 'string':
      return unescapedJsonString(v);
    case 'bigint':
      return v.toString();
    case 'number':
      return Number.isFinite(v) ? realText(v) : v > 0 ? '9e999' : '-9e999';
    default:
      return v === null ? 'null' : `"${v.toString('base64')}"`;
  }
}

/** One value as JSON text (see `unescapedJsonValue`), safe in HTML. */
export function jsonValue(v: SqliteValue): string {
  return typeof v === 'string' ? jsonString(v) : unescapedJsonValue(v);
}

/** One value as CSV field text, before quoting: NULL is an empty field, infinity is `Infinity`. */
export function textValue(v: SqliteValue): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return Number.isFinite(v) ? realText(v) : String(v);
    default:
      return v === null ? null : v.toString('base64');
  }
}
