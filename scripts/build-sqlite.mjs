#!/usr/bin/env node
/**
 * postinstall: makes sure better-sqlite3's SQLite is built with Siphon's options, and the module
 * from its source with Siphon's changes where the running Node needs them (better-sqlite3-patches.mjs,
 * Node 20 only; docs/design.md, Decisions).
 *
 * better-sqlite3 compiles its bundled SQLite with the options of its deps/defines.gypi, which include
 * SQLITE_DQS=0 (a double-quoted word is never a string). morph.io's clients write string literals in
 * double quotes, as stock SQLite allows, so Siphon needs SQLITE_DQS=3. better-sqlite3 can be built
 * against a custom amalgamation (npm_config_sqlite3), but then its gyp file drops every option of
 * defines.gypi but one: the copy made here starts with all of them as #defines, ours replacing theirs.
 *
 * Plain Node, no TypeScript: it runs before the build. It rebuilds only when the installed module
 * lacks an option or a change (a second `npm install` costs nothing), always from source (a prebuilt
 * binary would be the stock one) and with node-gyp itself (package.json's `allowScripts` turns
 * better-sqlite3's own install script off, so SQLite is compiled once), and exits non-zero when the
 * build fails or still lacks one. A module is known to be built with the changes by a stamp written
 * next to it after the build.
 * `--check`: only says what the installed module lacks, and exits non-zero if anything.
 */
import { spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { applyPatches, neededPatches } from './better-sqlite3-patches.mjs';

/** Our options, over better-sqlite3's. */
const options = {
  // Double-quoted strings in DDL and DML, as stock SQLite and so morph.io.
  SQLITE_DQS: '3',
  // Defence in depth: ATTACH (and VACUUM, which attaches) fails inside SQLite itself, whatever gets
  // past the checks of the SQL text and of the prepared statement.
  SQLITE_MAX_ATTACHED: '0',
};

const require = createRequire(import.meta.url);
const moduleDir = path.dirname(require.resolve('better-sqlite3/package.json'));
/** Written once a build from the changed source has succeeded: the changes it was built with. */
const stampFile = path.join(moduleDir, 'build', 'Release', 'siphon-build.json');

/** How PRAGMA compile_options lists each of our options. */
const wanted = Object.entries(options).map(([name, value]) => `${name.replace(/^SQLITE_/, '')}=${value}`);

/** Our options the installed module lacks (all of them when it cannot be loaded). Loaded in a child, so the file can be rebuilt. */
function missingOptions() {
  const probe = `const Database = require(${JSON.stringify(moduleDir)});
    const db = new Database(':memory:');
    console.log(JSON.stringify(db.pragma('compile_options', { simple: false }).map((r) => r.compile_options)));`;
  const result = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  if (result.status !== 0) return wanted;
  const have = new Set(JSON.parse(result.stdout));
  return wanted.filter((option) => !have.has(option));
}

/** A change as the stamp records it: its name and a hash of its code, so that changed code builds again. */
const stamped = (p) => `${p.name} ${hash('sha256', p.after, 'hex').slice(0, 16)}`;

/** The changes the installed module was not built with (all of them when it has no stamp). */
function unbuiltPatches() {
  let inStamp = [];
  try {
    inStamp = JSON.parse(readFileSync(stampFile, 'utf8')).patches;
  } catch {
    // No stamp: not built here, or not since the changes.
  }
  return neededPatches.filter((p) => !inStamp.includes(stamped(p))).map((p) => p.name);
}

/** What the installed module lacks: our options and our changes. */
const lacking = () => [...missingOptions(), ...unbuiltPatches()];

/** better-sqlite3's options (`NAME` or `NAME=VALUE`) with ours in place of theirs, as #define lines. */
function defineLines() {
  const gypi = readFileSync(path.join(moduleDir, 'deps', 'defines.gypi'), 'utf8');
  const theirs = [...gypi.matchAll(/'([A-Z0-9_]+(?:=[^']*)?)'/g)].map((m) => m[1]);
  if (!theirs.includes('SQLITE_DQS=0'))
    throw new Error('deps/defines.gypi of better-sqlite3 no longer has SQLITE_DQS=0: check this script against it');
  const merged = new Map(
    theirs.map((d) => {
      const [name, value = '1'] = d.split('=');
      return [name, value];
    }),
  );
  for (const [name, value] of Object.entries(options)) merged.set(name, value);
  return [...merged].map(([name, value]) => `#define ${name} ${value}`);
}

/** A copy of the bundled amalgamation with the options on top, in a new absolute folder. */
function writeAmalgamation() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siphon-sqlite3-'));
  const source = path.join(moduleDir, 'deps', 'sqlite3');
  writeFileSync(
    path.join(dir, 'sqlite3.c'),
    `/* Siphon's build options (scripts/build-sqlite.mjs) */\n${defineLines().join('\n')}\n\n${readFileSync(path.join(source, 'sqlite3.c'), 'utf8')}`,
  );
  copyFileSync(path.join(source, 'sqlite3.h'), path.join(dir, 'sqlite3.h'));
  return dir;
}

/**
 * node-gyp as npm ships it: the one npm names to the scripts it runs, else the one beside the npm on
 * the PATH. Called directly: `npm rebuild better-sqlite3` would run better-sqlite3's install script,
 * which package.json's `allowScripts` turns off so that SQLite is compiled once, here.
 */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  const npm = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, 'npm'))
    .find((file) => existsSync(file));
  if (!npm) throw new Error('node-gyp is looked for beside npm, which is not on the PATH');
  return path.join(path.dirname(realpathSync(npm)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
}

function rebuild(amalgamationDir) {
  // Environment variables, as npm hands its configuration to node-gyp: better-sqlite3's gyp files
  // read `sqlite3` (the amalgamation's folder, an absolute path).
  const env = { ...process.env, npm_config_sqlite3: amalgamationDir };
  const result = spawnSync(process.execPath, [nodeGyp(), 'rebuild', '--release'], { env, stdio: 'inherit', cwd: moduleDir });
  if (result.error) throw result.error;
  return result.status === 0;
}

/** What the script makes sure of, as it says it. */
const built = [...wanted, ...neededPatches.map((p) => p.name)].join(', ');

const fail = (message) => {
  process.stderr.write(`\nsiphon: ${message}\n`);
  process.exit(1);
};

const before = lacking();
if (process.argv.includes('--check')) {
  if (before.length > 0) fail(`the installed better-sqlite3 lacks ${before.join(', ')}: run npm install, or node scripts/build-sqlite.mjs`);
  console.log(`siphon: better-sqlite3 has ${built}`);
} else if (before.length === 0) {
  console.log(`siphon: better-sqlite3 already has ${built}`);
} else {
  console.log(`siphon: building better-sqlite3 from source with ${built} (about a minute)…`);
  try {
    applyPatches(moduleDir);
  } catch (err) {
    fail(err.message);
  }
  rmSync(stampFile, { force: true });
  const dir = writeAmalgamation();
  let ok;
  try {
    ok = rebuild(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!ok) fail('building better-sqlite3 from source failed (see above). A C++ compiler, make and python3 are needed.');
  writeFileSync(stampFile, `${JSON.stringify({ patches: neededPatches.map(stamped) })}\n`);
  const after = lacking();
  if (after.length > 0) fail(`better-sqlite3 was rebuilt but still lacks ${after.join(', ')}.`);
  console.log(`siphon: better-sqlite3 now has ${built}`);
}
