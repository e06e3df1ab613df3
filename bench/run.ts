/**
 * Siphon's benchmark. Every speed is reported as a ratio against a baseline measured in the same run
 * on the same machine, never as an absolute pass/fail. Prints a table and writes bench/results/latest.json.
 *
 * Layout: the servers under test run on this process's main thread; the HTTP client runs in a worker
 * thread (client-worker.ts); queries run in Siphon's own child processes.
 */
import Database from 'better-sqlite3';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaults } from '../src/config.js';
import { buildFixture, fixtureRows, inProcessExport, inProcessFirstRow } from './fixture.js';
import { measureFairness } from './fairness.js';
import { measurePageViews } from './page-views.js';
import { HttpClient, type ExportResult } from './http-client.js';
import { printReport, type Results } from './report.js';
import { dataUrl, startFixedBodyServer, startSiphon, tempDir, type BenchServer } from './servers.js';
import { cpuBetween, cpuSnapshot, MemorySampler, median, type MemorySummary } from './stats.js';

const runs = 3;
const formats = ['json', 'csv', 'ndjson'] as const;
const exportSql = 'select * from t';
const smallSql = 'select * from t where id >= IDTOKEN order by id limit 10';
const firstRowSql = 'select * from t order by txt limit 1';
const runawaySql = 'with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c';
const concurrency = 32;
const loadMs = 5000;
const warmupMs = 1000;
const killTimeoutMs = 200;
/** pool.ts waits 250 ms before replacing a process that died less than 1 s after it started. */
const quickDeathMs = 1000;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const progress = (msg: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)} s] ${msg}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const t0 = performance.now();

/** `--query-memory-mb N` / `--query-processes N` override Siphon's defaults (to diagnose, not to tune). */
function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const v = i === -1 ? undefined : Number(process.argv[i + 1]);
  if (v !== undefined && !(v > 0)) throw new Error(`--${name} needs a positive number`);
  return v;
}
const overrides = {
  ...(flag('query-memory-mb') ? { queryMemoryMb: flag('query-memory-mb')! } : {}),
  ...(flag('query-processes') ? { queryProcesses: flag('query-processes')! } : {}),
};

function checkExport(format: string, r: ExportResult): string[] {
  const problems: string[] = [];
  if (r.status !== 200) problems.push(`${format}: status ${r.status}`);
  if (!r.complete) problems.push(`${format}: body cut short (${r.error ?? 'no reason'}) after ${r.bytes} bytes`);
  const expected = format === 'ndjson' ? fixtureRows : fixtureRows + 1; // json: "[\n" … "\n]"; csv: header line
  if (r.newlines !== expected) problems.push(`${format}: ${r.newlines} line breaks, expected ${expected}`);
  return problems;
}

