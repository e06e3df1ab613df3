import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CodedBody } from '../pool/coded-body.js';

export type StreamOutcome =
  /** Every byte was handed to the client; `bytes` counts the body as sent, in its coding. */
  | { kind: 'complete'; bytes: number }
  /** Failed before the first byte: nothing was sent, so a proper error response can still be. */
  | { kind: 'failed-before-start'; error: Error }
  /** Cut short after the first byte: by the source failing, or the client leaving or not reading. */
  | { kind: 'cut'; bytes: number; error?: Error; reason: CutReason };

/** The largest first chunk held back in the hope the body is all there is (see `mayHold`). */
const wholeBodyBytes = 64 * 1024;

type CutReason = 'source-failed' | 'client-gone' | 'client-idle' | 'too-long';

export interface StreamLimits {
  /** A client that takes no bytes for this long while the response waits on it is dropped. */
  idleTimeoutMs: number;
  /** A response still going after this long is cut short, however fast or slow its client. */
  maxResponseMs: number;
}

/**
 * Called once the whole body is known to be complete, just before its last bytes are written: what
 * must be kept for every answered response (its download) is kept before the client can have it.
 * The last bytes wait for the promise it returns.
 */
export type BeforeEnd = (bytes: number) => Promise<void> | undefined;

/**
 * Sends a body, in its coding (pool/coded-body.ts), as the response's with end-to-end backpressure.
 *
 * Headers are written with the first chunk, so a source that fails before producing anything still
 * gets a real error status. After the first byte the status cannot change: a failing source makes
 * us destroy the socket, so a chunked body lacks its final chunk (and a sized one is short) and the
 * client can tell it is incomplete. If the client goes away, the body is destroyed (which kills a
 * running query). A client that takes no bytes for `idleTimeoutMs` is dropped, and a response is
 * cut after `maxResponseMs` whatever happens: nothing holds a response for ever.
 *
 * A body compressed as it is sent gets backpressure all the same (a paused client fills its
 * compressor, which pauses its source), and every rule above holds for it (a failure destroys the
 * socket rather than finishing the compressed stream).
 *
 * `status` and `headers` are the response's (200, or 206 for a range of a file); `headers` are added
 * to (its length, for a body sent in one write). `beforeEnd` runs when the body is complete, and the
 * write that ends it waits for it (a sized body's last chunk too; for a HEAD, the headers wait). The body's `sent` is called with each chunk once the socket is done with it
 * (its memory may be used again), or has failed: never for a chunk not written.
 */
export function streamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  coded: CodedBody,
  status: number,
  headers: OutgoingHttpHeaders,
  limits: StreamLimits,
  beforeEnd?: BeforeEnd,
): Promise<StreamOutcome> {
  return new ResponseStream(request, reply, coded, status, headers, limits, beforeEnd).outcome;
}

/**
 * Calls `onIdle` once the client has taken nothing for `idleMs`: what the socket still holds for
 * the kernel has to shrink at least once per idle period. (socket.bytesWritten would not do: it
 * counts queued bytes as written.) The interval it returns is the watch, cleared to stop it.
 */
function watchIdle(res: ServerResponse, idleMs: number, onIdle: () => void): NodeJS.Timeout {
  let lastQueued = res.socket?.writableLength ?? 0;
  let lastProgress = Date.now();
  return setInterval(
    () => {
      const queued = res.socket?.writableLength ?? 0;
      if (queued !== lastQueued) {
        lastQueued = queued;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress >= idleMs) {
        onIdle();
      }
    },
    Math.max(10, Math.floor(idleMs / 10)),
  );
}

