/**
 * Siphon's benchmark (`npm run bench`): every figure next to a baseline measured in the same run on
 * the same machine, and the target it is held to. Prints one table and writes bench/results/latest.json.
 *
 * Layout: Siphon runs as `bin/siphon serve` in a process of its own (its query processes are its
 * children), the bare node:http ceiling in another, the load generator is wrk, and this process only
 * sets up, reads exports, and reads CPU and memory from /proc.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaults } from '../src/config.js';
import { Catalog } from '../src/scrapers/catalog.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';
import { nodeWrittenHeaders, type RecordedResponse } from './recorded-response.js';
import { measureIsolation } from './fairness.js';
import { measureBrowsing } from './browsing.js';
import { fixtureRows, fixtureTable, inProcessFirstRow } from './fixture.js';
import { connections, exportSql, rowMarker, smallQueryLoad, smallQueryPath, smallSql, wrkThreads } from './queries.js';
import { prepareData } from './setup.js';
import { chain, exportOnce, type ExportAnswer } from './http-client.js';
import { addDownloadRecords, viewTimes } from './page-views.js';
import { cpuBetween, cpuSnapshot, machineBusy, median, MemorySampler, type Cores } from './proc-stats.js';
import { alternated, firstWarmupSeconds, rounds, sliceSeconds, warmupSeconds } from './alternated.js';
import { exportTargets, printReport, type ExportFigures, type Results } from './report.js';
import {
  dataPath,
  repoRoot,
  startBareServer,
  startPoolFloor,
  startRevalidationFloor,
  startSiphon,
  tempDir,
  type ServerProcess,
} from './servers.js';
import { checkWrk, type LoadSpec } from './wrk.js';

/**
 * `--runs N`: every export measured up to N times (the median of them compared), an identity one
 * each time right after its baseline; 3 by default, as one run of each moved by a quarter from one
 * minute to the next on this machine; compressed exports too, as one slow minute can decide a ratio
 * that sits near its target (json's gzip, measured once: 0.47× and 0.48× in two runs where ndjson's,
 * the same work, was 0.52× and 0.53×). An export whose ratio is `decidedBy` or more away from its
 * target, either way, is not measured again: a second run would not move it across the line, and
 * on a machine four times slower than others of its kind, three runs of every export took the bench
 * past five minutes (390 s).
 */
/**
 * `--queries-ahead N`: queries Siphon sends ahead to a busy process (serve's flag of that name), and
 * the small-query floor as many: 0 shows what sending ahead buys. Siphon's default otherwise.
 */
const aheadFlag = process.argv.indexOf('--queries-ahead');
const queriesAhead = aheadFlag === -1 ? defaults.queriesAhead : Number(process.argv[aheadFlag + 1]);
if (!(Number.isInteger(queriesAhead) && queriesAhead >= 0)) throw new Error('--queries-ahead needs a whole number, 0 or above');
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 3 : Number(process.argv[runsFlag + 1]);
if (!(Number.isInteger(runs) && runs > 0)) throw new Error('--runs needs a whole number above 0');
/** How far from its target, as a share of it, an export's ratio is taken as decided after one run (see `runs`). */
const decidedBy = 0.25;
const firstRowSql = `select * from ${fixtureTable} order by title limit 1`;
const runawaySql = 'with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c';
const killTimeoutMs = 200;
/** pool.ts waits 250 ms before replacing a process that died less than 1 s after it started. */
const quickDeathMs = 1000;
/**
 * What the measured server runs with: Siphon's defaults (query processes, key concurrency 2, key
 * queue…) except the rate limit (600 a minute per key would answer 429 to a load generator within a
 * second) and the query time limit (four 1M-row exports at once share 2 cores for longer than 10 s).
 */
const serverFlags = ['--rate-limit', '0', '--query-timeout', '120', '--queries-ahead', String(queriesAhead)];
/** The small-query floor's processes: as many as Siphon starts by default (2 × cores + 2). */
const floorProcesses = 2 * os.availableParallelism() + 2;

