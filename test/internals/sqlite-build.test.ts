/**
 * The installed better-sqlite3 has Siphon's SQLite options (scripts/build-sqlite.mjs): without them
 * morph.io's double-quoted strings fail, and ATTACH is stopped only by Siphon's own checks. And it
 * was built from its source with Siphon's changes where its Node needs them (scripts/better-sqlite3-patches.mjs,
 * Node 20), which make the same rows faster.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { assertSqliteBuild, missingSqliteOptions, SqliteBuildError } from '../../src/sql/sqlite-build.js';
import { tempDir } from '../helpers/fixture-db.js';
import { repoRoot } from '../helpers/paths.js';

interface SourcePatch {
  name: string;
  file: string;
  before: string;
  after: string;
}
/** The install script's changes to better-sqlite3's source (plain JavaScript, outside the TypeScript build). */
const { patches, neededPatches, applyPatches } = (await import(
  pathToFileURL(path.join(repoRoot, 'scripts', 'better-sqlite3-patches.mjs')).href
)) as {
  patches: SourcePatch[];
  neededPatches: SourcePatch[];
  applyPatches: (moduleDir: string, changes: SourcePatch[]) => void;
};

const dir = tempDir();
const db = new Database(path.join(dir, 'build.sqlite'));
db.exec("create table data (month text); insert into data values ('November'), ('March')");
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a double-quoted word is a string where no column has the name, and the column where one does', () => {
  assert.deepEqual(db.prepare('select "true" as working').all(), [{ working: 'true' }]);
  assert.deepEqual(db.prepare('select "month" from data where "month" = "November"').all(), [{ month: 'November' }]);
});

test('no database can be attached, so ATTACH and VACUUM INTO fail inside SQLite', () => {
  const copy = path.join(dir, 'copy.sqlite');
  for (const sql of [
    `attach '${path.join(dir, 'other.sqlite')}' as other`,
    "attach ':memory:' as other",
    `vacuum into '${copy}'`,
    'vacuum',
  ]) {
    assert.throws(() => db.prepare(sql).run(), /too many attached databases - max 0/, sql);
  }
  assert.equal(existsSync(copy), false);
});

test('compile_options lists both options', () => {
  const options = db.pragma('compile_options', { simple: false }) as { compile_options: string }[];
  const names = options.map((o) => o.compile_options);
  assert.ok(names.includes('DQS=3'), names.join(' '));
  assert.ok(names.includes('MAX_ATTACHED=0'), names.join(' '));
});

test('the server checks the same options at start, and names the ones a build lacks', () => {
  assert.doesNotThrow(() => assertSqliteBuild());
  const stock = ['COMPILER=gcc-12.2.0', 'DQS=0', 'MAX_ATTACHED=10', 'THREADSAFE=2'];
  assert.deepEqual(missingSqliteOptions(stock), ['DQS=3', 'MAX_ATTACHED=0']);
  assert.match(
    new SqliteBuildError(missingSqliteOptions(stock)).message,
    /without SQLite options Siphon needs \(DQS=3, MAX_ATTACHED=0\)\. Run npm install/,
  );
});

test('the installed module was built from its source with every change its Node needs (all on Node 20, none from 22), as the install script checks by its stamp', () => {
  assert.deepEqual(neededPatches, Number(process.versions.modules) < 127 ? patches : []);
  const check = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-sqlite.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  for (const p of patches) assert.equal(check.stdout.includes(p.name), neededPatches.includes(p), check.stdout);
});

test('a change is made once, and one whose code is not there any more stops the install, named', () => {
  const moduleDir = path.join(dir, 'module');
  const files = [...new Set(patches.map((p) => p.file))];
  /** Each file as the changes' texts, `text` of each, between lines of other code. */
  const source = (file: string, text: (p: SourcePatch) => string) =>
    `// before\n${patches
      .filter((p) => p.file === file)
      .map(text)
      .join('\n// between\n')}\n// after\n`;
  const write = (text: (p: SourcePatch) => string) => {
    for (const file of files) {
      mkdirSync(path.dirname(path.join(moduleDir, file)), { recursive: true });
      writeFileSync(path.join(moduleDir, file), source(file, text));
    }
  };
  const assertChanged = () => {
    for (const file of files)
      assert.equal(
        readFileSync(path.join(moduleDir, file), 'utf8'),
        source(file, (p) => p.after),
        file,
      );
  };
  write((p) => p.before);
  applyPatches(moduleDir, patches);
  assertChanged();
  applyPatches(moduleDir, patches); // again: nothing changes
  assertChanged();
  write(() => 'something else');
  assert.throws(
    () => applyPatches(moduleDir, patches),
    new RegExp(`no longer holds the code of "${patches[0]!.name.replace(/[()]/g, '\\$&')}"`),
  );
});

test('rows and columns are what they were: every type, in column order, one at a time, all at once, raw or as objects', () => {
  db.exec(`create table kinds (i integer, r real, t TEXT, b blob, n);
    insert into kinds values (9007199254740993, 2.5, 'été ✓', x'00ff', null), (-1, -1.25e-300, '', x'', 7);`);
  const sql = 'select i, r, t, b, n from kinds order by rowid';
  const raw = db.prepare(sql).raw().safeIntegers(true);
  const expected = [
    [9007199254740993n, 2.5, 'été ✓', Buffer.from([0, 255]), null],
    [-1n, -1.25e-300, '', Buffer.alloc(0), 7n],
  ];
  assert.deepEqual(raw.all(), expected);
  assert.deepEqual([...raw.iterate()], expected);
  assert.deepEqual(raw.get(), expected[0]);
  assert.deepEqual(db.prepare(sql).all()[1], { i: -1, r: -1.25e-300, t: '', b: Buffer.alloc(0), n: 7 });
  assert.deepEqual(db.prepare('select i from kinds where 0').raw().all(), []);
  assert.deepEqual(db.prepare('select t, 1 + 1 as two from kinds').columns(), [
    { name: 't', column: 't', table: 'kinds', database: 'main', type: 'TEXT' },
    { name: 'two', column: null, table: null, database: null, type: null },
  ]);
  const many = db.prepare('with recursive c(x) as (select 1 union all select x + 1 from c where x < 50000) select x, x * 0.5 from c');
  const all = many.raw().all() as number[][];
  assert.equal(all.length, 50000);
  assert.deepEqual(all, [...many.raw().iterate()]);
  assert.deepEqual(all[49999], [50000, 25000]);
});
