/**
 * A full disk is the server's condition, not the client's fault: a publish that finds no room is
 * answered 507, changes nothing and leaves nothing behind, and reads go on being served. The data
 * folder is a small tmpfs, so the disk really fills (mounting needs root, as in CI; skipped otherwise).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { listFiles } from './helpers/cli.js';
import { SmallDisk } from './helpers/small-disk.js';
import type { TestServer } from './helpers/server.js';
import { putBody, readVersion, versionDb } from './helpers/upload.js';

const disk = new SmallDisk('4m');

describe('a full disk', { skip: disk.skip }, () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    ({ server, key } = await disk.startServer());
  });
  after(async () => {
    await server?.close();
    disk.unmount();
  });

  for (const [what, kb] of [
    ['no room for the upload', 150],
    ['room for the upload but not for its import', 900],
  ] as const) {
    test(`${what}: 507, the old data keeps serving and no file is left behind`, async () => {
      disk.leaveFree(kb);
      await publishRefused();
    });
  }

  async function publishRefused(): Promise<void> {
    const files = listFiles(server.dataDir).filter((f) => !f.startsWith('siphon.db'));
    const res = await putBody(server.base, 'alice/plants', readFileSync(versionDb(2, 600)), { 'x-api-key': key });
    assert.equal(res.status, 507, await res.clone().text());
    assert.match(((await res.json()) as { error: string }).error, /no room left/);
    assert.deepEqual(await readVersion(server.base, 'alice/plants', key), { n: 100, v: 1 });
    assert.deepEqual(
      listFiles(server.dataDir).filter((f) => !f.startsWith('siphon.db')),
      files,
    );
  }

  test('reads are still served', async () => {
    for (let i = 0; i < 5; i++) assert.deepEqual(await readVersion(server.base, 'alice/plants', key), { n: 100, v: 1 });
  });
});
