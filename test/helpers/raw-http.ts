import net from 'node:net';

/**
 * HTTP/1.1 over a bare socket, for requests fetch() and node:http refuse to send (malformed URLs,
 * methods and headers, broken chunked bodies, truncated requests) and to see exactly what came back.
 */

export interface RawResponse {
  status: number;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Status line, headers and body as received (chunked framing included). */
  raw: Buffer;
}

export interface RawExchange {
  responses: RawResponse[];
  /** What came back is not HTTP: why. */
  unparsable?: string;
  /** The server closed the connection (or reset it) before the responses awaited were complete. */
  closedEarly: boolean;
  /** The socket's error, if any (ECONNRESET…). */
  error?: string;
  /** Everything received, parsed or not. */
  received: Buffer;
}

export interface RawOptions {
  /** Responses to wait for before closing: more than one for pipelined requests. */
  responses?: number;
  /** A HEAD request: its responses have no body whatever their headers say. */
  head?: boolean;
  /** Close the sending side once written (a client that sends nothing more). */
  halfClose?: boolean;
  /** Given up after this long, with what came so far. */
  timeoutMs?: number;
  /** Sent in these pieces, one write each, for requests split across packets. */
  pieces?: number;
}

const headEnd = Buffer.from('\r\n\r\n');

/** The chunked body starting at `from`: its decoded bytes and where it ends, or undefined if incomplete. */
function parseChunked(data: Buffer, from: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size in the response: ${data.subarray(at, lineEnd).toString('latin1')}`);
    at = lineEnd + 2;
    if (size === 0) {
      // No trailers are sent by the server: the last chunk is followed by an empty line.
      if (data.length < at + 2) return undefined;
      return { body: Buffer.concat(parts), end: at + 2 };
    }
    if (data.length < at + size + 2) return undefined;
    parts.push(data.subarray(at, at + size));
    at += size + 2;
  }
}

/**
 * Responses parsed from the start of `data`, and where parsing stopped. `bodyUntilClose`: the
 * connection has closed, so a response without length ends there.
 */
function parseResponses(data: Buffer, head: boolean, bodyUntilClose: boolean): { responses: RawResponse[]; rest: number } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf(headEnd, at);
    if (end === -1) break;
    const [statusLine = '', ...lines] = data.subarray(at, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine.slice(0, 100))}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const bodyStart = end + 4;
    let body: Buffer;
    let next: number;
    if (status < 200 || status === 204 || status === 304 || head) {
      body = Buffer.alloc(0);
      next = bodyStart;
      // An interim response (100 Continue) is not the answer.
      if (status < 200) {
        at = next;
        continue;
      }
    } else if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const chunked = parseChunked(data, bodyStart);
      if (!chunked) break;
      ({ body, end: next } = chunked);
    } else if (headers['content-length'] !== undefined) {
      next = bodyStart + Number(headers['content-length']);
      if (data.length < next) break;
      body = data.subarray(bodyStart, next);
    } else {
      if (!bodyUntilClose) break;
      next = data.length;
      body = data.subarray(bodyStart);
    }
    responses.push({ status, headers, body, raw: data.subarray(at, next) });
    at = next;
  }
  return { responses, rest: at };
}

/** Sends `request` as it is on a new connection to 127.0.0.1:`port` and reads what comes back. */
export function rawExchange(port: number, request: Buffer | string, options: RawOptions = {}): Promise<RawExchange> {
  const wanted = options.responses ?? 1;
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const received = Buffer.concat(chunks);
      try {
        const { responses } = parseResponses(received, options.head ?? false, closed);
        resolve({ responses, closedEarly: closed && responses.length < wanted, error, received });
      } catch (err) {
        resolve({ responses: [], unparsable: (err as Error).message, closedEarly: closed, error, received });
      }
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      try {
        if (parseResponses(Buffer.concat(chunks), options.head ?? false, false).responses.length >= wanted) finish(false);
      } catch {
        finish(false);
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      const pieces = Math.max(1, Math.min(options.pieces ?? 1, bytes.length));
      const size = Math.ceil(bytes.length / pieces);
      for (let i = 0; i < bytes.length; i += size) socket.write(bytes.subarray(i, i + size));
      if (options.halfClose) socket.end();
    });
  });
}
