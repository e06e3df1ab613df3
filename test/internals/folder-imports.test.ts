import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layering of src/, read from the source's imports (type-only ones too: a loop of types is a
 * loop for the reader). A folder is a top-level folder of src/ (`http`, `store`…); a module at the
 * top of src/ (`errors.ts`) is a folder of its own.
 */
const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');

interface Import {
  /** Both relative to src/, with `/`: `http/server.ts`. */
  from: string;
  to: string;
}

function sourceFiles(folder = ''): string[] {
  return readdirSync(path.join(src, folder), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

/** `from '…'`, `import '…'` and `import('…')`: every specifier a module names. */
const specifiers = (source: string) => [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)'([^']+)'/g)].map((m) => m[1]!);

/** Each file's imports of other files of src/, and the packages (and `node:` modules) it imports. */
function readImports(): { imports: Import[]; packages: Map<string, string[]> } {
  const imports: Import[] = [];
  const packages = new Map<string, string[]>();
  for (const from of sourceFiles()) {
    for (const specifier of specifiers(readFileSync(path.join(src, from), 'utf8'))) {
      if (!specifier.startsWith('.')) {
        packages.set(from, [...(packages.get(from) ?? []), specifier]);
        continue;
      }
      const to = path.posix.join(path.posix.dirname(from), specifier).replace(/\.js$/, '.ts');
      if (!to.startsWith('../')) imports.push({ from, to });
    }
  }
  return { imports, packages };
}

const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.ts$/, ''));

/** The loops of a directed graph: its strongly connected components of more than one node (Tarjan). */
function loops(edges: Iterable<[string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) {
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const other of next.get(node)!) {
      if (!index.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node)!, low.get(other)!));
      } else if (stack.includes(other)) low.set(node, Math.min(low.get(node)!, index.get(other)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('the loop finder finds loops: two folders importing each other, and a ring of three beside a leaf', () => {
  assert.deepEqual(loops([['a', 'b']]), []);
  assert.deepEqual(
    loops([
      ['a', 'b'],
      ['b', 'a'],
    ]),
    [['a', 'b']],
  );
  assert.deepEqual(
    loops([
      ['x', 'y'],
      ['y', 'z'],
      ['z', 'x'],
      ['z', 'leaf'],
    ]),
    [['x', 'y', 'z']],
  );
});

test('no folder of src/ imports, through others, a folder that imports it', () => {
  const { imports } = readImports();
  assert.ok(imports.length > 300, `read only ${imports.length} imports: the reader is broken`);
  const across = imports.filter((i) => folderOf(i.from) !== folderOf(i.to));
  const found = loops(across.map((i): [string, string] => [folderOf(i.from), folderOf(i.to)]));
  const why = found.map((loop) => {
    const inside = across.filter((i) => loop.includes(folderOf(i.from)) && loop.includes(folderOf(i.to)));
    return `{${loop.join(', ')}}: ${inside.map((i) => `${i.from} -> ${i.to}`).join('; ')}`;
  });
  assert.deepEqual(why, []);
});

test('utils/ imports nothing of Siphon: its helpers are leaves every folder may use', () => {
  const { imports } = readImports();
  assert.ok(
    imports.some((i) => i.to.startsWith('utils/')),
    'nothing imports utils/: the reader is broken',
  );
  assert.deepEqual(
    imports.filter((i) => i.from.startsWith('utils/') && !i.to.startsWith('utils/')),
    [],
  );
});

test('the server imports no browser code, and the browser modules import only what is served to the browser', () => {
  const { imports, packages } = readImports();
  const browser = (file: string) => file.startsWith('views/client/');
  const shared = (file: string) => file.startsWith('shared/');
  assert.ok(
    imports.some((i) => !browser(i.from) && shared(i.to)),
    'the server imports nothing of shared/: the reader is broken',
  );
  assert.deepEqual(
    imports.filter((i) => !browser(i.from) && browser(i.to)),
    [],
    'server code imports browser code (what both need goes in shared/)',
  );
  // The browser loads these as they are (assets.ts serves views/client/ and shared/): a module
  // elsewhere, a package or `node:` would not load.
  assert.deepEqual(
    imports.filter((i) => (browser(i.from) && !browser(i.to) && !shared(i.to)) || (shared(i.from) && !shared(i.to))),
    [],
  );
  assert.deepEqual(
    [...packages].filter(([file]) => browser(file) || shared(file)),
    [],
  );
});
