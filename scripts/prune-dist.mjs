// Removes what dist/ holds for a source file that is gone. `npm run build` compiles incrementally
// (tsc --incremental: only what changed), so a deleted or renamed test would otherwise stay
// compiled and keep running in `npm test`.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function prune(folder) {
  for (const entry of readdirSync(path.join(root, 'dist', folder), { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) prune(file);
    const compiled = /^(.*)\.js(\.map)?$/.exec(file);
    if (entry.isFile() && compiled && !existsSync(path.join(root, `${compiled[1]}.ts`))) rmSync(path.join(root, 'dist', file));
  }
}
prune('');
