/**
 * The installed better-sqlite3 has Siphon's SQLite options (scripts/build-sqlite.mjs): without them
 * morph.io's double-quoted strings fail, and ATTACH is stopped only by Siphon's own checks.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { assertSqliteBuild, missingSqliteOptions, SqliteBuildError } from '../../src/sql/sqlite-build.js';
import { tempDir } from '../helpers/fixture-db.js';

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
