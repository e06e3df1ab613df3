/**
 * `npm run profile`: where Siphon's CPU time goes, per small query and per exported row. Runs
 * `bin/siphon serve` with V8's CPU profiler in every process (profile-preload.ts, loaded through
 * NODE_OPTIONS, which its query processes inherit), on during a small-query load after its warm-up,
 * then during one full json export; prints the top functions and places by self time, per request
 * or per row, for the main process and the query processes.
 * Profiles are kept in bench/results/profiles/ (open them in Chrome DevTools or speedscope).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTop, summarise } from './cpuprofile-top.js';
import { fixtureRows } from './fixture.js';
import { exportOnce } from './http-client.js';
import { childPids, cpuBetween, cpuSnapshot, type Cores } from './proc-stats.js';
import { connections, exportSql, smallQueryLoad } from './queries.js';
import { dataPath, repoRoot, startSiphon, tempDir } from './servers.js';
import { prepareData } from './setup.js';
import { checkWrk, runLoad } from './wrk.js';

const loadSeconds = 10;
const top = 20;
const serverFlags = ['--rate-limit', '0', '--query-timeout', '120'];
const preload = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'profile-preload.js')).href;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a server whose processes can all be profiled, runs `warmUp` unprofiled, then `work` with the
 * profiler on in the main process and in every query process (SIGUSR2 on and off, see
 * profile-preload.ts), and returns the profile files of each. With `windowMs`, the profilers are
 * stopped that long after `work` starts, while it still runs: a load generator that stops drops the
 * requests in flight, and Siphon kills the query processes running them, profiles and all.
 */
