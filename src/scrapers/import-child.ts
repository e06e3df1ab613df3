/**
 * A process that imports one database file and exits. The server imports uploaded files here, not
 * on its main thread: checking a large file takes long enough to stall every request, a crafted file
 * is untrusted input for SQLite, like untrusted SQL, and only killing a process stops a check that
 * would never end.
 */
import { SiphonError } from '../errors.js';
import { importDataFile } from './data-file.js';
import type { ImportReply, ImportRequest } from './import-process.js';

process.once('message', (request: ImportRequest) => {
  // Every failure is turned into a reply by the second handler: nothing is left to reject.
  void importDataFile(request.source, request.target)
    .then(
      (data): ImportReply => ({ ok: true, data }),
      (err: unknown): ImportReply =>
        err instanceof SiphonError
          ? { ok: false, error: { code: err.code, status: err.status, message: err.message } }
          : { ok: false, error: { message: err instanceof Error ? err.message : String(err) } },
    )
    .then((reply) => process.send!(reply, () => process.exit(0)));
});
