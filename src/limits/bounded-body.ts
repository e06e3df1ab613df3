import type { Readable } from 'node:stream';
import { errors, SiphonError } from '../errors.js';

export interface BodyLimits {
  /** More than this is refused with `tooLarge()` as soon as it has come. */
  maxBytes: number;
  /** A client that sends nothing for this long mid-body is dropped, or it would hold its connection for ever. */
  idleMs: number;
  /** The error for a body over `maxBytes` (a publish and a query body say it differently). */
  tooLarge: () => SiphonError;
}

/** A promise that rejects with the signal's reason when it aborts; `off` forgets the signal. */
function abortion(signal: AbortSignal | undefined): { promise: Promise<never>; off: () => void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal!.reason);
  });
  promise.catch(() => {}); // it may reject while nobody awaits it
  signal?.addEventListener('abort', onAbort, { once: true });
  return { promise, off: () => signal?.removeEventListener('abort', onAbort) };
}

/**
 * A request body's chunks, failing once more than `maxBytes` have come, when nothing comes for
 * `idleMs` (408), or when `signal` aborts, even while waiting for a chunk. The body is not
 * destroyed when reading stops early: destroying a request destroys its socket, and the client is
 * still owed an answer (413, 408, 503).
 */
export async function* boundedBody(
  body: Readable,
  limits: BodyLimits,
  counter: { bytes: number },
  signal?: AbortSignal,
): AsyncGenerator<Buffer> {
  signal?.throwIfAborted();
  const idle = new AbortController();
  const idleTimer = setTimeout(() => idle.abort(errors.requestTimeout(limits.idleMs / 1000)), limits.idleMs);
  const stop = signal ? AbortSignal.any([signal, idle.signal]) : idle.signal;
  const stopped = abortion(stop);
  const chunks = body.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
  const read = () => Promise.race([chunks.next(), stopped.promise]);
  try {
    for (let next = await read(); !next.done; next = await read()) {
      idleTimer.refresh();
      counter.bytes += next.value.length;
      if (counter.bytes > limits.maxBytes) throw limits.tooLarge();
      yield next.value;
    }
  } catch (err) {
    if (stop.aborted) throw stop.reason;
    // Otherwise the client went away mid-body.
    throw err instanceof SiphonError ? err : errors.bodyIncomplete();
  } finally {
    clearTimeout(idleTimer);
    stopped.off();
  }
}

/** A small body read whole into memory, under the same limits. */
export async function readBoundedBody(body: Readable, limits: BodyLimits, signal?: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of boundedBody(body, limits, { bytes: 0 }, signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
