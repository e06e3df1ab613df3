import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CommandFailed } from './command-failed.js';
import type { CliIo } from './io.js';
import { bodyOf, cutShort } from './remote.js';
import { byteSize } from '../utils/byte-size.js';

/**
 * Counts the bytes going through, after the `from` a file already holds, and redraws a progress
 * line on a terminal at most 4 times a second.
 */
function progress(io: CliIo, total: number | undefined, from: number): Transform & { bytes(): number; finish(): void } {
  const started = performance.now();
  let bytes = from;
  let drawn = 0;
  const draw = () => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? (bytes - from) / seconds : 0;
    const left = total !== undefined && rate > 0 ? `, ${Math.ceil((total - bytes) / rate)} s left` : '';
    const of = total !== undefined ? ` of ${byteSize(total)}` : '';
    io.stderr(`\r\x1b[K${byteSize(bytes)}${of}, ${byteSize(rate)}/s${left}`);
  };
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      const now = performance.now();
      if (io.stderrIsTTY && now - drawn >= 250) {
        drawn = now;
        draw();
      }
      done(null, chunk);
    },
  });
  return Object.assign(counter, {
    bytes: () => bytes,
    finish: () => {
      if (!io.stderrIsTTY) return;
      draw();
      io.stderr('\n');
    },
  });
}

/** A resumable download's temporary file (resumable-download.ts): kept when the download is cut short. */
export interface PartFile {
  path: string;
  /** The bytes it holds already, which the response's body continues; 0 for a new one. */
  from: number;
}

/**
 * Writes the response's body to `target` under a temporary name beside it, renamed to `target`
 * only once the whole body has arrived: a download cut short (the server gone, the body incomplete,
 * Ctrl-C, which aborts `signal`) never leaves a file under the final name. It removes its temporary
 * file, but for a resumable download's (`part`), which it continues and keeps for the next
 * `--resume`. Resolves with the file's bytes.
 */
export async function saveBody(io: CliIo, response: Response, target: string, signal: AbortSignal, part?: PartFile): Promise<number> {
  const temporary = part?.path ?? path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`);
  const from = part?.from ?? 0;
  // The length of a compressed body is not that of the bytes written.
  const length = response.headers.has('content-encoding') ? null : response.headers.get('content-length');
  const counter = progress(io, length === null ? undefined : from + Number(length), from);
  const flags = !part ? 'wx' : from > 0 ? 'a' : 'w';
  try {
    await pipeline(bodyOf(response), counter, createWriteStream(temporary, { flags }), { signal });
    counter.finish();
    await rename(temporary, target);
    return counter.bytes();
  } catch (err) {
    if (io.stderrIsTTY) io.stderr('\n');
    throw await failed(err, target, temporary, part !== undefined, signal);
  }
}

/** Why a download failed, in one line, its temporary file removed unless it is kept to be resumed. */
async function failed(err: unknown, target: string, temporary: string, keep: boolean, signal: AbortSignal): Promise<CommandFailed> {
  let kept = '';
  if (!keep) await rm(temporary, { force: true });
  else {
    const size = await stat(temporary).then(
      (s) => s.size,
      () => 0,
    );
    kept = `; ${byteSize(size)} kept, which download --resume continues`;
  }
  if (signal.aborted) return new CommandFailed(keep ? `interrupted${kept}` : 'interrupted: nothing was saved');
  if ((err as NodeJS.ErrnoException).syscall !== undefined && (err as NodeJS.ErrnoException).path !== undefined)
    return new CommandFailed(`cannot write ${target}: ${(err as Error).message}${kept}`);
  return new CommandFailed(`${cutShort(err).message}${kept}`);
}
