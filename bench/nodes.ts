/**
 * Small-query throughput of one node on SQLite, one node on PostgreSQL, and two nodes on one
 * PostgreSQL database (`node dist/bench/nodes.js`, after `npm run build`; needs wrk and a PostgreSQL
 * server where user postgres may create databases: $SIPHON_TEST_DATABASE_URL's, else 127.0.0.1:5432).
 * Each node is `bin/siphon serve` with its defaults, the rate limit on (so the PostgreSQL one counts
 * in the database at every request) but far above what the load reaches. Two nodes get one wrk each,
 * half the connections each, at the same time; their figures are added. Everything (the nodes, their
 * query processes, PostgreSQL and wrk) shares this machine's cores.
 */
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../test/helpers/pg-database.js';
import { connections, smallQueryLoad } from './queries.js';
import { prepareData } from './setup.js';
import { startSiphon, tempDir, type ServerProcess } from './servers.js';
import { checkWrk, runLoad, type LoadResult } from './wrk.js';

const warmupSeconds = 2;
const loadSeconds = 8;
const serverFlags = ['--rate-limit', '100000000', '--query-timeout', '120'];
const progress = (msg: string) => process.stderr.write(`[nodes] ${msg}\n`);

/** Small queries on every node at once (the connections shared out), their results added. */
async function measure(nodes: ServerProcess[], keys: string[], workDir: string): Promise<LoadResult> {
  const per = connections / nodes.length;
  const specs = nodes.map((node, i) =>
    smallQueryLoad(node.base, keys.slice(i * per, (i + 1) * per), loadSeconds, {
      connections: per,
      threads: Math.max(1, 2 / nodes.length),
    }),
  );
  await Promise.all(specs.map((spec) => runLoad({ ...spec, seconds: warmupSeconds }, workDir)));
  const results = await Promise.all(specs.map((spec) => runLoad(spec, workDir)));
  return {
    requests: results.reduce((n, r) => n + r.requests, 0),
    perSecond: results.reduce((n, r) => n + r.perSecond, 0),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    wrong: results.reduce((n, r) => n + r.wrong, 0),
    firstWrong: results.map((r) => r.firstWrong).join(''),
    socketErrors: results.reduce((n, r) => n + r.socketErrors, 0),
  };
}

async function main(): Promise<void> {
  checkWrk();
  const workDir = tempDir('siphon-bench-nodes-');
  const database = await createTestDatabase();
  const running: ServerProcess[] = [];
  const start = async (dataDir: string, env: NodeJS.ProcessEnv) => {
    const node = await startSiphon(dataDir, serverFlags, env);
    running.push(node);
    return node;
  };
  const stopAll = async () => {
    for (const node of running.splice(0)) await node.stop();
  };
  const loadAtStart = os.loadavg()[0]!;
  try {
    // The scraper's owner, then one account per connection.
    const names = ['bench', ...Array.from({ length: connections }, (_, i) => `client${i}`)];
    const sqlite = await prepareData(workDir, names);
    const pg = await prepareData(workDir, names, {
      databaseUrl: database.url,
      fixtureFile: sqlite.fixtureFile,
      dataDir: path.join(workDir, 'pg-data'),
    });
    const pgEnv = { ...process.env, SIPHON_DATABASE_URL: database.url };
    const rows: [string, LoadResult][] = [];

    await start(sqlite.dataDir, process.env);
    rows.push(['one node, SQLite', await measure(running, sqlite.keys.slice(1), workDir)]);
    progress(`one node, SQLite: ${rows.at(-1)![1].perSecond.toFixed(0)}/s`);
    await stopAll();
    await start(pg.dataDir, pgEnv);
    rows.push(['one node, PostgreSQL', await measure(running, pg.keys.slice(1), workDir)]);
    progress(`one node, PostgreSQL: ${rows.at(-1)![1].perSecond.toFixed(0)}/s`);
    await start(pg.dataDir, pgEnv);
    rows.push(['two nodes, PostgreSQL', await measure(running, pg.keys.slice(1), workDir)]);
    progress(`two nodes, PostgreSQL: ${rows.at(-1)![1].perSecond.toFixed(0)}/s`);
    await stopAll();

    const load = `load average ${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0]!.toFixed(1)} at end, ${os.cpus().length} cores`;
    process.stdout.write(`| setup | small queries/s | p50 ms | p99 ms | wrong |\n|---|---|---|---|---|\n`);
    for (const [what, r] of rows) {
      process.stdout.write(
        `| ${what} | ${r.perSecond.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.wrong + r.socketErrors} |\n`,
      );
    }
    process.stdout.write(`\n${load}\n`);
  } finally {
    await stopAll().catch(() => {});
    await database.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
