/**
 * Thousands of random and malformed requests over real TCP (raw sockets: fetch() refuses to send
 * most of them), from the seeded generator in fuzz-requests.ts. Every answer must be a well-formed
 * Siphon answer with no 5xx and no key in it, no connection may be dropped unanswered unless its
 * request was cut short, and the server must be alive with its memory back near where it started.
 *
 * The seed is printed; SIPHON_FUZZ_SEED=<seed> replays a run, SIPHON_FUZZ_COUNT=<n> changes its size.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { hashPassword } from '../../src/accounts/passwords.js';
import { newKey } from '../../src/keys.js';
import { fuzzRequest, Random, type FuzzContext, type FuzzRequest } from './fuzz-requests.js';
import { planningSql } from '../helpers/browser.js';
import { waitFor } from '../helpers/cli.js';
import { makeDb } from '../helpers/fixture-db.js';
import { treeResidentBytes } from '../helpers/processes.js';
import { rawExchange, type RawExchange } from '../helpers/raw-http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { documentedStatus, errorShapeProblem } from '../helpers/siphon-answers.js';
import { WebClient } from '../helpers/web-client.js';

const seed = Number(process.env.SIPHON_FUZZ_SEED ?? randomInt(2 ** 31));
const count = Number(process.env.SIPHON_FUZZ_COUNT ?? 20_000);
/** Requests in flight at once. */
const concurrency = 16;
/** Run first, so that the memory baseline is taken with every code path warm. */
const warmUp = 1_000;
/**
 * What the run may leave behind, once collected: objects still held (V8's heap and the buffers
 * outside it: exact, so a leak of 1 KB a request would fail it)…
 */
const allowedRetainedMb = 16;
/**
 * …and resident memory, which also holds what the allocator keeps of the pages the run's largest
 * requests used (measured: +40 to +70 MB after 20,000 requests, the same after 40,000).
 */
const allowedResidentMb = 128;
/**
 * …and the resident memory of the server's whole process tree, read from /proc (its query processes
 * too: two for the API, one for previews): the server's allowance, and 64 MB more for the query
 * processes, each holding SQLite's page cache and what the allocator kept of its largest query
 * (a few MB each; one replaced after a kill starts smaller, so the tree can shrink: measured -17 to
 * +5 MB after 3,000 requests, -1 MB after 20,000). A leak of 10 KB a request in any of them would exceed it.
 */
const allowedTreeMb = 192;

let server: TestServer;
let port: number;
let ctx: FuzzContext;
let logLines = 0;
/** The log's last characters, so that a key split across two chunks is still seen. */
let logTail = '';
/** Keys found in the log (none may be). */
const loggedKeys = new Set<string>();

before(async () => {
  // A short idle time, so that requests announcing more than they send are let go soon. The log is
  // read as it comes, not kept, so that it does not count as the server's memory.
  // Few wrong passwords and sign-ups per address before they are refused unhashed: each hash is
  // ~0.2 s of CPU, and the run's forms come from one address.
  server = await startServer({ clientIdleTimeoutMs: 1000, loginFailuresPerAddress: 10, signupsPerAddress: 2 }, (chunk) => {
    logLines += chunk.split('\n').length - 1;
    const text = logTail + chunk;
    // The keys are made just below, once the server runs; nothing before them can hold them.
    for (const key of Object.values(ctx?.keys ?? {})) if (text.includes(key.slice(4))) loggedKeys.add(key);
    logTail = text.slice(-64);
  });
  port = Number(new URL(server.base).port);
  const { key: valid } = await server.catalog.addUser('alice');
  const revoked = await server.catalog.createKey('alice');
  await server.catalog.revokeKey(revoked);
  await server.catalog.addScraper('alice/planning', makeDb(server.dataDir, 'planning.sqlite', planningSql), {
    isPrivate: false,
    description: 'Planning',
  });
  // bob signed in on the web, owner of a scraper of his own, so that the fuzz's forms reach their
  // handlers past the CSRF check (and revoke none of the keys above).
  const password = 'the fuzz visitor password';
  const { account: bob } = await server.catalog.addUser('bob');
  await server.store.setPasswordHash(bob.id, await hashPassword(password));
  await server.catalog.addScraper('bob/notes', makeDb(server.dataDir, 'notes.sqlite', planningSql), { isPrivate: false, description: '' });
  // Its connections closed once answered: the memory is measured once the server holds none.
  const web = new WebClient(server.base, { connection: 'close' });
  assert.equal((await web.logIn('bob', password)).status, 303);
  const visitor = { cookie: web.cookieHeader(), csrf: await web.token('/account'), account: 'bob', password, scraper: 'bob/notes' };
  ctx = { keys: { valid, revoked, unknown: newKey() }, scrapers: ['alice/planning'], visitor };
});
after(() => server.close());

