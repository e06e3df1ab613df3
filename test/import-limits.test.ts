import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { addUser, listFiles, runCli, runCliOk, waitFor } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { publishRefusals } from './helpers/log-lines.js';
import { idleNodeAddressSpaceMb, importProcesses } from './helpers/processes.js';
import { startServer, type TestServer } from './helpers/server.js';
import { endlessImportDb, publishTempFiles, putBody, readVersion, versionDb } from './helpers/upload.js';

/**
 * A sound database whose import needs ~400 MB at once: the import's check evaluates CHECK
 * constraints, and this one builds a 400 MB blob (the row went in with the constraint ignored).
 */
function hungryDb(): string {
  return makeDb(
    tempDir(),
    'hungry.sqlite',
    `pragma ignore_check_constraints = 1;
    create table t (v integer check (length(randomblob(v)) > 0)); insert into t values (400000000);`,
  );
}

/**
 * A server whose imports may take 1 s, and one whose imports may take 300 MB more than an idle Node
 * process maps (its cap is address space) and the default time: on a machine busy with other tests the hungry import may take
 * more than a second to reach its memory limit, and must be stopped by that limit, not the clock.
 */
let limited: TestServer;
let patient: TestServer;
/** alice's key on each server. */
const keys = new Map<TestServer, string>();

async function startWithScraper(overrides: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer({ queryProcesses: 1, ...overrides });
  keys.set(server, (await server.catalog.addUser('alice')).key);
  await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
  return server;
}

before(async () => {
  limited = await startWithScraper({ importTimeoutMs: 1000 });
  patient = await startWithScraper({ queryMemoryMb: (await idleNodeAddressSpaceMb()) + 300 });
});
after(async () => {
  await limited.close();
  await patient.close();
});

/** Everything a stopped import must leave as it was: every file in the data folder and what readers see. */
async function state(server: TestServer): Promise<unknown> {
  return { files: listFiles(server.dataDir), read: await readVersion(server.base, 'alice/plants', keys.get(server)!) };
}

/** The refusals the server logged, in order. */
function refusals(server: TestServer): { code: string; status: number }[] {
  return publishRefusals(server.logs());
}

describe('an import is bounded', () => {
  const cases = [
    [
      'never ends',
      endlessImportDb,
      'SIPHON_ERR_IMPORT_TIMEOUT',
      /^Checking the database took longer than the 1 s limit and was stopped/,
      () => limited,
    ],
    [
      'needs more memory than an import may have',
      hungryDb,
      'SIPHON_ERR_IMPORT_RESOURCES',
      /^Checking the database needed more memory than an import may have/,
      () => patient,
    ],
  ] as const;
  for (const [what, db, code, message, serverOf] of cases) {
    test(
      `a database whose import ${what} is refused with 400; nothing changes and no process or file is left`,
      { timeout: 30_000 },
      async () => {
        const server = serverOf();
        const before = await state(server);
        const refused = refusals(server).length;
        const res = await putBody(server.base, 'alice/plants', readFileSync(db()), { 'x-api-key': keys.get(server)! });
        const body = await res.text();
        assert.equal(res.status, 400, body);
        assert.match((JSON.parse(body) as { error: string }).error, message);
        await waitFor(() => refusals(server).length > refused, 2000);
        assert.deepEqual(refusals(server).at(-1), { code, status: 400 });
        // The answer comes once the import process has exited and its files are removed.
        assert.deepEqual(importProcesses(), []);
        assert.deepEqual(await state(server), before);
      },
    );
  }

  test('a client that leaves mid-import has its import stopped and its files removed', { timeout: 30_000 }, async () => {
    const before = await state(patient);
    const refused = refusals(patient).length;
    const client = new AbortController();
    const put = putBody(
      patient.base,
      'alice/plants',
      readFileSync(endlessImportDb()),
      { 'x-api-key': keys.get(patient)! },
      '',
      client.signal,
    ).then(
      () => assert.fail('answered'),
      () => 'left',
    );
    await waitFor(() => importProcesses().length === 1, 10_000);
    assert.ok(publishTempFiles(patient.dataDir).length > 0, 'the upload is on disk while it is imported');
    client.abort();
    assert.equal(await put, 'left');
    await waitFor(() => refusals(patient).length > refused, 10_000);
    assert.deepEqual(refusals(patient).at(-1), { code: 'SIPHON_ERR_CLIENT_CLOSED', status: 499 });
    assert.deepEqual(importProcesses(), []);
    assert.deepEqual(await state(patient), before);
    assert.ok(!patient.logs().includes('"level":50'), 'nothing was logged as an error');
  });
});

test('bin/siphon scraper publish --import-timeout stops an import that never ends; nothing changes', { timeout: 30_000 }, async () => {
  const dataDir = tempDir();
  await addUser(dataDir, 'carol');
  await runCliOk(['scraper', 'add', 'carol/plants', '--db', versionDb(1)], { dataDir });
  const before = listFiles(dataDir);
  const r = await runCli(['scraper', 'publish', 'carol/plants', '--db', endlessImportDb(), '--import-timeout', '1'], { dataDir });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stderr, /^siphon: Checking the database took longer than the 1 s limit and was stopped/);
  assert.deepEqual(
    listFiles(dataDir).filter((f) => !f.startsWith('siphon.db')),
    before.filter((f) => !f.startsWith('siphon.db')),
  );
});
