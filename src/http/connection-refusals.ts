import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, type SiphonError } from '../errors.js';
import { corsHeaders } from './cors.js';
import { errorBody, errorContentType, errorHeaders } from './send-error.js';

/**
 * After answering a connection it is about to close, the server keeps reading (and dropping) what
 * the client still sends for this long. Closing a socket with unread data makes the kernel reset
 * it, and a client still sending (a URL over the header limit, say) would then lose the answer
 * before reading it.
 */
const lingerMs = 2000;

/** A complete HTTP/1.1 response in Siphon's shape, written to a socket no reply object stands for. */
function rawErrorResponse(error: SiphonError, id: string): string {
  const body = errorBody(error);
  const headers = {
    ...corsHeaders,
    ...errorHeaders(error),
    'content-type': errorContentType,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': id,
  };
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n${lines}\r\n${body}`;
}

/** Answers with `error` and closes, reading what still comes for a moment (see lingerMs). */
function answerAndClose(socket: Duplex, error: SiphonError, id: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(error, id));
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), lingerMs);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/** Runs `then` once `res` has been handed to its socket whole (never, if it is cut short: its socket is gone). */
function afterResponse(res: ServerResponse, then: () => void): void {
  if (res.writableFinished) then();
  else res.once('finish', then);
}

export interface RefusalOptions {
  /** Node's header-size bound and the fields' own (for the 431 message). */
  maxHeadBytes: number;
  maxHeaderFieldBytes: number;
  headersTimeoutMs: number;
  /** The answer for a method that no route of this URL takes (404 or 405 with Allow). */
  refusalFor: (method: string, url: string) => SiphonError;
  /**
   * Logs a refusal, with the request's headers when they could be read, and returns its request id.
   * Never given the parser's error, whose raw packet holds the request's bytes (a key among them).
   */
  refused: (headers: IncomingHttpHeaders | undefined, details: { code: string; status: number; parserCode?: string }) => string;
}

/**
 * What Node's HTTP server answers on its own, before Fastify sees a request (a malformed request
 * line or header, headers over the size bound or too slow, a CONNECT, an Expect it does not
 * understand), answered in Siphon's shape instead: `{"error": …}` with CORS and no-store headers,
 * never echoing the request. Fastify hands `onClientError` the parser's errors; `attach` adds the rest.
 */
export class ConnectionRefusals {
  /** The last request of each connection whose response has not finished. */
  private readonly inFlight = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();
  /** Aborted when the parser finds a request's own body malformed, so its reader answers instead of waiting. */
  private readonly bodyFailures = new WeakMap<IncomingMessage, AbortController>();
  /** The parser reports each later chunk of a failed connection again: one answer is enough. */
  private readonly refused = new WeakSet<Duplex>();

  constructor(private readonly options: RefusalOptions) {}

  attach(server: Server): void {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      this.inFlight.set(socket, { req, res });
      res.once('close', () => {
        if (this.inFlight.get(socket)?.res === res) this.inFlight.delete(socket);
      });
    });
    // Without a listener Node destroys a CONNECT's socket unanswered.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      this.answer(socket, this.options.refusalFor('CONNECT', req.url ?? ''), req.headers);
    });
    // Without a listener Node answers 417 with an empty body.
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      const error = errors.expectationFailed();
      const id = this.options.refused(req.headers, { code: error.code, status: error.status });
      const body = errorBody(error);
      res
        .writeHead(error.status, {
          ...corsHeaders,
          ...errorHeaders(error),
          'content-type': errorContentType,
          'content-length': Buffer.byteLength(body),
          connection: 'close',
          'x-request-id': id,
        })
        .end(body);
    });
  }

  /** Aborts, with the error to answer, if the HTTP parser finds this request's body malformed. */
  bodyFailure(req: IncomingMessage): AbortSignal {
    return this.failureOf(req).signal;
  }

  private failureOf(req: IncomingMessage): AbortController {
    let failure = this.bodyFailures.get(req);
    if (!failure) this.bodyFailures.set(req, (failure = new AbortController()));
    return failure;
  }

  /** Fastify's `clientErrorHandler`: the parser refused what came on `socket`. */
  readonly onClientError = (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (this.refused.has(socket)) return;
    this.refused.add(socket);
    if (err.code === 'ECONNRESET' || socket.destroyed) {
      socket.destroy();
      return;
    }
    const current = this.inFlight.get(socket);
    const error = this.errorFor(err.code, current !== undefined && !current.req.complete);
    if (!current) {
      this.answer(socket, error, undefined, err.code);
      return;
    }
    if (!current.req.complete) {
      // The request being answered has a malformed body: its reader, if any (now or once its route
      // runs), answers it (with `Connection: close`); the connection ends once its response has.
      this.failureOf(current.req).abort(error);
      afterResponse(current.res, () => {
        if (!socket.writableEnded) socket.end();
      });
    } else {
      // A request sent behind one still being answered: its answer follows that one's.
      afterResponse(current.res, () => this.answer(socket, error, undefined, err.code));
    }
  };

  private answer(socket: Duplex, error: SiphonError, headers?: IncomingHttpHeaders, parserCode?: string): void {
    answerAndClose(socket, error, this.options.refused(headers, { code: error.code, status: error.status, parserCode }));
  }

  /** `inBody`: the error is in the body of the request being answered. */
  private errorFor(parserCode: string | undefined, inBody: boolean): SiphonError {
    switch (parserCode) {
      // The client closed its side before the end of what it announced.
      case 'HPE_INVALID_EOF_STATE':
        return inBody ? errors.bodyIncomplete() : errors.malformedRequest();
      case 'HPE_HEADER_OVERFLOW':
        return errors.headersTooLarge(this.options.maxHeaderFieldBytes, this.options.maxHeadBytes);
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        return errors.requestTimeout(this.options.headersTimeoutMs / 1000);
      default:
        return errors.malformedRequest();
    }
  }
}
