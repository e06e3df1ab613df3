import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { errors, SiphonError } from '../errors.js';
import { boundedBody, type BodyLimits } from '../limits/bounded-body.js';
import { takesReserve } from '../limits/disk-reserve.js';
import { isDiskFull } from './data-file.js';
import { newUploadFile, removeDatabaseFile } from './temp-files.js';

/**
 * The bounds of a published body; past `maxBytes` it is refused with 413 SIPHON_ERR_DATA_TOO_LARGE,
 * and with 507 SIPHON_ERR_STORAGE_FULL once it and its import's copy would take the disk's reserve.
 */
export type UploadLimits = Omit<BodyLimits, 'tooLarge'> & { diskReserveBytes: number };

/** The bounds of a publish, PUT's and the web form's. */
export function uploadLimits(config: Config): UploadLimits {
  return { maxBytes: config.maxPublishBytes, idleMs: config.clientIdleTimeoutMs, diskReserveBytes: config.diskReserveBytes };
}

/** The disk's free space is looked at each time this much more of the body has come. */
const reserveLookBytes = 1024 * 1024;

/**
 * The body's chunks, failing with storageFull as soon as what has come, written twice (the upload,
 * then its import's copy, about as large), would leave less than the reserve free on the disk of `dir`.
 */
async function* keepingReserve(chunks: AsyncIterable<Buffer>, dir: string, reserveBytes: number): AsyncGenerator<Buffer> {
  let bytes = 0;
  let lookAt = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes >= lookAt) {
      // The part written so far is already off the free space: the copy's part is not yet.
      if (takesReserve(dir, reserveBytes, bytes)) throw errors.storageFull();
      lookAt = bytes + reserveLookBytes;
    }
    yield chunk;
  }
}

/**
 * Streams an uploaded database into a temporary file in `dir` (never into memory), hands the file
 * to `use`, and deletes it afterwards, whatever happens. An empty body is refused. Messages that
 * name the temporary file name the request body instead: the server's paths are none of the
 * client's business. `signal` stops the upload, failing with its reason.
 */
export async function withUploadedFile<T>(
  body: Readable,
  dir: string,
  limits: UploadLimits,
  use: (file: string) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const file = newUploadFile(dir);
  const counter = { bytes: 0 };
  const bounds = { ...limits, tooLarge: () => errors.dataTooLarge(limits.maxBytes) };
  try {
    const chunks = keepingReserve(boundedBody(body, bounds, counter, signal), dir, limits.diskReserveBytes);
    await pipeline(chunks, createWriteStream(file, { flags: 'wx' }));
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
