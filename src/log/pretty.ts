/** pino's level numbers, as the pretty form names them. */
const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every record has, said otherwise (time, level, message) or not worth a terminal's width. */
const shownApart = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'err']);

/**
 * What a terminal acts on rather than shows, or that reorders or splits a line: controls (ESC
 * sequences, C1's CSI), format characters (bidirectional overrides) and line separators. A request
 * can put them in a field (a format in the path, an account name in a form): they are shown escaped.
 */
const actedOn = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const plainWord = /^[^\s"=\p{Cc}\p{Cf}]+$/u;

/** `c` as JSON escapes it, each UTF-16 unit (a tag character beyond U+FFFF is two). */
const escaped = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** A value as `name=value` shows it: bare when it is one plain word, else as JSON, with what a terminal acts on escaped. */
function shown(value: unknown): string {
  if (typeof value === 'string' && plainWord.test(value)) return value;
  return (JSON.stringify(value) ?? 'null').replace(actedOn, escaped);
}

/**
 * One JSON log record as a line for people: `2026-05-04T10:00:00.000Z INFO  request reqId=… status=200`,
 * the other fields as `name=value` in their order, and an error's stack on the lines below. Only
 * the record's own fields are shown, so what the JSON form keeps out (keys) stays out.
 */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString() : '';
  const level = (levelNames[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([name]) => !shownApart.has(name))
    .map(([name, value]) => `${name}=${shown(value)}`);
  let line = [time, level, String(record.msg ?? ''), ...fields].join(' ');
  const err = record.err as { type?: string; message?: string; code?: unknown; stack?: string } | undefined;
  if (err) line += `\n    ${(err.stack || `${err.type}: ${err.message}`).split('\n').join('\n    ')}`;
  return `${line}\n`;
}
