/**
 * `siphon completion`: the script made from the table of commands, run by a real bash completing
 * real command lines.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { commands } from '../src/cli/commands.js';
import { runCli, runCliOk } from './helpers/cli.js';

/** What bash's completion offers for `line`, the cursor at its end, after sourcing `script`. */
function complete(script: string, line: string): string[] {
  const program = `${script}\nread -ra COMP_WORDS <<< "$LINE"; [[ "$LINE" == *' ' ]] && COMP_WORDS+=('')\nCOMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _siphon; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '-c', program], { env: { ...process.env, LINE: line }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

test('bash completes commands, their second words and their flags, from the table of commands', async () => {
  const script = await runCliOk(['completion', 'bash']);
  const firstWords = [...new Set(commands.map((c) => c.name.split(' ')[0]!)), 'help'].sort();
  assert.deepEqual(complete(script, 'siphon '), firstWords);
  assert.deepEqual(complete(script, 'siphon qu'), ['query']);
  assert.deepEqual(complete(script, 'siphon --data-dir /srv/x key '), ['create', 'list', 'revoke']);
  assert.deepEqual(complete(script, 'siphon download alice/shop --'), [
    '--format',
    '--help',
    '--key',
    '--output',
    '--param',
    '--query',
    '--resume',
    '--server',
  ]);
  assert.deepEqual(complete(script, 'siphon help scr'), ['scraper']);
  assert.deepEqual(complete(script, 'siphon completion '), ['bash', 'zsh']);
  // After an option that takes a value, bash's own file names (nothing of ours).
  assert.deepEqual(complete(script, 'siphon download alice/shop -o '), []);
  // -p takes a name and a value: nothing is offered for either, and the command is still known after them.
  assert.deepEqual(complete(script, 'siphon completion -p '), []);
  assert.deepEqual(complete(script, 'siphon completion --param town '), []);
  assert.deepEqual(complete(script, 'siphon -p town Leura completion '), ['bash', 'zsh']);
  assert.deepEqual(complete(script, 'siphon query alice/shop x --pa'), ['--param']);
});

test('zsh gets the same script through bashcompinit; another shell is a usage error', async () => {
  const zsh = await runCliOk(['completion', 'zsh']);
  const bash = await runCliOk(['completion', 'bash']);
  assert.ok(zsh.startsWith('#compdef siphon\n'));
  assert.ok(zsh.includes('bashcompinit') && zsh.endsWith(bash.slice(bash.indexOf('\n') + 1)));
  const fish = await runCli(['completion', 'fish']);
  assert.equal(fish.code, 1);
  assert.match(fish.stderr, /^siphon: completion takes bash or zsh, not "fish"\n/);
});
