import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { LogOutput } from '../../src/log/log-output.js';
import { tempDir } from '../helpers/fixture-db.js';
import { repoRoot } from '../helpers/paths.js';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const record = (i: number) => `{"n":${i},"pad":"${'x'.repeat(40)}"}\n`;

test('records leave in order, whole, once enough has come, and flush writes what is left', async () => {
  const file = path.join(dir, 'order.log');
  const fd = openSync(file, 'w');
  const output = new LogOutput(fd, { minChars: 1000, maxChars: 1_000_000 });
  const records = Array.from({ length: 500 }, (_, i) => record(i));
  for (const r of records.slice(0, 10)) assert.equal(output.write(r), true);
  // Nothing to wait for: a batch would have been started by write() itself. A moment lets one that
  // was started land, so that the file shows it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(readFileSync(file, 'utf8'), '', 'less than a batch waits');
  for (const r of records.slice(10)) output.write(r);
  await output.flush();
  assert.equal(readFileSync(file, 'utf8'), records.join(''));
  assert.equal(output.dropped, 0);
  closeSync(fd);
});

test('past the characters it may hold, the batch under way counted in, records are dropped and counted', async () => {
  const file = path.join(dir, 'bound.log');
  const fd = openSync(file, 'w');
  const one = record(0).length;
  const output = new LogOutput(fd, { minChars: one, maxChars: 10 * one });
  // All in one turn: the first batch's write cannot end before the tenth record comes.
  const taken = Array.from({ length: 25 }, (_, i) => output.write(record(i)));
  assert.deepEqual(
    taken,
    Array.from({ length: 25 }, (_, i) => i < 10),
  );
  assert.equal(output.dropped, 15);
  await output.flush();
  assert.equal(readFileSync(file, 'utf8'), Array.from({ length: 10 }, (_, i) => record(i)).join(''));
  // Written out, the room is there again.
  assert.equal(output.write(record(99)), true);
  await output.flush();
  assert.ok(readFileSync(file, 'utf8').endsWith(record(99)));
  closeSync(fd);
});

test('what is held when the process exits is written before it ends', () => {
  const file = path.join(dir, 'exit.log');
  const module = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'log', 'log-output.js')).href;
  const result = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { openSync } from 'node:fs';
      const { LogOutput } = await import(${JSON.stringify(module)});
      const output = new LogOutput(openSync(${JSON.stringify(file)}, 'w'), { minChars: 1e6, maxChars: 1e7 });
      for (let i = 0; i < 100; i++) output.write('line ' + i + '\\n');
      process.exit(3);`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(result.status, 3, result.stderr);
  assert.equal(readFileSync(file, 'utf8'), Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(''));
});