/** The test process's own garbage collector (the server runs in it), without --expose-gc on the command line. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** What is wrong with the exchange, or undefined. */
function problem(request: FuzzRequest, exchange: RawExchange): string | undefined {
  if (exchange.unparsable) return `the answer is not HTTP: ${exchange.unparsable}`;
  const res = exchange.responses[0];
  if (!res)
    return request.truncated
      ? undefined
      : `no answer (${exchange.closedEarly ? 'closed' : 'timed out'}${exchange.error ? `, ${exchange.error}` : ''})`;
  const raw = res.raw.toString('latin1');
  for (const key of request.keys) if (raw.includes(key)) return `a key came back in the ${res.status} answer`;
  if (res.status >= 500 || res.status < 200) return `status ${res.status}: ${res.body.toString().slice(0, 200)}`;
  if (res.status >= 300 && res.status < 400 && res.status !== 304) {
    // A redirect goes to a path of this site, in printable ASCII, whatever the request asked for.
    const location = res.headers.location ?? '';
    return /^\/(?![/\\])[\x21-\x7e]*$/.test(location) ? undefined : `a ${res.status} to ${JSON.stringify(location)}`;
  }
  if (res.status < 400) return undefined;
  const answer = { status: res.status, headers: res.headers, body: res.body.toString('utf8') };
  if ((res.headers['content-type'] ?? '').startsWith('text/html')) {
    // A page's error: an HTML page for people, with the code as the API's errors have it.
    const code = res.headers['siphon-error-code'];
    if (code === undefined || documentedStatus.get(code) !== String(res.status)) return `an error page with code ${code}`;
    return request.head || answer.body.startsWith('<!doctype html>') ? undefined : 'an error page that is not HTML';
  }
  return errorShapeProblem(answer, request.head ? 'HEAD' : 'GET');
}

test(
  `${count.toLocaleString('en')} random and malformed requests, each answered in Siphon's shape, and the server unharmed`,
  { timeout: 180_000 },
  async (t) => {
    t.diagnostic(`fuzz seed ${seed}: replay with SIPHON_FUZZ_SEED=${seed}`);
    const gc = collector();
    const random = new Random(seed);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let unanswered = 0;

    /** Sends requests from the one generator, in its order, until `until` have been sent. */
    async function worker(until: number): Promise<void> {
      while (sent < until) {
        const index = sent;
        sent += 1;
        const request = fuzzRequest(random, ctx);
        const exchange = await rawExchange(port, request.bytes, {
          head: request.head,
          halfClose: request.truncated,
          pieces: request.pieces,
          timeoutMs: 15_000,
        });
        const res = exchange.responses[0];
        if (res) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        else unanswered += 1;
        const wrong = problem(request, exchange);
        if (wrong && failures.length < 20) failures.push(`#${index} ${request.summary}: ${wrong}`);
      }
    }
    const run = (until: number) => Promise.all(Array.from({ length: concurrency }, () => worker(until)));

    // Every client here closes its connection once answered, so the server's side closes soon too:
    // memory is measured once it has.
    const allClosed = () => waitFor(async () => (await server.connections()) === 0, 30_000);
    await run(warmUp);
    await allClosed();
    gc();
    const baseline = process.memoryUsage();
    const treeBaseline = treeResidentBytes();
    await run(count);
    await allClosed();
    gc();
    gc();
    const end = process.memoryUsage();
    const mb = (bytes: number) => bytes / 2 ** 20;
    const retainedMb = mb(end.heapUsed + end.external - baseline.heapUsed - baseline.external);
    const residentMb = mb(end.rss - baseline.rss);
    const treeMb = mb(treeResidentBytes() - treeBaseline);
    t.diagnostic(
      `statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}; unanswered (truncated): ${unanswered}`,
    );
    const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)} MB`;
    t.diagnostic(
      `after the run and a collection: ${signed(retainedMb)} of objects kept, ${signed(residentMb)} resident, ${signed(treeMb)} resident with the query processes`,
    );
    assert.deepEqual(failures, [], `seed ${seed}`);
    assert.ok(retainedMb < allowedRetainedMb, `seed ${seed}: the run left ${retainedMb.toFixed(1)} MB of objects`);
    assert.ok(residentMb < allowedResidentMb, `seed ${seed}: resident memory grew by ${residentMb.toFixed(1)} MB`);
    assert.ok(treeMb < allowedTreeMb, `seed ${seed}: the server's process tree grew by ${treeMb.toFixed(1)} MB`);
    // Many kinds of answers came back: the generator reaches the routes, not only the parser.
    for (const status of [200, 400, 401, 404, 405, 413, 415])
      assert.ok(statuses.has(status), `seed ${seed}: no ${status} among the answers`);

    // Alive and well: health, a real query, and no key in anything it logged.
    assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
    const rows = await fetch(`${server.base}/alice/planning/data.json?query=select+count(*)+as+n+from+data`, {
      headers: { 'x-api-key': ctx.keys.valid },
    });
    assert.deepEqual(await rows.json(), [{ n: 4 }]);
    assert.ok(logLines > count, 'the requests were logged');
    assert.deepEqual([...loggedKeys], [], `seed ${seed}: a key was logged`);
  },
);
