import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { CommandFailed } from './command-failed.js';
import type { CliIo } from './io.js';
import { askData, type Remote } from './remote.js';
import { saveBody, type PartFile } from './save-download.js';

/**
 * @module `download --resume`: the SQLite file saved through a temporary file beside the target
 * that outlives an interruption, `.NAME.resume-TAG.part`, TAG being the strong ETag its bytes are
 * of (base64url), so the file says itself which data it holds. The next `--resume` asks for the rest
 * with `Range` and `If-Range: <that ETag>`: the server answers the rest of the same bytes (206,
 * appended), or the whole file when the data changed since (200, written anew). A query's rows
 * cannot be resumed: they are made anew at each call.
 */

/** A temporary file an earlier `--resume` left: where, the ETag its bytes are of, and how many it holds. */
interface KeptPart {
  path: string;
  etag: string;
  size: number;
}

/** An ETag that names the bytes themselves: only such a tag is taken by `If-Range`. */
const isStrong = (etag: string | null): etag is string => etag !== null && /^"[^"]*"$/.test(etag);

const partPrefix = (target: string) => `.${path.basename(target)}.resume-`;
const partSuffix = '.part';

function partPath(target: string, etag: string): string {
  return path.join(path.dirname(target), `${partPrefix(target)}${Buffer.from(etag).toString('base64url')}${partSuffix}`);
}

/** The temporary file an earlier `--resume` of `target` left; the largest when there are several, the others removed. */
async function keptPart(target: string): Promise<KeptPart | undefined> {
  const folder = path.dirname(target);
  const prefix = partPrefix(target);
  const names = await readdir(folder).catch(() => []);
  const parts: KeptPart[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(partSuffix)) continue;
    const etag = Buffer.from(name.slice(prefix.length, -partSuffix.length), 'base64url').toString();
    const file = path.join(folder, name);
    const info = await stat(file).catch(() => undefined);
    if (isStrong(etag) && info?.isFile()) parts.push({ path: file, etag, size: info.size });
  }
  parts.sort((a, b) => b.size - a.size);
  for (const other of parts.slice(1)) await rm(other.path, { force: true });
  return parts[0];
}

/** The number `pattern` finds in the response's `Content-Range`. */
function contentRangeNumber(response: Response, pattern: RegExp): number | undefined {
  const found = pattern.exec(response.headers.get('content-range') ?? '')?.[1];
  return found === undefined ? undefined : Number(found);
}

/**
 * Saves the SQLite file to `target`, continuing what an earlier interrupted `--resume` of it kept,
 * and keeping what this one gets if it is interrupted in turn. Resolves with the file's size and the
 * bytes it began from (0 when it began anew).
 */
export async function saveResumable(
  io: CliIo,
  remote: Remote,
  target: string,
  signal: AbortSignal,
): Promise<{ bytes: number; resumedFrom: number }> {
  const kept = await keptPart(target);
  const range = kept && kept.size > 0 ? { Range: `bytes=${kept.size}-`, 'If-Range': kept.etag } : undefined;
  let response = await askData(remote, 'sqlite', { dl: '1' }, signal, range);
  if (kept && response.status === 416) {
    // Nothing after what is kept, which is of the current data (If-Range held): complete if it is as long as the file.
    await response.body?.cancel();
    if (contentRangeNumber(response, /^bytes \*\/(\d+)$/) === kept.size) {
      await rename(kept.path, target);
      return { bytes: kept.size, resumedFrom: kept.size };
    }
    await rm(kept.path, { force: true });
    response = await askData(remote, 'sqlite', { dl: '1' }, signal);
  }
  if (kept && response.status === 206) {
    if (contentRangeNumber(response, /^bytes (\d+)-/) !== kept.size) {
      await response.body?.cancel();
      throw new CommandFailed('the server answered another range of the file than the one asked for: nothing was saved');
    }
    return { bytes: await saveBody(io, response, target, signal, { path: kept.path, from: kept.size }), resumedFrom: kept.size };
  }
  // The whole file: the first try, or the data changed since what is kept began.
  if (kept) await rm(kept.path, { force: true });
  const etag = response.headers.get('etag');
  // Without a strong tag nothing could say what a kept part holds: saved as without --resume.
  const part: PartFile | undefined = isStrong(etag) ? { path: partPath(target, etag), from: 0 } : undefined;
  return { bytes: await saveBody(io, response, target, signal, part), resumedFrom: 0 };
}