const t0 = performance.now();
/** The machine's load when the bench starts: figures taken on a busy machine say little. */
const loadAtStart = os.loadavg()[0]!;
const progress = (msg: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)} s] ${msg}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `sqlite3 -MODE FILE SQL > /dev/null`, timed. */
function sqliteCli(mode: 'json' | 'csv', file: string, sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const devNull = openSync('/dev/null', 'w');
    const started = performance.now();
    const child = spawn('sqlite3', [`-${mode}`, ...(mode === 'csv' ? ['-header'] : []), file, sql], {
      stdio: ['ignore', devNull, 'inherit'],
    });
    child.on('error', (err) => {
      closeSync(devNull);
      reject(new Error(`sqlite3 is needed for the export baseline (apt-get install -y sqlite3): ${err.message}`));
    });
    child.on('close', (code) => {
      closeSync(devNull);
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`sqlite3 -${mode} exited ${code}`));
    });
  });
}

/** Lines an export of `rows` rows must have: json is `[` … `]` with a row a line, csv has its header line. */
function expectedLines(format: string, rows: number): number {
  return format === 'ndjson' ? rows : rows + 1;
}

function checkExport(what: string, r: ExportAnswer, format: string, rows = fixtureRows): string[] {
  const problems: string[] = [];
  if (r.status !== 200) problems.push(`${what}: status ${r.status}`);
  if (!r.complete) problems.push(`${what}: body cut short (${r.error ?? 'no reason'}) after ${r.bytes} bytes`);
  if (r.newlines !== expectedLines(format, rows))
    problems.push(`${what}: ${r.newlines} line breaks, expected ${expectedLines(format, rows)}`);
  return problems;
}

/** Size of a response's header lines (`Name: value\r\n` each), the status line left out. */
function headerBlockBytes(rawHeaders: string[]): number {
  let bytes = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) bytes += Buffer.byteLength(rawHeaders[i]!) + Buffer.byteLength(rawHeaders[i + 1]!) + 4;
  return bytes;
}

