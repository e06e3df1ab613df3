import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

/**
 * Every error's code and status, read from the source where each is defined (src/errors/, one file
 * per concern), not from the running code: an error defined but left out of `errors` is found too.
 * The status is a name when it varies.
 */
export function definedErrors(): { code: string; status: string }[] {
  const folder = path.join(repoRoot, 'src', 'errors');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(path.join(folder, file), 'utf8').matchAll(/make\(\s*'(SIPHON_ERR_\w+)',\s*(\w+)/g)])
    .map(([, code, status]) => ({ code: code!, status: status! }));
}
