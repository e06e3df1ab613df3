import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Siphon's version, from the package.json of the folder this code runs from (compiled into dist/ below it). */
export function siphonVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'siphon' && pkg.version) return pkg.version;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (path.dirname(dir) === dir) throw new Error("Siphon's package.json was not found above its code");
  }
}
