import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors, SiphonError } from '../errors.js';
import { isDiskFull } from './data-file.js';

export interface UploadLimits {
  /** More than this is refused (413) as soon as it has come. */
  maxBytes: number;
  /** A client that sends nothing for this long mid-body is dropped, or it would hold its connection and file for ever. */
  idleMs: number;
}

/**
 * The body's chunks, failing once more than `maxBytes` have come. The body is not destroyed when
 * reading stops early: destroying a request destroys its socket, and the client is still owed an
 * answer (413).
 */
async function* limited(body: Readable, limits: UploadLimits, counter: { bytes: number }): AsyncGenerator<Buffer> {
  const idle = setTimeout(() => {
    body.destroy(errors.badRequest(408, `No bytes of the request body came for ${limits.idleMs / 1000} s.`));
  }, limits.idleMs);
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      idle.refresh();
      counter.bytes += chunk.length;
      if (counter.bytes > limits.maxBytes) throw errors.dataTooLarge(limits.maxBytes);
      yield chunk;
    }
  } catch (err) {
    // Otherwise the client went away mid-body.
    throw err instanceof SiphonError ? err : errors.badRequest(400, 'The request body ended before it was complete.');
  } finally {
    clearTimeout(idle);
  }
}

/**
 * Streams an uploaded database into a temporary file in `dir` (never into memory), hands the file
 * to `use`, and deletes it afterwards, whatever happens. An empty body is refused. Messages that
 * name the temporary file name the request body instead: the server's paths are none of the
 * client's business.
 */
export async function withUploadedFile<T>(
  body: Readable, dir: string, limits: UploadLimits, use: (file: string) => Promise<T>,
): Promise<T> {
  const file = path.join(dir, `.upload-${randomBytes(8).toString('hex')}.sqlite`);
  const counter = { bytes: 0 };
  try {
    await pipeline(limited(body, limits, counter), createWriteStream(file, { flags: 'wx' }));
    if (counter.bytes === 0) throw errors.dataInvalid('The request body is empty: send the SQLite database file as the body.');
    return await use(file);
  } catch (err) {
    if (isDiskFull(err)) throw errors.storageFull();
    throw err instanceof SiphonError && err.message.includes(file)
      ? new SiphonError(err.code, err.status, err.message.replaceAll(file, 'The request body'))
      : err;
  } finally {
    // SQLite opens a database uploaded in WAL mode with -wal and -shm files beside it, even read-only.
    for (const leftover of [file, `${file}-wal`, `${file}-shm`]) await rm(leftover, { force: true });
  }
}
