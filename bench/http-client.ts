/**
 * The bench's own HTTP client (node:http), for exports and for requests one after the other. The
 * servers are other processes, so it runs on the bench's main thread.
 */
import http from 'node:http';
import zlib from 'node:zlib';

export interface Answer {
  status: number;
  /** Request sent → last body byte. */
  ms: number;
  /** Request sent → first body byte (-1 when there was no body). */
  ttfbMs: number;
  /** Bytes on the wire (compressed, for a compressed body). */
  bytes: number;
  /** The body ended properly (not cut short). */
  complete: boolean;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  /** The body, for small answers only (`keepBody` characters at most). */
  body: string;
  error?: string;
}

export type ExportAnswer = Answer & { newlines: number };

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n += 1;
  return n;
}

/**
 * One GET. A compressed body is kept as it came and decompressed only after its last byte, to count
 * its lines: decompressing while timing would charge the client's work to the server on 2 cores.
 */
function get(
  url: string,
  o: { agent: http.Agent | false; headers?: Record<string, string>; keepBody?: number; countLines?: boolean },
): Promise<ExportAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let ttfbMs = -1;
    let bytes = 0;
    let newlines = 0;
    let body = '';
    const compressed: Buffer[] = [];
    let settled = false;
    const done = (res: http.IncomingMessage | undefined, complete: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      const ms = performance.now() - started;
      const coding = res?.headers['content-encoding'];
      if (o.countLines && coding && complete) {
        const whole = Buffer.concat(compressed);
        const plain = coding === 'br' ? zlib.brotliDecompressSync(whole) : zlib.gunzipSync(whole);
        newlines = countNewlines(plain);
      }
      resolve({
        status: res?.statusCode ?? 0,
        ms,
        ttfbMs,
        bytes,
        newlines,
        complete,
        body,
        headers: res?.headers ?? {},
        rawHeaders: res?.rawHeaders ?? [],
        ...(error ? { error } : {}),
      });
    };
    const req = http.get(url, { agent: o.agent, headers: o.headers }, (res) => {
      const coding = res.headers['content-encoding'];
      res.on('data', (chunk: Buffer) => {
        if (ttfbMs < 0) ttfbMs = performance.now() - started;
        bytes += chunk.length;
        if (o.countLines) {
          if (coding) compressed.push(chunk);
          else newlines += countNewlines(chunk);
        }
        if (o.keepBody && body.length < o.keepBody) body += chunk.toString('utf8', 0, Math.min(chunk.length, o.keepBody - body.length));
      });
      res.on('end', () => done(res, res.complete));
      res.on('error', (err) => done(res, false, err.message));
      // After 'end' this changes nothing; without it, the body was cut short.
      res.on('close', () => done(res, false, 'connection closed before the end of the body'));
    });
    req.on('error', (err) => done(undefined, false, err.message));
  });
}

/** A whole export on a connection of its own, its lines counted. */
export function exportOnce(url: string, coding: 'identity' | 'gzip' | 'br'): Promise<ExportAnswer> {
  return get(url, { agent: false, headers: { 'accept-encoding': coding }, countLines: true });
}

/**
 * Requests one after the other on one keep-alive connection of their own: a connection kept from an
 * earlier step could have been closed by the server while the bench's thread was busy (its own
 * in-process queries), and the next request sent on it would fail.
 */
export async function chain(urls: string[], keepBody = 400): Promise<(Answer & { startMs: number; endMs: number })[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = performance.now();
  const steps = [];
  try {
    for (const url of urls) {
      const startMs = performance.now() - t0;
      const r = await get(url, { agent, keepBody });
      steps.push({ ...r, startMs, endMs: performance.now() - t0 });
    }
  } finally {
    agent.destroy();
  }
  return steps;
}
