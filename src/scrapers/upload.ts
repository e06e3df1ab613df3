import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors, SiphonError } from '../errors.js';
import { isDiskFull } from './data-file.js';
import { newUploadFile, removeDatabaseFile } from './temp-files.js';

export interface UploadLimits {
  /** More than this is refused (413) as soon as it has come. */
  maxBytes: number;
  /** A client that sends nothing for this long mid-body is dropped, or it would hold its connection and file for ever. */
  idleMs: number;
}

/** A promise that rejects with the signal's reason when it aborts; `off` forgets the signal. */
function abortion(signal: AbortSignal | undefined): { promise: Promise<never>; off: () => void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => { onAbort = () => reject(signal!.reason); });
  promise.catch(() => {}); // it may reject while nobody awaits it
  signal?.addEventListener('abort', onAbort, { once: true });
  return { promise, off: () => signal?.removeEventListener('abort', onAbort) };
}

/**
 * The body's chunks, failing once more than `maxBytes` have come, or when `signal` aborts, even
 * while waiting for a chunk. The body is not destroyed when reading stops early: destroying a
 * request destroys its socket, and the client is still owed an answer (413, 503).
 */
async function* limited(
  body: Readable, limits: UploadLimits, counter: { bytes: number }, signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  signal?.throwIfAborted();
  const idle = setTimeout(() => {
    body.destroy(errors.badRequest(408, `No bytes of the request body came for ${limits.idleMs / 1000} s.`));
  }, limits.idleMs);
  const aborted = abortion(signal);
  const chunks = body.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
  const read = () => Promise.race([chunks.next(), aborted.promise]);
  try {
    for (let next = await read(); !next.done; next = await read()) {
      idle.refresh();
      counter.bytes += next.value.length;
      if (counter.bytes > limits.maxBytes) throw errors.dataTooLarge(limits.maxBytes);
      yield next.value;
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    // Otherwise the client went away mid-body.
    throw err instanceof SiphonError ? err : errors.badRequest(400, 'The request body ended before it was complete.');
  } finally {
    clearTimeout(idle);
    aborted.off();
  }
}

/**
 * Streams an uploaded database into a temporary file in `dir` (never into memory), hands the file
 * to `use`, and deletes it afterwards, whatever happens. An empty body is refused. Messages that
 * name the temporary file name the request body instead: the server's paths are none of the
 * client's business. `signal` stops the upload, failing with its reason.
 */
export async function withUploadedFile<T>(
  body: Readable, dir: string, limits: UploadLimits, use: (file: string) => Promise<T>, signal?: AbortSignal,
): Promise<T> {
  const file = newUploadFile(dir);
  const counter = { bytes: 0 };
  try {
    await pipeline(limited(body, limits, counter, signal), createWriteStream(file, { flags: 'wx' }));
    if (counter.bytes === 0) throw errors.dataInvalid('The request body is empty: send the SQLite database file as the body.');
    return await use(file);
  } catch (err) {
    if (isDiskFull(err)) throw errors.storageFull();
    throw err instanceof SiphonError && err.message.includes(file)
      ? new SiphonError(err.code, err.status, err.message.replaceAll(file, 'The request body'))
      : err;
  } finally {
    // SQLite opens a database uploaded in WAL mode with -wal and -shm files beside it, even read-only.
    await removeDatabaseFile(file);
  }
}
