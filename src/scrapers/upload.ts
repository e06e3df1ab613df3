import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors, SiphonError } from '../errors.js';
import { boundedBody, type BodyLimits } from '../limits/bounded-body.js';
import { isDiskFull } from './data-file.js';
import { newUploadFile, removeDatabaseFile } from './temp-files.js';

/** The bounds of a published body; past `maxBytes` it is refused with 413 SIPHON_ERR_DATA_TOO_LARGE. */
export type UploadLimits = Omit<BodyLimits, 'tooLarge'>;

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
    await pipeline(boundedBody(body, bounds, counter, signal), createWriteStream(file, { flags: 'wx' }));
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
