/**
 * SQL text split into tokens the way SQLite's tokenizer splits it, as far as Siphon's checks need:
 * comments and whitespace are dropped, names and strings come unquoted, and everything else comes one
 * character at a time. Where it is unsure it splits more, never less, so that a name SQLite reads is
 * always one of the tokens here.
 */
export type SqlToken =
  /** A keyword or a bare name: a run of ASCII letters, digits, `_` and `$`. */
  | { kind: 'word'; text: string }
  /** A quoted name, `"…"`, `[…]` or `` `…` ``, unquoted (with double-quoted strings on, `"…"` may also be a string). */
  | { kind: 'quoted'; text: string }
  /** A string literal `'…'`, unquoted. Where only a name fits (`from 'data'`), SQLite reads it as one. */
  | { kind: 'string'; text: string }
  /** Any other character. */
  | { kind: 'other'; text: string };

/**
 * SQLite's whitespace, and the byte-order mark, which it skips too. Other non-ASCII characters
 * belong to names in SQLite; here they end a word, which splits more (a name SQLite reads that
 * starts with ASCII letters still ends where it does here).
 */
const space = /[ \t\n\f\r\uFEFF]/;
const wordChar = /[A-Za-z0-9_$]/;
/** Opening quote → closing quote. */
const closers = new Map([
  ['"', '"'],
  ['`', '`'],
  ["'", "'"],
  ['[', ']'],
]);

export function* sqlTokens(sql: string): Generator<SqlToken> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (space.test(c)) {
      i += 1;
    } else if (sql.startsWith('--', i)) {
      // SQLite ends a line comment at \n only.
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      // Block comments do not nest, and the * that opens one does not also close it.
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (closers.has(c)) {
      const close = closers.get(c)!;
      // A doubled closing quote stands for itself, except in […], which has no escape.
      let text = '';
      let at = i + 1;
      for (;;) {
        const end = sql.indexOf(close, at);
        if (end === -1) {
          // unterminated: SQLite refuses it, but what is there is still looked at
          text += sql.slice(at);
          at = sql.length;
          break;
        }
        text += sql.slice(at, end);
        at = end + 1;
        if (c === '[' || sql[at] !== close) break;
        text += close;
        at += 1;
      }
      i = at;
      yield { kind: c === "'" ? 'string' : 'quoted', text };
    } else if (c === '?') {
      // A numbered parameter, ?NNN: SQLite starts a new token after its digits (`?1pragma_x`).
      i += 1;
      while (i < sql.length && /[0-9]/.test(sql[i]!)) i += 1;
      yield { kind: 'other', text: c };
    } else if (wordChar.test(c)) {
      const start = i;
      while (i < sql.length && wordChar.test(sql[i]!)) i += 1;
      yield { kind: 'word', text: sql.slice(start, i) };
    } else {
      i += 1;
      yield { kind: 'other', text: c };
    }
  }
}