async function profiled(o: {
  dataDir: string;
  profileDir: string;
  warmUp: (base: string) => Promise<void>;
  work: (base: string) => Promise<void>;
  windowMs?: number;
}): Promise<{ main: string[]; queries: string[]; windowMs: number; cpu: Cores }> {
  mkdirSync(o.profileDir, { recursive: true });
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`;
  const server = await startSiphon(o.dataDir, serverFlags, { ...process.env, NODE_OPTIONS: nodeOptions, SIPHON_PROFILE_DIR: o.profileDir });
  const files = () => readdirSync(o.profileDir).filter((f) => f.endsWith('.cpuprofile'));
  let windowMs: number;
  let cpu: Cores;
  try {
    await o.warmUp(server.base);
    // A load generator that stops drops its requests in flight, and the pool replaces the query
    // processes that ran them: let the replacements start (SIGUSR2 before the preload's handler is in
    // place would end them).
    await sleep(2000);
    const pids = [server.pid, ...childPids(server.pid)];
    const signal = (list: number[]) => {
      for (const pid of list) process.kill(pid, 'SIGUSR2');
    };
    signal(pids);
    const cpu0 = cpuSnapshot(server.pid);
    const started = performance.now();
    const work = o.work(server.base);
    if (o.windowMs) await sleep(o.windowMs);
    else await work;
    const alive = pids.filter((pid) => existsSync(`/proc/${pid}`));
    signal(alive);
    windowMs = performance.now() - started;
    cpu = cpuBetween(cpu0, cpuSnapshot(server.pid));
    await work;
    for (let i = 0; i < 200 && files().length < alive.length; i++) await sleep(50);
  } finally {
    await server.stop();
  }
  const paths = files().map((f) => path.join(o.profileDir, f));
  const pidOf = (f: string) => Number(path.basename(f, '.cpuprofile'));
  return { main: paths.filter((f) => pidOf(f) === server.pid), queries: paths.filter((f) => pidOf(f) !== server.pid), windowMs, cpu };
}

/**
 * V8 samples the JavaScript thread by the wall clock: time it was ready to run but had no core
 * (another process of ours, or wrk, had it) is charged to whatever it was doing. /proc counts the
 * CPU every thread of the process really had (V8's GC helpers and libuv's pool too), so the two
 * differ both ways.
 */
function report(
  title: string,
  files: { main: string[]; queries: string[]; windowMs: number; cpu: Cores },
  per: { n: number; unit: string },
): string {
  const out = [`## ${title}`];
  const procMs = { main: files.cpu.main * files.windowMs, queries: files.cpu.queryProcesses * files.windowMs };
  for (const [who, list, cpuMs] of [
    ['main process', files.main, procMs.main],
    [`query processes (${files.queries.length} profiles)`, files.queries, procMs.queries],
  ] as const) {
    const s = summarise(list);
    const digits = per.n > 100_000 ? 2 : 1;
    out.push(
      '',
      `### ${who}: ${(s.totalUs / 1000).toFixed(0)} ms sampled, ${(s.totalUs / per.n).toFixed(digits)} µs per ${per.unit}; ` +
        `CPU from /proc (all threads): ${cpuMs.toFixed(0)} ms, ${((cpuMs * 1000) / per.n).toFixed(digits)} µs per ${per.unit}`,
    );
    out.push(formatTop('by function (self time):', s.functions, s.totalUs, top, per));
    out.push(formatTop('by place:', s.places, s.totalUs, 12, per));
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  checkWrk();
  const workDir = tempDir('siphon-profile-');
  try {
    const data = await prepareData(workDir, ['bench', ...Array.from({ length: connections }, (_, i) => `client${i}`)]);
    const [key, ...clientKeys] = data.keys as [string, ...string[]];
    const resultsDir = path.join(repoRoot, 'bench', 'results');
    const keptDir = path.join(resultsDir, 'profiles');
    rmSync(keptDir, { recursive: true, force: true });

    // The load runs 2 s longer than the profiles, which count the requests of their window at the load's mean rate.
    let load = { requests: 0, wrong: 0, perSecond: 0 };
    const small = await profiled({
      dataDir: data.dataDir,
      profileDir: path.join(workDir, 'small'),
      windowMs: loadSeconds * 1000,
      warmUp: async (base) => {
        await runLoad(smallQueryLoad(base, clientKeys, 2), workDir);
      },
      work: async (base) => {
        const r = await runLoad(smallQueryLoad(base, clientKeys, loadSeconds + 2), workDir);
        load = { requests: r.requests, wrong: r.wrong + r.socketErrors, perSecond: r.perSecond };
      },
    });
    const requests = Math.round(load.perSecond * (small.windowMs / 1000));
    const wrong = load.wrong;
    process.stderr.write(`small queries: ~${requests} requests profiled (${wrong} wrong)\n`);

    let exportProblem = '';
    const exportUrl = (base: string, sql: string) => `${base}${dataPath('bench/big', 'json', key, sql)}`;
    const json = await profiled({
      dataDir: data.dataDir,
      profileDir: path.join(workDir, 'export'),
      warmUp: async (base) => {
        await exportOnce(exportUrl(base, `${exportSql} limit 1000`), 'identity');
      },
      work: async (base) => {
        const r = await exportOnce(exportUrl(base, exportSql), 'identity');
        if (r.status !== 200 || r.newlines !== fixtureRows + 1) exportProblem = `status ${r.status}, ${r.newlines} lines`;
      },
    });
    process.stderr.write(`json export: ${exportProblem || 'complete'}\n`);

    const text = [
      `# Siphon CPU profiles, ${new Date().toISOString()}`,
      `Self time per function and per place (a file of ours, an npm package, a part of Node); idle left out.${wrong || exportProblem ? `\nPROBLEMS: ${wrong} wrong answers; export: ${exportProblem}` : ''}`,
      '',
      report(
        `Small queries (${connections} connections, ${(small.windowMs / 1000).toFixed(1)} s at ${load.perSecond.toFixed(0)} req/s: ~${requests} requests, json, 10 rows each)`,
        small,
        { n: requests, unit: 'request' },
      ),
      '',
      report(`One full json export (\`${exportSql}\`, ${fixtureRows} rows)`, json, { n: fixtureRows, unit: 'row' }),
    ].join('\n');
    process.stdout.write(`${text}\n`);
    mkdirSync(keptDir, { recursive: true });
    cpSync(path.join(workDir, 'small'), path.join(keptDir, 'small-queries'), { recursive: true });
    cpSync(path.join(workDir, 'export'), path.join(keptDir, 'json-export'), { recursive: true });
    writeFileSync(path.join(resultsDir, 'profile.txt'), `${text}\n`);
    process.stderr.write('wrote bench/results/profile.txt and bench/results/profiles/\n');
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`profile failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
