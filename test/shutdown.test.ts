import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { connect } from 'node:net';
import { before, describe, test } from 'node:test';
import {
  addUser,
  countRows,
  openMeta,
  readDownloads,
  runCliOk,
  startServe,
  waitFor,
  withTimeout,
  type DownloadRow,
  type ServeProcess,
} from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { childrenRunning, isRunning, working } from './helpers/processes.js';
import { runaway } from './helpers/query-pool.js';
import { dataUrl } from './helpers/server.js';

/** What one client request came to. `complete` means a status was received and the body was read to its end. */
interface Outcome {
  sql: string;
  sentAt: number;
  doneAt: number;
  complete: boolean;
  status?: number;
  bytes?: number;
  /** For a 200: the body was the answer to this very query (its id came back). */
  ownAnswer?: boolean;
  error?: string;
}

/** A data folder with an account and a scraper of 3000 rows, set up through the real CLI. */
async function setUp(): Promise<{ dataDir: string; key: string }> {
  const dataDir = tempDir();
  const key = await addUser(dataDir, 'alice');
  const db = makeDb(
    tempDir(),
    'numbers.sqlite',
    `create table t (x integer);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000) insert into t select i from n;`,
  );
  await runCliOk(['scraper', 'add', 'alice/numbers', '--db', db], { dataDir });
  return { dataDir, key };
}

/** Starts serve on a port of its own choosing (the banner tells which). */
async function serve(dataDir: string, flags: string[] = []): Promise<ServeProcess> {
  return startServe(['--port', '0', ...flags], { dataDir });
}

/**
 * One GET through `agent`. Resolves once the body has been read to its end; rejects on a connection
 * error or a body cut short. The status is noted in `outcome` as soon as it arrives; `onSent` is
 * called once the whole request has been handed to the socket.
 */
function get(agent: http.Agent, url: string, outcome: Outcome, onSent?: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      outcome.status = res.statusCode;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('close', () => (res.complete ? resolve(Buffer.concat(chunks)) : reject(new Error('body cut short'))));
    });
    req.on('error', reject);
    if (onSent) req.on('finish', onSent);
  });
}

/**
 * Eight loops of requests, every third one a cross join of ~9 million pairs (a few hundred ms), the
 * rest quick counts. Each SQL text carries a unique number, so its download row can be found by query.
 * The agent keeps connections alive, as real clients and proxies do. A loop stops at `stop()`, or at
 * its first failed request once `stopOnError()` holds (the server is going away).
 */
function load(base: string, key: string, stopOnError: () => boolean) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const outcomes: Outcome[] = [];
  let next = 0;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const id = next++;
      const sql =
        id % 3 === 0
          ? `select ${id} as id, count(*) as n from t a, t b where a.x + b.x > 100`
          : `select ${id} as id, count(*) as n from t where x % 7 = ${id % 7}`;
      const outcome: Outcome = { sql, sentAt: performance.now(), doneAt: 0, complete: false };
      outcomes.push(outcome);
      try {
        const body = await get(agent, dataUrl(base, 'alice/numbers', 'json', { key, query: sql }), outcome);
        outcome.bytes = body.length;
        outcome.complete = true;
        if (outcome.status === 200) outcome.ownAnswer = (JSON.parse(body.toString()) as { id: number }[])[0]?.id === id;
      } catch (err) {
        outcome.error = String(err);
      }
      outcome.doneAt = performance.now();
      if (outcome.error && stopOnError()) return;
    }
  };
  const loops = Array.from({ length: 8 }, loop);
  return {
    outcomes,
    stop: () => {
      stopped = true;
    },
    /** The client goes away: its idle kept-alive connections are closed. */
    disconnect: () => agent.destroy(),
    done: Promise.all(loops),
  };
}

function downloadsByQuery(rows: DownloadRow[]): Map<string, DownloadRow[]> {
  const map = new Map<string, DownloadRow[]>();
  for (const row of rows) map.set(row.query ?? '', [...(map.get(row.query ?? '') ?? []), row]);
  return map;
}