async function main(): Promise<void> {
  checkWrk();
  const busyAtStart = await machineBusy(2000);
  const problems: string[] = [];
  const workDir = tempDir('siphon-bench-');
  const running = new Set<ServerProcess>();
  const started = async (p: Promise<ServerProcess>) => {
    const s = await p;
    running.add(s);
    return s;
  };
  const stop = async (s: ServerProcess) => {
    running.delete(s);
    await s.stop();
  };
  try {
    // 1. Fresh data, registered through the catalog before the server starts; one key per client.
    const clientNames = Array.from({ length: connections }, (_, i) => `client${i}`);
    const data = await prepareData(workDir, ['bench', 'exporter0', 'exporter1', ...clientNames]);
    const { dataDir, fixtureFile, scraperFile, fixtureBytes, fixtureMs, importMs } = data;
    const [key, ...otherKeys] = data.keys as [string, ...string[]];
    const exportKeys = otherKeys.slice(0, 2);
    const clientKeys = otherKeys.slice(2);
    progress(
      `fixture: ${fixtureRows} rows, ${(fixtureBytes / 1e6).toFixed(0)} MB in ${fixtureMs.toFixed(0)} ms, imported in ${importMs.toFixed(0)} ms`,
    );

    let siphon = await started(startSiphon(dataDir, serverFlags));
    const url = (format: string, sql: string, k = key) => `${siphon.base}${dataPath('bench/big', format, k, sql)}`;
    progress(`siphon serving at ${siphon.base} (pid ${siphon.pid})`);

    // 2. Full exports, each format and coding; each identity run right after the sqlite3 shell's
    // baseline for it (json for json and ndjson), so both see the same machine.
    const baselineMs: Record<'json' | 'csv' | 'ndjson', number[]> = { json: [], csv: [], ndjson: [] };
    // The server's memory grows the most in its first export: that one is measured on its own.
    const coldSampler = new MemorySampler(siphon.pid);
    const cold = await exportOnce(url('json', exportSql), 'identity');
    problems.push(...checkExport('json (first, from cold)', cold, 'json'));
    const coldGrowthMb = coldSampler.stop().growthMb;
    // Every query process runs every format before anything is timed, as in a server that has been
    // up a while: six queries of a quarter of the table at once, two from each of three keys, take
    // the six processes Siphon starts on 2 cores. A process's first export of a format ran 30-40 %
    // slower than its next ones (V8 compiling the encoder, the heap growing). Each format exported
    // whole three times at once, each over two processes, gave the same warmth for twice the rows
    // (36 s more of a bench that must end within five minutes, on a slow machine).
    const warmUpRows = fixtureRows / 4;
    const warmUpSql = `${exportSql} limit ${warmUpRows}`;
    for (const format of ['json', 'csv', 'ndjson'] as const) {
      const sent = [key, ...exportKeys].flatMap((k) => [k, k]).map((k) => exportOnce(url(format, warmUpSql, k), 'identity'));
      for (const r of await Promise.all(sent)) problems.push(...checkExport(`${format} warm-up`, r, format, warmUpRows));
    }
    progress(
      `warm-up: the first json export (server rss +${coldGrowthMb.toFixed(0)} MB), then each format on a quarter of the table six times at once`,
    );
    const exports: ExportFigures[] = [];
    for (const format of ['json', 'csv', 'ndjson'] as const) {
      const identityMs: number[] = [];
      for (const coding of ['identity', 'gzip', 'br'] as const) {
        const ms = coding === 'identity' ? identityMs : [];
        let bytes = 0;
        let growthMb = 0;
        let ok = true;
        let cores: Cores = { main: 0, queryProcesses: 0 };
        // Its ratio from the medians so far: against sqlite3's for identity, against identity's when compressed.
        const ratio = () => median(coding === 'identity' ? baselineMs[format] : identityMs) / median(ms);
        const target = coding === 'identity' ? exportTargets[format] : exportTargets.compressed;
        for (let i = 0; i < runs && (i === 0 || Math.abs(ratio() / target - 1) < decidedBy); i++) {
          if (coding === 'identity') {
            const mode = format === 'csv' ? 'csv' : 'json';
            baselineMs[format].push(await sqliteCli(mode, fixtureFile, exportSql));
            progress(`sqlite3 -${mode}: ${baselineMs[format].at(-1)!.toFixed(0)} ms`);
          }
          const sampler = new MemorySampler(siphon.pid);
          const cpu0 = cpuSnapshot(siphon.pid);
          const r = await exportOnce(url(format, exportSql), coding);
          cores = cpuBetween(cpu0, cpuSnapshot(siphon.pid));
          const memory = sampler.stop();
          const failures = checkExport(`${format} ${coding}`, r, format);
          problems.push(...failures);
          ok &&= failures.length === 0;
          ms.push(r.ms);
          bytes = r.bytes;
          growthMb = Math.max(growthMb, memory.growthMb);
          progress(
            `${format} ${coding}: ${r.ms.toFixed(0)} ms, ${(r.bytes / 1e6).toFixed(0)} MB, server rss +${memory.growthMb.toFixed(0)} MB, ` +
              `cores ${cores.main.toFixed(2)} main / ${cores.queryProcesses.toFixed(2)} query${failures.length ? ' FAILED' : ''}`,
          );
        }
        exports.push({
          format,
          coding,
          ok,
          ms: median(ms),
          rowsPerSec: fixtureRows / (median(ms) / 1000),
          bytes,
          growthMb,
          cores,
          runsMs: ms,
        });
      }
    }

    // 3. Small queries: N varies per request, one key per connection, against the bare node:http ceiling.
    const template = smallQueryPath;
    const [sample] = await chain(
      [`${siphon.base}${template.replace('{id}', '500000').replace('{key}', encodeURIComponent(key))}`],
      1 << 20,
    );
    const sampleRows = sample!.body.split(rowMarker).length - 1;
    if (sample!.status !== 200 || sampleRows !== 10)
      throw new Error(`small query: status ${sample!.status}, ${sampleRows} rows: ${sample!.body.slice(0, 300)}`);
    const recorded: RecordedResponse = {
      status: sample!.status,
      body: sample!.body,
      chunked: sample!.headers['transfer-encoding'] === 'chunked',
      headers: [],
    };
    for (let i = 0; i < sample!.rawHeaders.length; i += 2) {
      if (!nodeWrittenHeaders.has(sample!.rawHeaders[i]!.toLowerCase()))
        recorded.headers.push([sample!.rawHeaders[i]!, sample!.rawHeaders[i + 1]!]);
    }
    const responseFile = path.join(workDir, 'small-response.json');
    writeFileSync(responseFile, JSON.stringify(recorded));
    const headerBytes = headerBlockBytes(sample!.rawHeaders);
    const load = (base: string, over: Partial<LoadSpec>) => smallQueryLoad(base, clientKeys, sliceSeconds, over);
    // 304s: the same query each time, with the ETag of its first answer.
    const fixedPath = template.replace('{id}', '500000');
    const etag = sample!.headers.etag;
    if (!etag) throw new Error('the small query came without an ETag');
    const bare = await started(startBareServer(responseFile));
    const [bareSample] = await chain([`${bare.base}/`], 1 << 20);
    if (bareSample!.body !== sample!.body || headerBlockBytes(bareSample!.rawHeaders) !== headerBytes) {
      problems.push(
        `the bare server's answer differs from Siphon's: ${bareSample!.bytes} body bytes and ${headerBlockBytes(bareSample!.rawHeaders)} header bytes, not ${sample!.bytes} and ${headerBytes}`,
      );
    }
    // The floors: servers doing only what a small query and a 304 must, under the same checked load
    // as Siphon (the targets stay ratios to the ceiling; these say how much of the gap is Siphon's).
    const poolFloor = await started(startPoolFloor(fixtureFile, floorProcesses, queriesAhead));
    const keysFile = path.join(workDir, 'client-keys.json');
    writeFileSync(keysFile, JSON.stringify(clientKeys));
    const checkFloor = await started(startRevalidationFloor(keysFile, workDir));
    const [floorSample] = await chain([`${checkFloor.base}${fixedPath.replace('{key}', encodeURIComponent(clientKeys[0]!))}`]);
    const revalidation = (base: string, etagOf: string) =>
      load(base, { pathTemplate: fixedPath, headers: { 'If-None-Match': etagOf }, expectStatus: 304, expectRows: undefined });
    progress(
      `small queries and 304s: ${connections} connections, ${rounds} rounds of ${warmupSeconds} s warm-up (${firstWarmupSeconds} s before the first) + ${sliceSeconds} s for each server in turn, ${sample!.bytes}-byte bodies`,
    );
    // The ratios are taken against the unchecked ceiling, measured in the same minutes; the checked
    // one, measured once after, shows what checking costs wrk (it can come out higher, on a faster minute).
    const [smallSiphon, revalidations, ceiling, smallFloor, revalidationFloor] = await alternated(
      [
        { server: siphon, spec: load(siphon.base, {}), files: [scraperFile] },
        { server: siphon, spec: revalidation(siphon.base, etag) },
        { server: bare, spec: load(bare.base, { check: false }) },
        { server: poolFloor, spec: load(poolFloor.base, {}), files: [fixtureFile] },
        { server: checkFloor, spec: revalidation(checkFloor.base, floorSample!.headers.etag!) },
      ],
      workDir,
      problems,
    );
    const [checkedCeiling] = await alternated([{ server: bare, spec: load(bare.base, {}) }], workDir, problems, 1, warmupSeconds);
    for (const s of [bare, poolFloor, checkFloor]) await stop(s);
    progress(`small queries: siphon ${smallSiphon!.perSecond.toFixed(0)}/s p99 ${smallSiphon!.p99Ms.toFixed(1)} ms`);
    progress(`304s: siphon ${revalidations!.perSecond.toFixed(0)}/s p99 ${revalidations!.p99Ms.toFixed(1)} ms`);
    progress(
      `small queries: bare node:http ${ceiling!.perSecond.toFixed(0)}/s p99 ${ceiling!.p99Ms.toFixed(1)} ms (${checkedCeiling!.perSecond.toFixed(0)}/s when wrk checks each answer)`,
    );
    progress(`small queries: floor ${smallFloor!.perSecond.toFixed(0)}/s p99 ${smallFloor!.p99Ms.toFixed(1)} ms`);
    progress(`304s: floor ${revalidationFloor!.perSecond.toFixed(0)}/s p99 ${revalidationFloor!.p99Ms.toFixed(1)} ms`);

    // 4. Isolation: small queries from 4 keys, alone and during four json exports from two other keys.
    progress('isolation: small queries alone, then during four json exports');
    const isolation = await measureIsolation({
      load: load(siphon.base, {}),
      workDir,
      exportUrls: [0, 0, 1, 1].map((k) => url('json', exportSql, exportKeys[k]!)),
    });
    for (const l of [isolation.alone, isolation.duringExports])
      if (l.wrong || l.socketErrors)
        problems.push(`isolation: ${l.wrong} wrong answers (${l.firstWrong}), ${l.socketErrors} socket errors`);
    if (!isolation.exports.allComplete) problems.push('isolation: an export was cut short');
    if (!isolation.exports.stillRunningAtEnd) problems.push('isolation: the exports ended before the small-query load did');
    progress(`isolation: p99 alone ${isolation.alone.p99Ms.toFixed(1)} ms, during exports ${isolation.duringExports.p99Ms.toFixed(1)} ms`);

    // 5. Time to first byte of a query whose first row needs a sort of the whole table.
    const db = new Database(fixtureFile, { readonly: true, fileMustExist: true });
    inProcessFirstRow(db, firstRowSql); // warm-up
    const inProc = [inProcessFirstRow(db, firstRowSql), inProcessFirstRow(db, firstRowSql), inProcessFirstRow(db, firstRowSql)];
    db.close();
    const ttfbSteps = await chain(Array.from({ length: 4 }, () => url('json', firstRowSql)));
    for (const s of ttfbSteps) if (s.status !== 200) problems.push(`first-byte query: status ${s.status} ${s.error ?? s.body}`);
    const ttfb = ttfbSteps.slice(1).map((s) => s.ttfbMs);
    progress(`first byte: siphon ${median(ttfb).toFixed(0)} ms, in-process ${median(inProc).toFixed(0)} ms`);

    // 6. Page views before and after 1,000,000 download records (written while the server is stopped).
    const pageUrl = `${siphon.base}/bench/big`;
    const viewsBefore = await viewTimes(pageUrl);
    await stop(siphon);
    const recordMs = await addDownloadRecords(dataDir, 'bench', 'big', 1_000_000);
    siphon = await started(startSiphon(dataDir, serverFlags));
    const viewsAfter = await viewTimes(`${siphon.base}/bench/big`);
    for (const st of [...viewsBefore.statuses, ...viewsAfter.statuses]) if (st !== 200) problems.push(`page view: status ${st}`);
    progress(
      `page views: median ${viewsBefore.medianMs.toFixed(1)} ms before, ${viewsAfter.medianMs.toFixed(1)} ms after (records written in ${recordMs.toFixed(0)} ms)`,
    );
    await stop(siphon);

    // 7. Kill and respawn: a second server, one query process, a 200 ms limit.
    const killDir = path.join(workDir, 'kill');
    mkdirSync(killDir);
    const oneFile = path.join(workDir, 'one.sqlite');
    const one = new Database(oneFile);
    one.exec('create table one (x integer); insert into one values (1);');
    one.close();
    const killStore = openSqliteStore(path.join(killDir, 'siphon.db'));
    const killCatalog = new Catalog(killStore, killDir);
    const k = (await killCatalog.addUser('bench')).key;
    await killCatalog.addScraper('bench/one', oneFile, { isPrivate: false, description: '' });
    await killStore.close();
    const killFlags = ['--query-timeout', String(killTimeoutMs / 1000), '--query-processes', '1'];
    const killServer = await started(startSiphon(killDir, killFlags));
    const startedAt = performance.now();
    const select1 = `${killServer.base}${dataPath('bench/one', 'json', k, 'select 1')}`;
    const runaway = `${killServer.base}${dataPath('bench/one', 'json', k, runawaySql)}`;
    const plain = (await chain(Array.from({ length: 21 }, () => select1))).slice(1);
    for (const s of plain) if (s.status !== 200) problems.push(`select 1: status ${s.status}`);
    const select1Ms = median(plain.map((s) => s.ms));
    await sleep(Math.max(0, quickDeathMs + 100 - (performance.now() - startedAt)));
    const recoveries: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [to, after] = await chain([runaway, select1]);
      if (to!.status !== 400 || !to!.body.includes('limit')) problems.push(`runaway query: status ${to!.status} ${to!.body}`);
      if (after!.status !== 200) problems.push(`select 1 after a kill: status ${after!.status} ${after!.body}`);
      recoveries.push(after!.endMs - to!.endMs);
      await sleep(quickDeathMs + 100); // the replacement must be older than 1 s, or pool.ts delays the next one
    }
    await stop(killServer);
    progress(`kill/respawn: ${median(recoveries).toFixed(0)} ms (select 1: ${select1Ms.toFixed(1)} ms)`);

    // 8. Browsing: the table pages' engine on a million rows of its own.
    const browsing = await measureBrowsing(workDir, progress);

    const results: Results = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
        memoryGb: os.totalmem() / 2 ** 30,
        loadAtStart,
        loadAtEnd: os.loadavg()[0]!,
        busyAtStart,
      },
      setup: {
        rows: fixtureRows,
        fixtureBytes,
        fixtureMs,
        importMs,
        runs,
        decidedBy,
        serverFlags,
        connections,
        wrkThreads,
        rounds,
        warmupSeconds,
        firstWarmupSeconds,
        sliceSeconds,
      },
      exports: {
        sql: exportSql,
        baseline: { json: median(baselineMs.json), csv: median(baselineMs.csv), ndjson: median(baselineMs.ndjson), runsMs: baselineMs },
        figures: exports,
        coldGrowthMb,
      },
      smallQueries: {
        sql: smallSql,
        responseBytes: sample!.bytes,
        headerBytes,
        siphon: smallSiphon,
        ceiling,
        checkedCeiling,
        revalidations,
        smallFloor: { ...smallFloor, processes: floorProcesses, ahead: queriesAhead },
        revalidationFloor,
      },
      isolation,
      firstByte: { sql: firstRowSql, siphonMs: median(ttfb), inProcessMs: median(inProc) },
      pageViews: { records: 1_000_000, recordMs, before: viewsBefore, after: viewsAfter },
      killRespawn: { sql: runawaySql, flags: killFlags, recoveryMs: median(recoveries), recoveryRunsMs: recoveries, select1Ms },
      browsing,
      problems,
      totalRunMs: performance.now() - t0,
    };
    printReport(results);
    const outDir = path.join(repoRoot, 'bench', 'results');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    progress('wrote bench/results/latest.json');
  } finally {
    for (const s of running) await s.stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
