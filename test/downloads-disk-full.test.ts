/**
 * Downloads on a full disk: calls go on being answered while their downloads wait in memory; once
 * the backlog is full, calls are refused with 503 before anything runs, rather than served without
 * being recorded; when room comes back, every download answered is written. The data folder is a
 * small tmpfs, so the disk really fills.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { errors } from '../src/errors.js';
import { readDownloads, waitFor } from './helpers/cli.js';
import { SmallDisk } from './helpers/small-disk.js';
import { dataUrl, writtenDownloads, type TestServer } from './helpers/server.js';

const disk = new SmallDisk('4m');
/** A backlog this small fills in a few calls. */
const maxPendingDownloads = 20;

describe('downloads on a full disk', { skip: disk.skip }, () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    ({ server, key } = await disk.startServer({ maxPendingDownloads }));
  });
  after(async () => {
    await server?.close();
    disk.unmount();
  });

  const call = async (query: string) => {
    const res = await fetch(dataUrl(server.base, 'alice/plants', 'json', { key, query }));
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
  };

  test('calls are answered until the backlog is full, then refused with 503; with room again, every answered one is recorded', async () => {
    assert.equal((await call('select 1 as n')).status, 200);
    const recorded = (await writtenDownloads(server)).length;
    assert.equal(recorded, 1);

    disk.leaveFree(0);
    const answered = ['select -1 as n'];
    assert.equal((await call(answered[0]!)).status, 200);
    // Its batch fails: the download is kept.
    await waitFor(() => /downloads cannot be recorded; they are kept and tried again/.test(server.logs()), 10_000);
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 10 * maxPendingDownloads && !refused; i++) {
      const query = `select ${i} as n`;
      const answer = await call(query);
      if (answer.status === 200) answered.push(query);
      else refused = answer;
    }
    assert.ok(refused, 'refused once the backlog is full');
    assert.equal(refused.status, 503, refused.body);
    assert.deepEqual(JSON.parse(refused.body), { error: errors.downloadsBacklog().message });
    assert.equal(refused.retryAfter, String(errors.downloadsBacklog().retryAfterSeconds));
    assert.equal(answered.length, maxPendingDownloads, 'answered while their downloads waited, up to the bound');
    assert.equal(readDownloads(server.dataDir).length, recorded, 'none could be written');
    // Refused before the query runs: one that would fail if run gets the same 503.
    assert.equal((await call('select nope')).status, 503);

    disk.free();
    await waitFor(() => readDownloads(server.dataDir).length === recorded + answered.length, 15_000);
    assert.deepEqual(
      readDownloads(server.dataDir)
        .slice(recorded)
        .map((d) => d.query),
      answered,
      'every answered call, in order',
    );
    const info = (await (await fetch(`${server.base}/alice/plants.json`)).json()) as { downloads: { total: number } };
    assert.equal(info.downloads.total, recorded + answered.length, 'and counted');
    assert.equal((await call('select 1 as n')).status, 200, 'calls are served again');
  });
});