async function main(): Promise<void> {
  const problems: string[] = [];
  const workDir = tempDir('siphon-bench-');
  const servers: { close(): Promise<void> }[] = [];
  const client = new HttpClient();
  try {
    // 1. Fixture, registered through the catalog of a real server.
    let t = performance.now();
    const fixtureFile = buildFixture(workDir);
    const fixtureMs = performance.now() - t;
    const fixtureBytes = statSync(fixtureFile).size;
    progress(`fixture: ${fixtureRows} rows, ${(fixtureBytes / 1e6).toFixed(0)} MB in ${fixtureMs.toFixed(0)} ms`);
    const dataDir = path.join(workDir, 'data');
    mkdirSync(dataDir);
    // The rate limit is off: the load below is one client's worth of requests per key, many times a minute.
    // The time limit is 2 minutes: four 1M-row exports at once share 2 cores for longer than the default 10 s.
    const siphon = await startSiphon({ dataDir, logLevel: 'info', rateLimitPerMinute: 0, queryTimeoutMs: 120_000, ...overrides });
    servers.push(siphon);
    const { key } = await siphon.catalog.addUser('bench');
    // One key per client loop, as separate clients have: a key runs at most --key-concurrency queries at once.
    const clientKeys: string[] = [];
    for (let i = 0; i < concurrency; i++) clientKeys.push((await siphon.catalog.addUser(`client${i}`)).key);
    t = performance.now();
    const scraper = await siphon.catalog.addScraper('bench/big', fixtureFile, { isPrivate: false, description: 'benchmark' });
    const importMs = performance.now() - t;
    rmSync(fixtureFile);
    const served = scraper.data.file;
    const url = (format: string, sql: string) => dataUrl(siphon.base, 'bench/big', format, key, sql);
    progress(`imported through the catalog in ${importMs.toFixed(0)} ms; server at ${siphon.base}`);

    // 2a + 2e. Full exports, interleaved with the in-process baseline round by round.
    const base: { ms: number; bytes: number }[] = [];
    type Run = { ok: boolean; ms: number; bytes: number; ttfbMs: number; memory: MemorySummary & { maxSampleGapMs: number }; cpu: ReturnType<typeof cpuBetween> };
    const exp: Record<string, Run[]> = { json: [], csv: [], ndjson: [] };
    await client.export(url('json', 'select * from t limit 1000')); // start the connection cache of one child
    for (let round = 1; round <= runs; round++) {
      const b = inProcessExport(served, exportSql);
      if (b.rows !== fixtureRows) problems.push(`baseline read ${b.rows} rows`);
      base.push(b);
      progress(`round ${round}: in-process baseline ${b.ms.toFixed(0)} ms`);
      for (const format of formats) {
        const sampler = new MemorySampler(50);
        const cpu0 = cpuSnapshot();
        const r = await client.export(url(format, exportSql));
        const cpu = cpuBetween(cpu0, cpuSnapshot());
        const memory = sampler.stop();
        const failures = checkExport(format, r).map((p) => `round ${round}: ${p}`);
        problems.push(...failures);
        exp[format]!.push({ ok: failures.length === 0, ms: r.ms, bytes: r.bytes, ttfbMs: r.ttfbMs, memory, cpu });
        progress(`round ${round}: ${format} ${r.ms.toFixed(0)} ms, ${(r.bytes / 1e6).toFixed(0)} MB, ` +
          `rss +${((memory.rssPeak - memory.rssBefore) / 1e6).toFixed(0)} MB${failures.length ? ' FAILED' : ''}`);
      }
    }

    // 2b. Small queries under 32 concurrent keep-alive clients, against a bare Fastify with the same body.
    const smallTemplate = dataUrl(siphon.base, 'bench/big', 'json', 'KEYTOKEN', smallSql).replace('IDTOKEN', '{id}').replace('KEYTOKEN', '{key}');
    const sample = (await client.chain([smallTemplate.replace('{id}', '500000').replace('{key}', key)], 1 << 20)).steps[0]!;
    if (sample.status !== 200 || (JSON.parse(sample.body) as unknown[]).length !== 10) problems.push(`small query: status ${sample.status}, body ${sample.body.slice(0, 200)}`);
    progress(`small queries: ${concurrency} clients for ${loadMs} ms (+${warmupMs} ms warm-up), response ${sample.bytes} bytes`);
    const siphonLoad = await measuredLoad(client, { urlTemplate: smallTemplate, maxId: fixtureRows - 9, concurrency, warmupMs, durationMs: loadMs, keys: clientKeys });
    if (siphonLoad.errors || siphonLoad.nonOk) problems.push(`small queries: ${siphonLoad.errors} connection errors, ${siphonLoad.nonOk} non-200 responses`);
    const fixed = await startFixedBodyServer(sample.body);
    servers.push(fixed);
    const baseLoad = await measuredLoad(client, { urlTemplate: `${fixed.base}/fixed`, maxId: 1, concurrency, warmupMs, durationMs: loadMs });
    await fixed.close();
    servers.splice(servers.indexOf(fixed), 1);
    progress(`small queries: siphon ${siphonLoad.perSecond.toFixed(0)}/s, bare fastify ${baseLoad.perSecond.toFixed(0)}/s`);

    // 2f. Small queries alone, then while four full exports stream (two keys, two exports each).
    progress('isolation: small queries alone, then during four json exports');
    const exportKeys = [(await siphon.catalog.addUser('exporter0')).key, (await siphon.catalog.addUser('exporter1')).key];
    const fairness = await measureFairness({
      client, smallTemplate, maxId: fixtureRows - 9, smallKeys: clientKeys, sql: smallSql.replace('IDTOKEN', '<random id>'),
      exportUrls: [0, 0, 1, 1].map((k) => dataUrl(siphon.base, 'bench/big', 'json', exportKeys[k]!, exportSql)), exportSql,
    });
    if (!fairness.exports.allComplete) problems.push('isolation: an export was cut short');
    if (!fairness.exports.stillRunningAtEnd) problems.push('isolation: the exports ended before the small-query load did');
    if (fairness.duringExports.errors || fairness.duringExports.nonOk) problems.push(`isolation: ${fairness.duringExports.errors} errors, ${fairness.duringExports.nonOk} non-200 during exports`);
    progress(`isolation: p99 alone ${fairness.alone.p99Ms.toFixed(1)} ms, during exports ${fairness.duringExports.p99Ms.toFixed(1)} ms`);

    // 2g. Scraper page views with 1,000,000 download records.
    progress('page views: before and after 1,000,000 download records');
    const bigScraper = (await siphon.store.findScraper('bench', 'big'))!;
    const { statuses: pageStatuses, ...pageViews } = await measurePageViews({
      client, base: siphon.base, page: 'bench/big', store: siphon.store, records: 1_000_000,
      template: {
        scraperId: bigScraper.id, accountId: bigScraper.owner.id, keyId: 1, format: 'json', query: 'select 1',
        status: 200, rows: 1, bytes: 10, durationMs: 1,
      },
    });
    if (pageStatuses.some((st) => st !== 200)) problems.push(`page views: statuses ${[...new Set(pageStatuses)].join(', ')}`);
    progress(`page views: median ${pageViews.before.medianMs.toFixed(1)} ms before, ${pageViews.after.medianMs.toFixed(1)} ms after (records written in ${pageViews.recordMs.toFixed(0)} ms)`);

    // 2c. Time to first byte of a query whose first row needs a sort of the whole table.
    const db = new Database(served, { readonly: true, fileMustExist: true });
    inProcessFirstRow(db, firstRowSql); // warm-up
    const inProc: number[] = [];
    for (let i = 0; i < runs; i++) inProc.push(inProcessFirstRow(db, firstRowSql));
    db.close();
    const ttfbChain = await client.chain(Array.from({ length: runs + 1 }, () => url('json', firstRowSql)));
    for (const s of ttfbChain.steps) if (s.status !== 200) problems.push(`first-byte query: status ${s.status} ${s.body}`);
    const ttfb = ttfbChain.steps.slice(1).map((s) => s.ttfbMs);
    progress(`first byte: siphon ${median(ttfb).toFixed(0)} ms, in-process ${median(inProc).toFixed(0)} ms`);

    // 2d. Kill and respawn: a second server, one query process, a 200 ms limit.
    const killDir = path.join(workDir, 'kill');
    mkdirSync(killDir);
    const small = new Database(path.join(workDir, 'one.sqlite'));
    small.exec('create table one (x integer); insert into one values (1);');
    small.close();
    const killServer: BenchServer = await startSiphon({ dataDir: killDir, logLevel: 'info', ...overrides, queryTimeoutMs: killTimeoutMs, queryProcesses: 1 });
    servers.push(killServer);
    const startedAt = performance.now();
    const k = (await killServer.catalog.addUser('bench')).key;
    await killServer.catalog.addScraper('bench/one', path.join(workDir, 'one.sqlite'), { isPrivate: false, description: '' });
    const select1 = dataUrl(killServer.base, 'bench/one', 'json', k, 'select 1');
    const runaway = dataUrl(killServer.base, 'bench/one', 'json', k, runawaySql);
    const plain = (await client.chain(Array.from({ length: 21 }, () => select1))).steps.slice(1);
    for (const s of plain) if (s.status !== 200) problems.push(`select 1: status ${s.status}`);
    const select1Ms = median(plain.map((s) => s.ms));
    await sleep(Math.max(0, quickDeathMs + 100 - (performance.now() - startedAt)));
    const kills: { timeoutStatus: number; timeoutResponseMs: number; recoveryMs: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const [to, after] = (await client.chain([runaway, select1])).steps;
      if (to!.status !== 400 || !to!.body.includes('limit')) problems.push(`runaway query: status ${to!.status} ${to!.body}`);
      if (after!.status !== 200) problems.push(`select 1 after a kill: status ${after!.status} ${after!.body}`);
      kills.push({ timeoutStatus: to!.status, timeoutResponseMs: to!.ms, recoveryMs: after!.endMs - to!.endMs });
      await sleep(quickDeathMs + 100); // the replacement must be older than 1 s, or pool.ts delays the next one
    }
    // The same, but killing a process less than 1 s old: pool.ts then waits 250 ms before replacing it.
    const young = (await client.chain([runaway, select1, runaway, select1])).steps;
    const youngRecoveryMs = young[3]!.endMs - young[2]!.endMs;
    await killServer.close();
    servers.splice(servers.indexOf(killServer), 1);
    progress(`kill/respawn: ${median(kills.map((x) => x.recoveryMs)).toFixed(0)} ms (select 1: ${select1Ms.toFixed(1)} ms)`);

    // Report.
    const rate = (rows: number, bytes: number, ms: number) => ({ ms, rowsPerSec: (rows / ms) * 1000, mbPerSec: bytes / 1e6 / (ms / 1000) });
    const baseMs = median(base.map((b) => b.ms));
    const baseline = { ...rate(fixtureRows, median(base.map((b) => b.bytes)), baseMs), runsMs: base.map((b) => b.ms) };
    // Medians over the runs that delivered every row; a run cut short measures nothing.
    const exports = Object.fromEntries(formats.map((f) => {
      const all = exp[f]!;
      const rs = all.filter((r) => r.ok);
      const ms = median(rs.map((r) => r.ms));
      return [f, {
        ...rate(fixtureRows, median(rs.map((r) => r.bytes)), ms), bytes: median(rs.map((r) => r.bytes)),
        ratioToBaseline: baseMs / ms, okRuns: rs.length, runsMs: all.map((r) => (r.ok ? r.ms : null)),
        failedRunsBytes: all.filter((r) => !r.ok).map((r) => r.bytes), ttfbMs: median(rs.map((r) => r.ttfbMs)),
        rssGrowthMb: median(all.map((r) => (r.memory.rssPeak - r.memory.rssBefore) / 1e6)),
        maxEventLoopGapMs: Math.max(...all.map((r) => r.memory.maxSampleGapMs)),
        cores: {
          serverMainThread: median(rs.map((r) => r.cpu.serverMainThread)), otherThreads: median(rs.map((r) => r.cpu.otherThreads)),
          queryProcesses: median(rs.map((r) => r.cpu.queryProcesses)),
        },
      }];
    })) as Results['export']['formats'];
    const results: Results = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}`, memoryGb: os.totalmem() / 2 ** 30 },
      setup: {
        rows: fixtureRows, fixtureBytes, fixtureMs, importMs, runs, queryProcesses: siphon.config.queryProcesses,
        queryMemoryMb: siphon.config.queryMemoryMb, siphonDefaults: overrides.queryMemoryMb === undefined && overrides.queryProcesses === undefined,
        defaults: { queryProcesses: defaults.queryProcesses, queryMemoryMb: defaults.queryMemoryMb },
      },
      export: { sql: exportSql, baseline, formats: exports },
      smallQueries: {
        sql: smallSql.replace('IDTOKEN', '<random id>'), concurrency, durationMs: loadMs, warmupMs, responseBytes: sample.bytes,
        siphon: siphonLoad, baseline: baseLoad,
        ratioRps: siphonLoad.perSecond / baseLoad.perSecond, ratioP50: siphonLoad.p50Ms / baseLoad.p50Ms, ratioP99: siphonLoad.p99Ms / baseLoad.p99Ms,
      },
      fairness,
      pageViews,
      firstByte: { sql: firstRowSql, siphonMs: median(ttfb), inProcessMs: median(inProc), ratio: median(ttfb) / median(inProc), siphonRunsMs: ttfb, inProcessRunsMs: inProc },
      killRespawn: {
        sql: runawaySql, queryTimeoutMs: killTimeoutMs, queryProcesses: 1,
        timeoutStatus: kills[0]!.timeoutStatus, timeoutResponseMs: median(kills.map((x) => x.timeoutResponseMs)),
        recoveryMs: median(kills.map((x) => x.recoveryMs)), recoveryRunsMs: kills.map((x) => x.recoveryMs),
        select1Ms, ratio: median(kills.map((x) => x.recoveryMs)) / select1Ms, youngProcessRecoveryMs: youngRecoveryMs,
      },
      memory: {
        json: exp.json!.map(({ memory: m, ok }) => ({ ok,
          rssBeforeMb: m.rssBefore / 1e6, rssPeakMb: m.rssPeak / 1e6, rssAfterMb: m.rssAfter / 1e6, growthMb: (m.rssPeak - m.rssBefore) / 1e6,
          heapUsedPeakMb: m.heapUsedPeak / 1e6, childRssPeakMb: m.childRssPeak / 1e6, childrenRssPeakMb: m.childrenRssPeak / 1e6, samples: m.samples,
        })),
      },
      problems,
      totalRunMs: performance.now() - t0,
    };
    printReport(results);
    const outDir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    progress(`wrote ${path.relative(process.cwd(), path.join(outDir, 'latest.json'))}`);
  } finally {
    for (const s of servers.reverse()) await s.close().catch(() => {});
    await client.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** A load run with the CPU each side used during its measured part (after the warm-up). */
async function measuredLoad(client: HttpClient, o: Parameters<HttpClient['load']>[0]) {
  let before = cpuSnapshot();
  const timer = setTimeout(() => { before = cpuSnapshot(); }, o.warmupMs);
  const result = await client.load(o);
  clearTimeout(timer);
  return { ...result, cores: cpuBetween(before, cpuSnapshot()) };
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
