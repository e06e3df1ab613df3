/**
 * `siphon user passwd NAME`: the password comes from stdin (never an argument), is checked, stored
 * hashed, and ends the account's web sessions; `user add` keeps working beside it.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { verifyPassword } from '../src/accounts/passwords.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { addUser, runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixture-db.js';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function login(name: string): Promise<{ passwordHash: string | null; sessions: boolean } | undefined> {
  const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
  try {
    const found = await store.findLogin(name);
    return (
      found && {
        passwordHash: found.passwordHash,
        sessions: (await store.findSession('a-session', new Date(0).toISOString())) !== undefined,
      }
    );
  } finally {
    await store.close();
  }
}

test('user passwd sets the password from the first line of stdin and logs the account out', async () => {
  const key = await addUser(dataDir, 'alice');
  assert.match(key, /^sph_/, 'user add still prints the first key');
  assert.equal((await login('alice'))!.passwordHash, null, 'an account made by user add has no password');
  const store = openSqliteStore(path.join(dataDir, 'siphon.db'));
  await store.saveSession('a-session', {
    accountId: (await store.findAccount('alice'))!.id,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  await store.close();

  const secret = 'piped in, not in ps';
  const r = await runCli(['user', 'passwd', 'alice'], { dataDir, input: `${secret}\nsecond line ignored\n`, ownProcess: true });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'password set for alice; its web sessions are logged out\n');
  const after = (await login('alice'))!;
  assert.match(after.passwordHash!, /^scrypt\$32768\$8\$3\$/);
  assert.ok(!after.passwordHash!.includes(secret));
  assert.equal(await verifyPassword(secret, after.passwordHash!), true);
  assert.equal(await verifyPassword('second line ignored', after.passwordHash!), false);
  assert.equal(after.sessions, false, 'its sessions were ended');
});

test('user passwd refuses a short password, an unknown account and a password given as an argument', async () => {
  const before = (await login('alice'))!.passwordHash;
  const short = await runCli(['user', 'passwd', 'alice'], { dataDir, input: 'short\n' });
  assert.equal(short.code, 1);
  assert.equal(short.stderr, 'siphon: A password is 10 to 200 characters long.\n');
  const unknown = await runCli(['user', 'passwd', 'nobody'], { dataDir, input: 'long enough password\n' });
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'siphon: There is no account named nobody.\n');
  const argument = await runCli(['user', 'passwd', 'alice', 'long enough password'], { dataDir, input: '' });
  assert.equal(argument.code, 1);
  assert.match(argument.stderr, /^siphon: user passwd takes one argument \(NAME\)/);
  assert.equal((await login('alice'))!.passwordHash, before, 'nothing changed');
});
