import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export type StreamOutcome =
  /** Every byte was handed to the client. */
  | { kind: 'complete'; bytes: number }
  /** Failed before the first byte: nothing was sent, so a proper error response can still be. */
  | { kind: 'failed-before-start'; error: Error }
  /** Cut short after the first byte: by the source failing, or the client leaving or not reading. */
  | { kind: 'cut'; bytes: number; error?: Error; reason: 'source-failed' | 'client-gone' | 'client-idle' };

/**
 * Sends a stream of encoded bytes as the response body with end-to-end backpressure.
 *
 * Headers are written with the first chunk, so a source that fails before producing anything still
 * gets a real error status. After the first byte the status cannot change: a failing source makes
 * us destroy the socket, so a chunked body lacks its final chunk (and a sized one is short) and the
 * client can tell it is incomplete. If the client goes away, the source is destroyed (which kills a
 * running query). A client that takes no bytes for `idleTimeoutMs` is dropped.
 */
export function streamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  source: Readable,
  headers: OutgoingHttpHeaders,
  idleTimeoutMs: number,
): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const res = reply.raw;
    let started = false;
    let settled = false;
    let bytes = 0;
    let idleTimer: NodeJS.Timeout | undefined;

    const settle = (outcome: StreamOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(idleTimer);
      source.off('data', onData).off('end', onEnd).off('error', onError);
      source.on('error', () => {}); // a source destroyed after this point has no one left to tell
      res.off('close', onClose);
      resolve(outcome);
    };
    const cut = (reason: 'source-failed' | 'client-gone' | 'client-idle', error?: Error) => {
      settle({ kind: 'cut', bytes, error, reason });
      source.destroy();
      res.destroy();
    };
    const start = () => {
      started = true;
      reply.hijack();
      res.writeHead(200, headers);
      if (request.method === 'HEAD') {
        // Headers are all a HEAD asks for: stop the query rather than stream a body nobody gets.
        settle({ kind: 'complete', bytes: 0 });
        source.destroy();
        res.end();
      }
    };
    const onData = (chunk: Buffer) => {
      if (!started) start();
      if (settled) return;
      bytes += chunk.length;
      if (!res.write(chunk)) {
        source.pause();
        watchIdle();
        res.once('drain', () => {
          clearInterval(idleTimer);
          // Resuming from setImmediate, not in 'drain' itself: 'drain' can fire from nextTick and a
          // pump resumed there starves the event loop (measured: notes, section 6).
          setImmediate(() => source.resume());
        });
      }
    };
    // While we wait for the client, it must keep taking bytes: what the socket still holds for the
    // kernel has to shrink at least once per idle period. (socket.bytesWritten would not do: it
    // counts queued bytes as written.)
    const watchIdle = () => {
      let lastQueued = res.socket?.writableLength ?? 0;
      let lastProgress = Date.now();
      idleTimer = setInterval(() => {
        const queued = res.socket?.writableLength ?? 0;
        if (queued !== lastQueued) {
          lastQueued = queued;
          lastProgress = Date.now();
        } else if (Date.now() - lastProgress >= idleTimeoutMs) {
          cut('client-idle');
        }
      }, Math.max(10, Math.floor(idleTimeoutMs / 10)));
    };
    const onEnd = () => {
      if (!started) start();
      if (settled) return;
      res.end(() => settle({ kind: 'complete', bytes }));
    };
    const onError = (error: Error) => {
      if (started) cut('source-failed', error);
      else settle({ kind: 'failed-before-start', error });
    };
    const onClose = () => {
      if (!res.writableFinished) cut('client-gone');
    };

    source.on('data', onData).on('end', onEnd).on('error', onError);
    res.on('close', onClose);
  });
}
