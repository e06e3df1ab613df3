/**
 * Node runs Siphon with the flags src/cli/node-flags.ts names, however it is started: by
 * `bin/siphon`'s first line, or by `npm start`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { nodeFlags } from '../src/cli/node-flags.js';
import { repoRoot, siphonBin } from './helpers/paths.js';
import { runToEnd } from './helpers/processes.js';

test('bin/siphon’s first line and npm start give Node the flags node-flags.ts names', () => {
  assert.equal(readFileSync(siphonBin, 'utf8').split('\n')[0], `#!/usr/bin/env -S node ${nodeFlags.join(' ')}`);
  const scripts = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.start, `node ${nodeFlags.join(' ')} bin/siphon serve --demo`);
});

test('bin/siphon runs by its first line, and Node takes the flags', async () => {
  const ran = await runToEnd(siphonBin, ['--version']);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /^siphon \d+\.\d+\.\d+/);
  // The same flags given to node itself are accepted (V8 refuses unknown or malformed ones).
  const direct = await runToEnd(process.execPath, [...nodeFlags, '-e', 'process.stdout.write(JSON.stringify(process.execArgv))']);
  assert.equal(direct.code, 0, direct.stderr);
  assert.deepEqual((JSON.parse(direct.stdout) as string[]).slice(0, nodeFlags.length), nodeFlags);
});
