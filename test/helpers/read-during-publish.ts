import assert from 'node:assert/strict';
import { waitFor } from './cli.js';

/**
 * Four clients read a scraper made of versionDb() files in a loop (`readUrl` selects
 * `count(*) as n, min(v) as v from t`) while `publish` replaces its data with each of `versions`
 * in turn, starting from version `from`. Fails unless no call failed, every response was wholly one
 * version, no reader went back to older data, every reader ended on the last version, and both the
 * first and the last version were read. `publish` returns why it failed, or nothing.
 */
export async function assertReadsWholeDuringPublishes(
  readUrl: string,
  from: number,
  versions: number[],
  publish: (k: number) => Promise<string | undefined>,
): Promise<void> {
  let publishing = true;
  const seen: { n: number; v: number }[][] = [[], [], [], []];
  const failures: string[] = [];
  const readers = seen.map(async (mine) => {
    while (publishing) {
      const res = await fetch(readUrl);
      const text = await res.text();
      if (res.status !== 200) failures.push(`${res.status} ${text}`);
      else mine.push(...(JSON.parse(text) as { n: number; v: number }[]));
    }
  });
  /** Resolves once every reader has had `more` more answers (or a failure was noted). */
  const everyReaderRead = (more: number) => {
    const target = seen.map((mine) => mine.length + more);
    return waitFor(() => failures.length > 0 || seen.every((mine, i) => mine.length >= target[i]!), 30_000);
  };
  const publisher = (async () => {
    try {
      await everyReaderRead(1);
      for (const k of versions) {
        const failure = await publish(k);
        if (failure !== undefined) failures.push(`publish ${k}: ${failure}`);
        // Two answers each: one may have been on its way during the publish; the second was asked after it.
        await everyReaderRead(2);
      }
    } finally {
      publishing = false;
    }
  })();
  await Promise.all([publisher, ...readers]);

  assert.deepEqual(failures, []);
  const last = versions.at(-1)!;
  for (const mine of seen) {
    for (const row of mine) {
      assert.ok(row.v >= from && row.v <= last && row.n === 100 * row.v, `a mixed response: ${JSON.stringify(row)}`);
    }
    // A reader's requests are sequential, so once it has seen a version it never sees an older one.
    const read = mine.map((r) => r.v);
    assert.deepEqual(
      read,
      [...read].sort((a, b) => a - b),
      'a reader went back to older data',
    );
    assert.equal(read.at(-1), last, 'after the last publish, the newest data');
  }
  const all = new Set(seen.flat().map((r) => r.v));
  assert.ok(all.has(from) && all.has(last), `both old and new data were read: ${[...all]}`);
}
