/**
 * `node dist/bench/cpu-costs.js [DATA_DIR]`: what a small query, a 304 and an exported row cost in
 * CPU time, in the server process and in its query processes, read from /proc. CPU time moves far
 * less than wall time when other work shares the machine, so this measures one change before and
 * after where `npm run bench` could not. Requests go one after another on a few keep-alive
 * connections (the bench's own client), so the client's CPU is not counted. With DATA_DIR (a folder
 * this script prepared before, kept with `--keep`), the 1M-row fixture is not built again.
 */
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureRows } from './fixture.js';
import { exportOnce } from './http-client.js';
import { childPids, cpuSnapshot, median } from './proc-stats.js';
import { exportSql, smallSql } from './queries.js';
import { dataPath, startSiphon, tempDir } from './servers.js';
import { prepareData } from './setup.js';

const serverFlags = ['--rate-limit', '0', '--query-timeout', '120'];
const smallRequests = 4000;
const parallel = 4;
const runs = 3;

interface Costs {
  mainUs: number;
  queryUs: number;
}

/** With `--profile DIR`: every process's V8 profile of each measure, as DIR/<measure>/<pid>.cpuprofile (profile-preload.ts). */
const profileAt = process.argv.indexOf('--profile');
const profileDir = profileAt === -1 ? undefined : path.resolve(process.argv[profileAt + 1]!);
const preload = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'profile-preload.js')).href;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Profiles `work` in the server and its query processes, when asked to, into profileDir/`name`. */
async function profiled(pid: number, name: string, work: () => Promise<void>): Promise<void> {
  if (!profileDir) return work();
  const pids = [pid, ...childPids(pid)];
  for (const p of pids) process.kill(p, 'SIGUSR2');
  await work();
  const files = () => readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
  const alive = pids.filter((p) => existsSync(`/proc/${p}`));
  for (const p of alive) process.kill(p, 'SIGUSR2');
  for (let i = 0; i < 100 && files().length < alive.length; i++) await sleep(50);
  mkdirSync(path.join(profileDir, name), { recursive: true });
  for (const f of files()) renameSync(path.join(profileDir, f), path.join(profileDir, name, f));
}

/** CPU of the server (all threads) and of its query processes, in µs, over `work`, per `n`. */
async function cpuPer(pid: number, n: number, work: () => Promise<void>): Promise<Costs> {
  const a = cpuSnapshot(pid);
  await work();
  const b = cpuSnapshot(pid);
  let children = 0;
  for (const [p, ms] of b.children) children += ms - (a.children.get(p) ?? 0);
  return { mainUs: ((b.mainMs - a.mainMs) * 1000) / n, queryUs: (children * 1000) / n };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });

/** Each process's count of voluntary context switches (it went to sleep, waiting on something). */
function voluntarySwitches(pids: number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const pid of pids) {
    try {
      const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) counts.set(pid, Number(m[1]));
    } catch {
      // gone
    }
  }
  return counts;
}

function request(url: string, headers: Record<string, string>): Promise<{ status: number; etag?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag }));
      })
      .on('error', reject);
  });
}

/** `count` requests, `parallel` at a time, each checked for its status. */
async function many(count: number, url: (i: number) => string, headers: Record<string, string>, status: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const r = await request(url(i), headers);
        if (r.status !== status) throw new Error(`request ${i}: status ${r.status}, expected ${status}`);
      }
    }),
  );
}

function show(what: string, all: Costs[], unit: string): string {
  const main = median(all.map((c) => c.mainUs));
  const query = median(all.map((c) => c.queryUs));
  const runsText = all.map((c) => `${c.mainUs.toFixed(1)}+${c.queryUs.toFixed(1)}`).join(', ');
  return `${what.padEnd(22)} main ${main.toFixed(2).padStart(7)} + query processes ${query.toFixed(2).padStart(7)} = ${(main + query).toFixed(2).padStart(7)} µs/${unit}   (runs: ${runsText})`;
}