/** One response being streamed: the body's events in, the socket's writes out, until its outcome. */
class ResponseStream {
  readonly outcome: Promise<StreamOutcome>;
  private resolve!: (outcome: StreamOutcome) => void;
  private readonly res: ServerResponse;
  private started = false;
  private settled = false;
  /** The body's bytes so far, as sent (in its coding). */
  private bytes = 0;
  /**
   * A small first chunk of a body not compressed as it is sent waits for one turn of the event loop:
   * when the end comes with it (a small query's whole answer arrives in one read), the response is
   * one write with a `Content-Length` rather than a chunked header, body and end; a HEAD: at once.
   */
  private readonly mayHold: boolean;
  private held: Buffer | undefined;
  private last: Buffer | undefined; // a sized body's last chunk, sent with its end (`completesLength`)
  private idleTimer: NodeJS.Timeout | undefined;
  private lifetime: NodeJS.Timeout | undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly coded: CodedBody,
    private readonly status: number,
    private readonly headers: OutgoingHttpHeaders,
    private readonly limits: StreamLimits,
    private readonly beforeEnd: BeforeEnd | undefined,
  ) {
    this.res = reply.raw;
    this.mayHold = !coded.compressedAsSent && request.method !== 'HEAD';
    this.outcome = new Promise((resolve) => (this.resolve = resolve));
    coded.stream.on('data', this.onData).on('end', this.onEnd).on('error', this.onError);
    this.res.on('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.bytes += chunk.length;
    if (!this.started && this.mayHold && this.held === undefined && chunk.length <= wholeBodyBytes) {
      this.held = chunk;
      setImmediate(this.sendHeld);
      return;
    }
    if (!this.started) this.start();
    if (this.settled) return;
    if (this.held) {
      const first = this.held;
      this.res.write(first, () => this.coded.sent(first)); // the write after it says whether to wait
      this.held = undefined;
    }
    if (this.completesLength()) this.last = chunk;
    else this.write(chunk);
  };

  /** All a sized body's bytes are here: the last chunk goes with the end, after the download is kept, as a chunked body's end does. */
  private completesLength(): boolean {
    return this.headers['content-length'] !== undefined && this.bytes === Number(this.headers['content-length']);
  }

  /** Nothing more came before the event loop turned: the body is streamed from here on. */
  private readonly sendHeld = (): void => {
    if (this.started || this.settled || this.held === undefined || this.completesLength()) return;
    this.start();
    this.write(this.held);
    this.held = undefined;
  };

  private readonly onEnd = (): void => {
    if (this.settled) return;
    if (!this.started && this.mayHold) return this.sendWhole();
    if (!this.started) this.start();
    if (this.settled) return; // a HEAD, answered by its headers
    const { last } = this;
    const done = () => {
      if (last) this.coded.sent(last);
      this.settle({ kind: 'complete', bytes: this.bytes });
    };
    this.afterKept(this.beforeEnd?.(this.bytes), () => (last ? this.res.end(last, done) : this.res.end(done)));
  };

  private readonly onError = (error: Error): void => {
    if (this.started) this.cut('source-failed', error);
    else this.settle({ kind: 'failed-before-start', error });
  };

  private readonly onClose = (): void => {
    if (!this.res.writableFinished) this.cut('client-gone');
  };

  /** Writes the headers; with `length`, the whole body's (it is sent in one write, not chunked). */
  private start(length?: number): void {
    this.started = true;
    // A whole body's lifetime is limited once written, and only if the kernel has not taken it all.
    if (length === undefined) this.limitLifetime();
    this.reply.hijack();
    if (length !== undefined) this.headers['content-length'] = length;
    this.res.writeHead(this.status, this.headers);
    if (this.request.method === 'HEAD') {
      // Headers are all a HEAD asks for: stop the query rather than stream a body nobody gets.
      const kept = this.beforeEnd?.(0);
      this.settle({ kind: 'complete', bytes: 0 });
      this.afterKept(kept, () => this.res.end());
    }
  }

  /** The whole body came with its end: one write, headers and all, with its length. */
  private sendWhole(): void {
    const whole = this.held ?? Buffer.alloc(0);
    this.held = undefined;
    this.start(whole.length);
    this.afterKept(this.beforeEnd?.(this.bytes), () => {
      this.res.end(whole, () => {
        this.coded.sent(whole);
        this.settle({ kind: 'complete', bytes: this.bytes });
      });
      // Most often every byte is the kernel's now, and no timer is needed (one fewer per small answer).
      if (this.res.writableLength > 0 && !this.settled) this.limitLifetime();
    });
  }

  /** Writes a chunk; while the client is behind, the body waits and the client is watched. */
  private write(chunk: Buffer): void {
    if (this.res.write(chunk, () => this.coded.sent(chunk))) return;
    const body = this.coded.stream;
    body.pause();
    this.idleTimer = watchIdle(this.res, this.limits.idleTimeoutMs, () => this.cut('client-idle'));
    this.res.once('drain', () => {
      clearInterval(this.idleTimer);
      // Resuming from setImmediate, not in 'drain' itself: 'drain' can fire from nextTick and a
      // pump resumed there starves the event loop (measured: other requests got no answer for the
      // whole 2.6 s of a 1M-row stream).
      setImmediate(() => body.resume());
    });
  }

  /** Ends the response once `kept` (beforeEnd's promise) is, unless it was cut meanwhile. */
  private afterKept(kept: Promise<void> | undefined, end: () => void): void {
    if (!kept) end();
    else void kept.then(() => (this.res.destroyed ? undefined : end()));
  }

  /** Counted from the first byte: before it, the queue and query time limits bound the wait. */
  private limitLifetime(): void {
    this.lifetime = setTimeout(() => this.cut('too-long'), this.limits.maxResponseMs);
  }

  private cut(reason: CutReason, error?: Error): void {
    this.settle({ kind: 'cut', bytes: this.bytes, error, reason });
    this.res.destroy();
  }

  private settle(outcome: StreamOutcome): void {
    if (this.settled) return;
    this.settled = true;
    clearInterval(this.idleTimer);
    clearTimeout(this.lifetime);
    const body = this.coded.stream;
    body.off('data', this.onData).off('end', this.onEnd).off('error', this.onError);
    // A stream destroyed after this point has no one left to tell.
    body.on('error', () => {});
    body.destroy(); // finished, or abandoned: either way what made it (a query, a compressor's zlib memory) can go now
    this.res.off('close', this.onClose);
    this.resolve(outcome);
  }
}