describe('SIGTERM under load', () => {
  let traffic: ReturnType<typeof load>;
  let dataDir: string;
  let termAt = Infinity;
  /** How serve ended within the bound, with the clients still holding their kept-alive connections. */
  let exitInTime: { code: number | null; signal: NodeJS.Signals | null } | 'not within 10 s';
  let stderr = '';

  before(async () => {
    let key: string;
    ({ dataDir, key } = await setUp());
    const server = await serve(dataDir);
    traffic = load(server.base, key, () => performance.now() > termAt);
    // Steady load first: waiting on completed responses rather than on the clock keeps a slow machine honest.
    // Eight more after the first 16: every loop has come round at least once.
    await waitFor(() => traffic.outcomes.filter((o) => o.complete).length >= 24, 60_000);
    // One more client, like a browser or a proxy's connection pool: its request is in flight at the
    // signal, and afterwards it keeps its kept-alive connection open without sending anything more.
    const holder = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const held: Outcome = {
      sql: 'select -1 as id, count(*) as n from t a, t b where a.x + b.x > 100',
      sentAt: performance.now(),
      doneAt: 0,
      complete: false,
    };
    traffic.outcomes.push(held);
    let sent!: () => void;
    const heldSent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const heldDone = get(holder, dataUrl(server.base, 'alice/numbers', 'json', { key, query: held.sql }), held, sent).then(
      (body) => Object.assign(held, { complete: true, bytes: body.length, ownAnswer: body.includes('"id":-1'), doneAt: performance.now() }),
      (err: unknown) => Object.assign(held, { error: String(err), doneAt: performance.now() }),
    );
    await heldSent;
    termAt = performance.now();
    server.child.kill('SIGTERM');
    exitInTime = await withTimeout(server.exited, 10_000, 'stopping').catch(() => 'not within 10 s' as const);
    // Whatever happened, let the server finish (clients leaving close their idle connections) so
    // the download accounting below is checked too; kill it only as a last resort.
    traffic.stop();
    traffic.disconnect();
    holder.destroy();
    await heldDone;
    await withTimeout(server.exited, 20_000, 'stopping once clients left').catch(() => server.child.kill('SIGKILL'));
    await traffic.done;
    stderr = server.stderr();
  });

  test('serve exits with status 0 within 10 s, even while clients keep their connections open', () => {
    assert.deepEqual(exitInTime, { code: 0, signal: null }, stderr);
  });

  test('requests in flight at the signal are finished; no response is cut short', () => {
    const { outcomes } = traffic;
    // Until SIGTERM the server was up: every request answered by then was answered in full, with 200.
    assert.deepEqual(
      outcomes.filter((o) => o.doneAt < termAt && (!o.complete || o.status !== 200)),
      [],
    );
    assert.deepEqual(
      outcomes.filter((o) => o.status === 200 && !o.ownAnswer),
      [],
    );
    // Eight requests are in flight at any moment, so some must have been finished after the signal.
    assert.ok(
      outcomes.some((o) => o.complete && o.status === 200 && o.doneAt >= termAt),
      'in-flight requests finished',
    );
    // A failure after the signal is a refused or closed connection, never a response that started and broke off.
    assert.deepEqual(
      outcomes.filter((o) => !o.complete && o.status !== undefined),
      [],
      'no response was cut short',
    );
  });

  test('every response received in full has exactly one download row, and there are no others', () => {
    const { outcomes } = traffic;
    const received = outcomes.filter((o) => o.complete);
    // A request reaching a closing server on a kept-alive connection is turned away with 503 before
    // Siphon's handler runs: the server refused it, so it is not a download (like a refused connection).
    const refused = received.filter((o) => o.status === 503 && o.doneAt >= termAt);
    const served = received.filter((o) => !refused.includes(o));
    const byQuery = downloadsByQuery(readDownloads(dataDir));
    for (const o of served) {
      const rows = byQuery.get(o.sql) ?? [];
      assert.equal(rows.length, 1, `one download for ${o.sql} (status ${o.status})`);
      assert.equal(rows[0]!.status, o.status);
      if (o.status === 200) assert.equal(rows[0]!.bytes, o.bytes);
    }
    for (const o of refused) assert.equal(byQuery.get(o.sql), undefined, `no download for the refused ${o.sql}`);
    // No request the client saw fail (a refused or closed connection, so no status) was counted either.
    const total = [...byQuery.values()].reduce((n, rows) => n + rows.length, 0);
    assert.equal(
      total,
      served.length,
      `downloads vs responses served in full (${refused.length} refused with 503, ${outcomes.length - received.length} failed)`,
    );
  });
});