async function main(): Promise<void> {
  // The one argument that is not a flag, nor --profile's folder.
  const given = process.argv.slice(2).find((a, i, args) => !a.startsWith('--') && args[i - 1] !== '--profile');
  const keep = process.argv.includes('--keep');
  // Kept: made apart from tempDir(), whose folders are removed when the process ends.
  const workDir = given ?? (keep ? mkdtempSync(path.join(os.tmpdir(), 'siphon-cpu-costs-')) : tempDir('siphon-cpu-costs-'));
  const keysFile = path.join(workDir, 'keys.json');
  let keys: string[];
  if (given && existsSync(keysFile)) {
    keys = JSON.parse(readFileSync(keysFile, 'utf8')) as string[];
  } else {
    keys = (await prepareData(workDir, ['bench', ...Array.from({ length: 8 }, (_, i) => `client${i}`)])).keys;
    writeFileSync(keysFile, JSON.stringify(keys));
  }
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const env = profileDir
    ? { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`, SIPHON_PROFILE_DIR: profileDir }
    : process.env;
  const server = await startSiphon(path.join(workDir, 'data'), serverFlags, env);
  const lines = [
    `${new Date().toISOString()}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, query processes ${childPids(server.pid).length}`,
  ];
  try {
    const small = (i: number) =>
      `${server.base}${dataPath('bench/big', 'json', keys[i % keys.length]!, smallSql.replace('{id}', String((i * 7919) % (fixtureRows - 10))))}`;
    const fixed = `${server.base}${dataPath('bench/big', 'json', keys[0]!, smallSql.replace('{id}', '1000'))}`;
    await many(500, small, {}, 200); // warm-up
    const smallCosts: Costs[] = [];
    await profiled(server.pid, 'small', async () => {
      for (let r = 0; r < runs; r++) smallCosts.push(await cpuPer(server.pid, smallRequests, () => many(smallRequests, small, {}, 200)));
    });
    lines.push(show('small query (10 rows)', smallCosts, 'request'));

    const { etag } = await request(fixed, {});
    if (!etag) throw new Error('no ETag');
    await many(500, () => fixed, { 'if-none-match': etag }, 304);
    const notModified: Costs[] = [];
    await profiled(server.pid, '304', async () => {
      for (let r = 0; r < runs; r++)
        notModified.push(await cpuPer(server.pid, smallRequests, () => many(smallRequests, () => fixed, { 'if-none-match': etag }, 304)));
    });
    lines.push(show('304', notModified, 'request'));

    const formats = (process.env.CPU_COSTS_FORMATS ?? 'json,csv,ndjson').split(',').filter(Boolean);
    for (const format of formats) {
      const url = `${server.base}${dataPath('bench/big', format, keys[1]!, exportSql)}`;
      const costs: Costs[] = [];
      // Wall time too, for what it is worth on a busy machine: a stall shows there, not in CPU time;
      // and how often the query processes went to sleep (waiting on a pipe), which load hardly moves.
      const rates: string[] = [];
      const sleeps: string[] = [];
      await profiled(server.pid, `export-${format}`, async () => {
        for (let r = 0; r < (Number(process.env.CPU_COSTS_EXPORT_RUNS) || 1); r++) {
          costs.push(
            await cpuPer(server.pid, fixtureRows, async () => {
              const before = voluntarySwitches(childPids(server.pid));
              const a = await exportOnce(url, 'identity');
              if (a.status !== 200 || !a.complete) throw new Error(`${format} export: status ${a.status}, complete ${a.complete}`);
              rates.push(`${(fixtureRows / a.ms).toFixed(0)}k`);
              const after = voluntarySwitches(childPids(server.pid));
              let slept = 0;
              for (const [pid, n] of after) slept += n - (before.get(pid) ?? n);
              sleeps.push(String(slept));
            }),
          );
        }
      });
      lines.push(
        `${show(`export ${format}`, costs, 'row')}   rows/s ${rates.join(', ')}; query processes slept ${sleeps.join(', ')} times`,
      );
    }
  } finally {
    await server.stop();
    agent.destroy();
    if (!given && !keep) rmSync(workDir, { recursive: true, force: true });
  }
  if (keep && !given) lines.push(`data kept in ${workDir}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`cpu-costs failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
