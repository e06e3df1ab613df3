import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { formatNames } from '../src/formats/index.js';
import { repoRoot } from './helpers/paths.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** Every error's code and status, read from where they are defined (status is a name when it varies). */
const allErrors = [...readFileSync(path.join(repoRoot, 'src', 'errors.ts'), 'utf8')
  .matchAll(/make\('(SIPHON_ERR_\w+)', (\w+)/g)].map(([, code, status]) => ({ code: code!, status: status! }));

test('every error code is documented in the README with its status', () => {
  assert.ok(allErrors.length > 20, 'the error definitions were found');
  for (const { code, status } of allErrors) {
    assert.ok(readme.includes(`\`${code}\``), `${code} is not in the README`);
    const row = readme.split('\n').find((line) => line.includes(`| \`${code}\``));
    if (row) assert.match(row, new RegExp(`^\\| (${/^\d+$/.test(status) ? status : '4xx'}) \\|`), `${code}'s row does not give ${status}`);
  }
});

test('every format is documented in the README', () => {
  for (const name of formatNames) assert.match(readme, new RegExp(`\\| \`${name}\` \\|`), `${name} is not in the formats table`);
});

test('the README gives the two commands', () => {
  assert.ok(readme.includes('npm install && npm start'));
  assert.ok(readme.includes('npm test'));
});