test('SIGTERM writes every download still waiting for its batch', async (t) => {
  const { dataDir, key } = await setUp();
  // All 40 calls at once, from one key: its queue must hold them (2 run, the rest wait their turn).
  const server = await serve(dataDir, ['--key-queue', '40']);
  t.after(() => {
    server.child.kill('SIGKILL');
  }); // does nothing once it has exited
  const sql = Array.from({ length: 40 }, (_, i) => `select ${i} as id`);
  const statuses = await Promise.all(
    sql.map(async (query) => {
      const res = await fetch(dataUrl(server.base, 'alice/numbers', 'json', { key, query }));
      await res.arrayBuffer();
      return res.status;
    }),
  );
  assert.deepEqual(
    statuses,
    sql.map(() => 200),
  );
  // At once: downloads are written in batches a tenth of a second apart, so some are still waiting.
  const writtenBefore = countRows(dataDir).downloads;
  server.child.kill('SIGTERM');
  assert.deepEqual(await withTimeout(server.exited, 10_000, 'stopping'), { code: 0, signal: null }, server.stderr());
  t.diagnostic(`${sql.length - writtenBefore} of ${sql.length} downloads were waiting to be written at the signal`);
  assert.deepEqual(
    readDownloads(dataDir)
      .map((r) => r.query)
      .sort(),
    [...sql].sort(),
  );
});

test('SIGTERM does not wait for a connection that never sent a byte', async (t) => {
  const { dataDir } = await setUp();
  // A client idle timeout far longer than the wait below: Node alone would keep the silent
  // connection (a browser's or fetch's spare one) open until it ran out.
  const server = await serve(dataDir, ['--client-idle-timeout', '600']);
  t.after(() => {
    server.child.kill('SIGKILL');
  });
  const silent = connect(server.port, '127.0.0.1');
  await once(silent, 'connect');
  const closed = once(silent, 'close');
  silent.resume();
  server.child.kill('SIGTERM');
  assert.deepEqual(await withTimeout(server.exited, 10_000, 'stopping'), { code: 0, signal: null }, server.stderr());
  await withTimeout(closed, 5000, 'the silent connection closing');
});

test('SIGKILL under load: siphon.db opens afterwards and keeps the downloads recorded until shortly before', async () => {
  const { dataDir, key } = await setUp();
  const server = await serve(dataDir);
  let killAt = Infinity;
  const traffic = load(server.base, key, () => performance.now() > killAt);
  try {
    // The check below looks 1 s back from the kill: wait until 16 responses are that old.
    await waitFor(() => traffic.outcomes.filter((o) => o.complete && o.doneAt < performance.now() - 1000).length >= 16, 60_000);
    killAt = performance.now();
    server.child.kill('SIGKILL');
    assert.equal((await withTimeout(server.exited, 10_000, 'dying after SIGKILL')).signal, 'SIGKILL');
  } finally {
    traffic.stop();
    traffic.disconnect();
  }
  await traffic.done;

  // A commit is durable once made; only the ones in the last instant may be missing, so look 1 s back.
  const settled = traffic.outcomes.filter((o) => o.complete && o.doneAt < killAt - 1000);
  assert.ok(settled.length >= 16, `enough responses completed well before the kill: ${settled.length}`);
  const db = openMeta(dataDir);
  try {
    assert.equal(db.pragma('quick_check', { simple: true }), 'ok');
    const rows = db.prepare('select * from downloads order by id').all() as DownloadRow[];
    const byQuery = downloadsByQuery(rows);
    for (const o of settled) {
      assert.equal(byQuery.get(o.sql)?.length, 1, `download kept for ${o.sql}`);
      assert.equal(byQuery.get(o.sql)![0]!.status, o.status);
    }
    // Nothing appears that was never asked for.
    const asked = new Set(traffic.outcomes.map((o) => o.sql));
    assert.deepEqual(
      rows.filter((r) => !asked.has(r.query ?? '')),
      [],
    );
  } finally {
    db.close();
  }
});

test('SIGKILL: the query processes die with the server, one deep in a runaway query too', async (t) => {
  const { dataDir, key } = await setUp();
  const server = await serve(dataDir);
  t.after(() => {
    server.child.kill('SIGKILL');
  });
  // One SQLite step that never ends: its process reads nothing, so it cannot see its server go.
  const call = fetch(dataUrl(server.base, 'alice/numbers', 'json', { key, query: runaway })).catch(() => undefined);
  const queryProcesses = () => childrenRunning('pool/child.js', server.child.pid!);
  await waitFor(async () => (await working(queryProcesses(), 200)).length === 1, 20_000);
  const all = queryProcesses();
  server.child.kill('SIGKILL');
  await call;
  // The idle one sees its channel close and exits; the kernel kills the busy one with its parent.
  await waitFor(() => all.every((pid) => !isRunning(pid)), 10_000);
});
