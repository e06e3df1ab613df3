import os from 'node:os';
import { isatty } from 'node:tty';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactUrl } from './redact.js';
import { LogOutput } from './log-output.js';
import { prettyLine } from './pretty.js';

/**
 * What the log may hold of a stdout that does not keep up (a stalled pipe, a slow disk), in
 * characters: beyond it records are dropped and counted (`siphon_log_lines_dropped_total`) rather
 * than held without bound.
 */
const maxHeldChars = 16 * 2 ** 20;
/**
 * Records leave in writes of at least this many characters (about 100 request lines, half of what a
 * pipe holds), or every `flushEveryMs`: one write per line made each request pay a write to stdout
 * (through libuv's thread pool) and wake its reader (measured: ~15 µs of the server's CPU per 304);
 * at 8 Ki characters a batch, its write was still ~0.5 µs of a 304's.
 */
const minWriteChars = 32 * 1024;
const flushEveryMs = 100;

export interface Log {
  logger: Logger;
  /** The form records are written in: `auto` resolved, by whether stdout is a terminal. */
  format: 'json' | 'pretty';
  /**
   * Writes lines for a person as they are, in order with the records: what the pretty form says
   * where a JSON record would hold fields (the start-up's addresses and curl line). `text` ends with a newline.
   */
  text(text: string): void;
  /**
   * Writes a request's line: the record `logger.child({ reqId }).info(fields, 'request')` (or
   * `warn`) would write, byte for byte, made with one `JSON.stringify` of the fields instead of
   * pino's field-by-field serializing, which cost ~1.2 µs of a 304's CPU under the bench's load. For flat
   * fields with no serializer of their own: errors go through the logger.
   */
  requestLine(level: 'info' | 'warn', reqId: string, fields: object): void;
  /** Writes what the destination still holds; resolves once it is written (or cannot be). */
  flush(): Promise<void>;
  /** Records dropped because stdout did not keep up. */
  dropped(): number;
}

/**
 * The service's log: JSON lines (or `pretty` lines) on stdout; `auto`, the default, is pretty when
 * stdout is a terminal (a person runs it) and JSON when it is not (a pipe, a file, a collector). Records are handed to an asynchronous
 * destination (log-output.ts), so a request never waits for stdout: a record is held and written
 * with others when the pipe takes them, at most about `flushEveryMs` later. `flush` writes what is
 * held (serve calls it when stopping), and whatever ends the process, what is held is written at
 * exit. `stream`: tests read the log from one, written synchronously.
 */
export function createLog(options: { level: string; format: 'auto' | 'json' | 'pretty'; stream?: NodeJS.WritableStream }): Log {
  const format = options.format === 'auto' ? (!options.stream && isatty(1) ? 'pretty' : 'json') : options.format;
  const output = options.stream ? undefined : new LogOutput(1, { minChars: minWriteChars, maxChars: maxHeldChars });
  if (output) setInterval(() => output.writeHeld(), flushEveryMs).unref();
  const out: DestinationStream = options.stream ?? output!;
  const destination: DestinationStream = format === 'pretty' ? { write: (line) => out.write(prettyLine(line)) } : out;
  const logger = pino(
    {
      level: options.level,
      serializers: {
        // Not logged by the request line (request-log.ts), which names its fields; kept for any other record given a request.
        req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }),
        // What went wrong, and where: not the other fields an error can carry, which can be the
        // request it failed on (a URL's `input`, a parser error's raw packet) with a key in it.
        err: (err: Error & { code?: unknown }) => ({ type: err.name, message: err.message, code: err.code, stack: err.stack ?? '' }),
      },
    },
    destination,
  );
  // pino's own start of a record: its level, time and default base (pid and hostname).
  const base = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())}`;
  return {
    logger,
    format,
    text: (text) => out.write(text),
    requestLine: (level, reqId, fields) => {
      if (!logger.isLevelEnabled(level)) return;
      const body = JSON.stringify(fields);
      const rest = body.length > 2 ? `,${body.slice(1, -1)}` : '';
      destination.write(
        `{"level":${logger.levels.values[level]},"time":${Date.now()}${base},"reqId":${JSON.stringify(reqId)}${rest},"msg":"request"}\n`,
      );
    },
    flush: () => output?.flush() ?? Promise.resolve(),
    dropped: () => output?.dropped ?? 0,
  };
}
