import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
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
 * `headers` are the response's, and are added to (its length, for a body sent in one write).
 * `beforeEnd` runs when the body is complete, and the write that ends it waits for it (for a HEAD,
 * the headers wait). The body's `sent` is called with each chunk once the socket is done with it
 * (its memory may be used again), or has failed: never for a chunk not written.
 */
export function streamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  coded: CodedBody,
  headers: OutgoingHttpHeaders,
  limits: StreamLimits,
  beforeEnd?: BeforeEnd,
): Promise<StreamOutcome> {
  const { idleTimeoutMs, maxResponseMs } = limits;
  const { stream: body, sent } = coded;
  return new Promise((resolve) => {
    const res = reply.raw;
    let started = false;
    let settled = false;
    let bytes = 0;
    /**
     * A small first chunk of an uncompressed body waits for one turn of the event loop: when the end
     * comes with it (a small query's whole answer arrives in one read), the response is one write with
     * a `Content-Length` rather than a chunked header, body and end. Bodies compressed as they are
     * sent stay chunked. A HEAD sends its headers at the first chunk.
     */
    const mayHold = !coded.compressedAsSent && request.method !== 'HEAD';
    let held: Buffer | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    let lifetime: NodeJS.Timeout | undefined;

    const settle = (outcome: StreamOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(idleTimer);
      clearTimeout(lifetime);
      body.off('data', count).off('data', onData).off('end', onEnd).off('error', onError);
      // A stream destroyed after this point has no one left to tell.
      body.on('error', () => {});
      body.destroy(); // finished, or abandoned: either way what made it (a query, a compressor's zlib memory) can go now
      res.off('close', onClose);
      resolve(outcome);
    };
    const cut = (reason: CutReason, error?: Error) => {
      settle({ kind: 'cut', bytes, error, reason });
      res.destroy();
    };
    /** Counted from the first byte: before it, the queue and query time limits bound the wait. */
    const limitLifetime = () => {
      lifetime = setTimeout(() => cut('too-long'), maxResponseMs);
    };
    /** Writes the headers; with `length`, the whole body's (it is sent in one write, not chunked). */
    const start = (length?: number) => {
      started = true;
      // A whole body's lifetime is limited once written, and only if the kernel has not taken it all.
      if (length === undefined) limitLifetime();
      reply.hijack();
      if (length !== undefined) headers['content-length'] = length;
      res.writeHead(200, headers);
      if (request.method === 'HEAD') {
        // Headers are all a HEAD asks for: stop the query rather than stream a body nobody gets.
        const kept = beforeEnd?.(0);
        settle({ kind: 'complete', bytes: 0 });
        afterKept(kept, () => res.end());
      }
    };
    /** Ends the response once `kept` (beforeEnd's promise) is, unless it was cut meanwhile. */
    const afterKept = (kept: Promise<void> | undefined, end: () => void) => {
      if (!kept) end();
      else void kept.then(() => (res.destroyed ? undefined : end()));
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
    };
    const onData = (chunk: Buffer) => {
      if (!started && mayHold && held === undefined && chunk.length <= wholeBodyBytes) {
        held = chunk;
        setImmediate(sendHeld);
        return;
      }
      if (!started) start();
      if (settled) return;
      if (held) {
        const first = held;
        res.write(first, () => sent(first)); // the write after it says whether to wait
        held = undefined;
      }
      write(chunk);
    };
    // Nothing more came before the event loop turned: the body is streamed from here on.
    const sendHeld = () => {
      if (started || settled || held === undefined) return;
      start();
      write(held);
      held = undefined;
    };
    const write = (chunk: Buffer) => {
      if (!res.write(chunk, () => sent(chunk))) {
        body.pause();
        watchIdle();
        res.once('drain', () => {
          clearInterval(idleTimer);
          // Resuming from setImmediate, not in 'drain' itself: 'drain' can fire from nextTick and a
          // pump resumed there starves the event loop (measured: other requests got no answer for the
          // whole 2.6 s of a 1M-row stream).
          setImmediate(() => body.resume());
        });
      }
    };
    // While we wait for the client, it must keep taking bytes: what the socket still holds for the
    // kernel has to shrink at least once per idle period. (socket.bytesWritten would not do: it
    // counts queued bytes as written.)
    const watchIdle = () => {
      let lastQueued = res.socket?.writableLength ?? 0;
      let lastProgress = Date.now();
      idleTimer = setInterval(
        () => {
          const queued = res.socket?.writableLength ?? 0;
          if (queued !== lastQueued) {
            lastQueued = queued;
            lastProgress = Date.now();
          } else if (Date.now() - lastProgress >= idleTimeoutMs) {
            cut('client-idle');
          }
        },
        Math.max(10, Math.floor(idleTimeoutMs / 10)),
      );
    };
    const onEnd = () => {
      if (settled) return;
      if (!started && mayHold) {
        // The whole body is here: one write, headers and all, with its length.
        const body = held ?? Buffer.alloc(0);
        held = undefined;
        start(body.length);
        afterKept(beforeEnd?.(bytes), () => {
          res.end(body, () => {
            sent(body);
            settle({ kind: 'complete', bytes });
          });
          // Most often every byte is the kernel's now, and no timer is needed (one fewer per small answer).
          if (res.writableLength > 0 && !settled) limitLifetime();
        });
        return;
      }
      if (!started) start();
      if (settled) return; // a HEAD, answered by its headers
      afterKept(beforeEnd?.(bytes), () => res.end(() => settle({ kind: 'complete', bytes })));
    };
    const onError = (error: Error) => {
      if (started) cut('source-failed', error);
      else settle({ kind: 'failed-before-start', error });
    };
    const onClose = () => {
      if (!res.writableFinished) cut('client-gone');
    };

    body.on('data', count).on('data', onData).on('end', onEnd).on('error', onError);
    res.on('close', onClose);
  });
}
