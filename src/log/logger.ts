import { pino, type DestinationStream, type Logger } from 'pino';
import { redactUrl } from '../http/redact.js';
import { prettyLine } from './pretty.js';

/**
 * What the log may hold of a stdout that does not keep up (a stalled pipe, a slow disk): beyond it
 * records are dropped and counted (`siphon_log_lines_dropped_total`) rather than held without bound.
 */
const maxBufferedBytes = 16 * 2 ** 20;
/**
 * Records leave in writes of at least this many bytes, or every `flushEveryMs`: one write per line
 * made each request pay a write to stdout (through libuv's thread pool) and wake its reader (measured:
 * ~15 µs of the server's CPU per 304).
 */
const minWriteBytes = 8 * 1024;
const flushEveryMs = 100;

export interface Log {
  logger: Logger;
  /** Writes what the destination still holds; resolves once it is written (or cannot be). */
  flush(): Promise<void>;
  /** Records dropped because stdout did not keep up. */
  dropped(): number;
}

/**
 * The service's log: JSON lines (or `pretty` lines) on stdout. Records are handed to an asynchronous
 * destination (sonic-boom, pino's own), so a request never waits for stdout: a record is buffered and
 * written with others when the pipe takes it, at most about `flushEveryMs` later. `flush` writes
 * what is buffered (serve calls it when stopping), and pino flushes synchronously on exit whatever
 * ends the process. `stream`: tests read the log from one, written synchronously.
 */
export function createLog(options: { level: string; format: 'json' | 'pretty'; stream?: NodeJS.WritableStream }): Log {
  let dropped = 0;
  const boom = options.stream
    ? undefined
    : pino.destination({ dest: 1, sync: false, minLength: minWriteBytes, maxLength: maxBufferedBytes });
  boom?.on('drop', () => {
    dropped += 1;
  });
  // What waits is written every `flushEveryMs`, for a tick past the last record too: a flush that
  // comes while a write is under way leaves what came meanwhile for the next. (sonic-boom's own
  // periodicFlush writes even when nothing waits.)
  let recent = 0;
  const out: DestinationStream = options.stream ?? {
    write: (line) => {
      recent = 2;
      return boom!.write(line);
    },
  };
  if (boom) {
    // A flush asked for while a write is under way does nothing, and records handed meanwhile stay
    // behind it: each write that ends is followed by one more flush (a stuck pipe held the start-up
    // banner for good). An empty one, which the flush of nothing makes, asks for none.
    boom.on('write', (bytes: number) => {
      if (bytes > 0) recent = Math.max(recent, 1);
    });
    setInterval(() => {
      // Ended by pino at the loop's last turn (beforeExit): flushing then would throw.
      if (recent === 0 || (boom as { destroyed?: boolean }).destroyed) return;
      recent -= 1;
      boom.flush();
    }, flushEveryMs).unref();
  }
  const destination: DestinationStream = options.format === 'pretty' ? { write: (line) => out.write(prettyLine(line)) } : out;
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
  return {
    logger,
    flush: () =>
      new Promise((resolve) => {
        if (!boom) resolve();
        else boom.flush(() => resolve());
      }),
    dropped: () => dropped,
  };
}
