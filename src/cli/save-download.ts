import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CommandFailed } from './command-failed.js';
import type { CliIo } from './io.js';
import { bodyOf, cutShort } from './remote.js';
import { byteSize } from '../utils/byte-size.js';

/** Counts the bytes going through, and redraws a progress line on a terminal at most 4 times a second. */
function progress(io: CliIo, total: number | undefined): Transform & { bytes(): number; finish(): void } {
  const started = performance.now();
  let bytes = 0;
  let drawn = 0;
  const draw = () => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? bytes / seconds : 0;
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

/**
 * Writes the response's body to `target` under a temporary name beside it, renamed to `target`
 * only once the whole body has arrived: a download cut short (the server gone, the body incomplete,
 * Ctrl-C, which aborts `signal`) never leaves a file under the final name, and removes its temporary file.
 * Resolves with the bytes written.
 */
export async function saveBody(io: CliIo, response: Response, target: string, signal: AbortSignal): Promise<number> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`);
  // The length of a compressed body is not that of the bytes written.
  const length = response.headers.has('content-encoding') ? null : response.headers.get('content-length');
  const counter = progress(io, length === null ? undefined : Number(length));
  try {
    await pipeline(bodyOf(response), counter, createWriteStream(temporary, { flags: 'wx' }), { signal });
    counter.finish();
    await rename(temporary, target);
    return counter.bytes();
  } catch (err) {
    if (io.stderrIsTTY) io.stderr('\n');
    await rm(temporary, { force: true });
    if (signal.aborted) throw new CommandFailed('interrupted: nothing was saved');
    if ((err as NodeJS.ErrnoException).syscall !== undefined && (err as NodeJS.ErrnoException).path !== undefined)
      throw new CommandFailed(`cannot write ${target}: ${(err as Error).message}`);
    throw cutShort(err);
  }
}
