import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SiphonError } from '../errors.js';
import type { DataVersion } from '../store/types.js';

export interface ImportRequest {
  source: string;
  dir: string;
}

export type ImportReply =
  | { ok: true; data: Omit<DataVersion, 'version'> }
  /** `code` and `status` when the file was refused (a SiphonError); only a message when the import broke. */
  | { ok: false; error: { code?: string; status?: number; message: string } };

const childPath = fileURLToPath(new URL('./import-child.js', import.meta.url));

/** `importDataFile`, run in a process of its own (see import-child.ts for why). */
export function importInChildProcess(source: string, dir: string): Promise<Omit<DataVersion, 'version'>> {
  return new Promise((resolve, reject) => {
    const child = fork(childPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let reply: ImportReply | undefined;
    child.once('message', (message: ImportReply) => { reply = message; });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!reply) reject(new Error(`the import process ended (${signal ?? `exit ${code}`}) without an answer`));
      else if (reply.ok) resolve(reply.data);
      else if (reply.error.code) reject(new SiphonError(reply.error.code, reply.error.status!, reply.error.message));
      else reject(new Error(reply.error.message));
    });
    child.send({ source, dir } satisfies ImportRequest);
  });
}
