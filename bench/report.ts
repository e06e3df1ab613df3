/** The shape of bench/results/latest.json, and the table printed to stdout. */
import type { FairnessResults } from './fairness.js';
import type { LoadResult } from './http-client.js';
import type { PageViewResults } from './page-views.js';

/** CPU used, in cores (CPU seconds per wall-clock second). */
interface Cores {
  serverMainThread: number;
  otherThreads: number;
  queryProcesses: number;
}

interface Rate {
  ms: number;
  rowsPerSec: number;
  mbPerSec: number;
}

export interface Results {
  date: string;
  machine: { cpus: number; model: string; node: string; platform: string; memoryGb: number };
  setup: {
    rows: number; fixtureBytes: number; fixtureMs: number; importMs: number; runs: number; queryProcesses: number; queryMemoryMb: number;
    /** False when --query-memory-mb or --query-processes changed Siphon's defaults for this run. */
    siphonDefaults: boolean; defaults: { queryProcesses: number; queryMemoryMb: number };
  };
  export: {
    sql: string;
    baseline: Rate & { runsMs: number[] };
    /** Rates are medians over the okRuns that delivered every row (NaN/null when none did). */
    formats: Record<'json' | 'csv' | 'ndjson', Rate & {
      bytes: number; ratioToBaseline: number; okRuns: number; runsMs: (number | null)[]; failedRunsBytes: number[]; ttfbMs: number;
      rssGrowthMb: number; maxEventLoopGapMs: number; cores: Cores;
    }>;
  };
  smallQueries: {
    sql: string; concurrency: number; durationMs: number; warmupMs: number; responseBytes: number;
    siphon: LoadResult & { cores: Cores }; baseline: LoadResult & { cores: Cores }; ratioRps: number; ratioP50: number; ratioP99: number;
  };
  fairness: FairnessResults;
  pageViews: PageViewResults;
  firstByte: { sql: string; siphonMs: number; inProcessMs: number; ratio: number; siphonRunsMs: number[]; inProcessRunsMs: number[] };
  killRespawn: {
    sql: string; queryTimeoutMs: number; queryProcesses: number; timeoutStatus: number; timeoutResponseMs: number;
    recoveryMs: number; recoveryRunsMs: number[]; select1Ms: number; ratio: number; youngProcessRecoveryMs: number;
  };
  memory: {
    json: {
      ok: boolean; rssBeforeMb: number; rssPeakMb: number; rssAfterMb: number; growthMb: number; heapUsedPeakMb: number;
      childRssPeakMb: number; childrenRssPeakMb: number; samples: number;
    }[];
  };
  problems: string[];
  totalRunMs: number;
}

const n = (v: number, digits = 0) => (!Number.isFinite(v) ? 'n/a' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} ×` : 'n/a');
const cores = (c: Cores) => `${c.serverMainThread.toFixed(2)} / ${c.otherThreads.toFixed(2)} / ${c.queryProcesses.toFixed(2)}`;

function table(title: string, head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [`\n${title}`, line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function printReport(r: Results): void {
  const out: string[] = [];
  const m = r.machine;
  out.push(`Siphon benchmark — ${r.date}`);
  out.push(`machine: ${m.cpus} × ${m.model}, ${n(m.memoryGb, 1)} GB, ${m.platform}, node ${m.node}`);
  out.push(`fixture: ${n(r.setup.rows)} rows, ${n(r.setup.fixtureBytes / 1e6)} MB (built in ${n(r.setup.fixtureMs)} ms, ` +
    `imported via catalog in ${n(r.setup.importMs)} ms); medians of ${r.setup.runs} runs; MB = 10^6 bytes`);
  out.push(`siphon: ${r.setup.queryProcesses} query processes, ${r.setup.queryMemoryMb} MB address-space cap each` +
    (r.setup.siphonDefaults ? ' (Siphon defaults)' : ` (NOT Siphon's defaults: ${r.setup.defaults.queryProcesses} processes, ${r.setup.defaults.queryMemoryMb} MB)`));
  out.push('cores = CPU seconds per second: server main thread / other threads of the bench process (client worker, GC) / query processes');

  const e = r.export;
  out.push(table(`a. Full export \`${e.sql}\` over HTTP (ratio = Siphon rows/s ÷ baseline rows/s; 1.00 × = as fast as the baseline)`,
    ['what', 'median ms', 'rows/s', 'MB', 'MB/s', 'vs baseline', 'TTFB ms', 'cores', 'runs ms'],
    [
      ['baseline: in-process raw iterate + JSON.stringify(row), no HTTP', n(e.baseline.ms), n(e.baseline.rowsPerSec),
        n(e.baseline.mbPerSec * e.baseline.ms / 1000), n(e.baseline.mbPerSec, 1), '1.00 ×', '-', '-', e.baseline.runsMs.map((v) => n(v)).join(' / ')],
      ...(['json', 'csv', 'ndjson'] as const).map((f) => {
        const v = e.formats[f];
        return [`siphon ${f}`, n(v.ms), n(v.rowsPerSec), n(v.bytes / 1e6), n(v.mbPerSec, 1), x(v.ratioToBaseline), n(v.ttfbMs, 1),
          v.okRuns ? cores(v.cores) : '-', v.runsMs.map((w) => (w === null ? 'FAILED' : n(w))).join(' / ')];
      }),
    ]));
  out.push(`   siphon json export = ${x(e.formats.json.ratioToBaseline)} in-process baseline (throughput)`);
  for (const f of ['json', 'csv', 'ndjson'] as const) {
    const v = e.formats[f];
    if (v.failedRunsBytes.length) {
      out.push(`   ${f}: ${v.failedRunsBytes.length} of ${v.runsMs.length} runs FAILED (body cut short after ${v.failedRunsBytes.map((b) => `${n(b / 1e6, 1)} MB`).join(', ')}); ` +
        (v.okRuns ? 'medians use the other runs' : 'no run completed, so there is no rate to report'));
    }
  }

  const s = r.smallQueries;
  out.push(table(`b. Small queries: \`${s.sql}\`, ${s.concurrency} concurrent keep-alive clients, ${n(s.durationMs / 1000)} s after ${n(s.warmupMs / 1000)} s warm-up, ${s.responseBytes}-byte responses`,
    ['server', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'cores'],
    [
      ['baseline: bare Fastify, fixed body of the same bytes', n(s.baseline.requests), n(s.baseline.perSecond), n(s.baseline.p50Ms, 2), n(s.baseline.p99Ms, 2), String(s.baseline.errors + s.baseline.nonOk), cores(s.baseline.cores)],
      ['siphon', n(s.siphon.requests), n(s.siphon.perSecond), n(s.siphon.p50Ms, 2), n(s.siphon.p99Ms, 2), String(s.siphon.errors + s.siphon.nonOk), cores(s.siphon.cores)],
      ['siphon ÷ baseline', '', x(s.ratioRps), x(s.ratioP50), x(s.ratioP99), '', ''],
    ]));

  const fa = r.fairness;
  out.push(table(`f. Isolation: \`${fa.sql}\` from ${fa.concurrency} keys for ${n(fa.durationMs / 1000)} s, alone and while ${fa.exports.count} full json exports stream (\`${fa.exports.sql}\`, two other keys); target p99 < ${fa.p99TargetMs} ms`,
    ['when', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
    [
      ['alone', n(fa.alone.requests), n(fa.alone.perSecond), n(fa.alone.p50Ms, 2), n(fa.alone.p99Ms, 2), String(fa.alone.errors + fa.alone.nonOk)],
      ['during the exports', n(fa.duringExports.requests), n(fa.duringExports.perSecond), n(fa.duringExports.p50Ms, 2), n(fa.duringExports.p99Ms, 2), String(fa.duringExports.errors + fa.duringExports.nonOk)],
      ['during ÷ alone', '', x(fa.duringExports.perSecond / fa.alone.perSecond), x(fa.duringExports.p50Ms / fa.alone.p50Ms), x(fa.duringExports.p99Ms / fa.alone.p99Ms), ''],
    ]));
  out.push(`   exports: ${fa.exports.allComplete ? 'all complete' : 'NOT all complete'}, ${fa.exports.stillRunningAtEnd ? 'still running when the load ended' : 'ended before the load did'}; ` +
    `${fa.exports.ms.map((v) => `${n(v)} ms`).join(' / ')}; p99 during exports ${fa.duringExports.p99Ms < fa.p99TargetMs ? 'meets' : 'MISSES'} the ${fa.p99TargetMs} ms target`);

  const pv = r.pageViews;
  out.push(table(`g. Anonymous views of /${pv.page} (${pv.views} one after the other, previews already computed), before and after ${n(pv.records)} download records (written in ${n(pv.recordMs)} ms)`,
    ['downloads recorded', 'median ms', 'p99 ms'],
    [
      ['a few', n(pv.before.medianMs, 2), n(pv.before.p99Ms, 2)],
      [`+ ${n(pv.records)}`, n(pv.after.medianMs, 2), n(pv.after.p99Ms, 2)],
      ['after ÷ before', x(pv.after.medianMs / pv.before.medianMs), x(pv.after.p99Ms / pv.before.p99Ms)],
    ]));

  const f = r.firstByte;
  out.push(table(`c. Time to first byte, costly first row: \`${f.sql}\``,
    ['what', 'median ms', 'runs ms'],
    [
      ['in-process better-sqlite3 prepare + first row', n(f.inProcessMs, 1), f.inProcessRunsMs.map((v) => n(v, 1)).join(' / ')],
      ['siphon, request → first body byte', n(f.siphonMs, 1), f.siphonRunsMs.map((v) => n(v, 1)).join(' / ')],
      ['siphon ÷ in-process', x(f.ratio), ''],
    ]));

  const k = r.killRespawn;
  out.push(table(`d. Kill/respawn: runaway recursive CTE, ${k.queryTimeoutMs} ms limit, ${k.queryProcesses} query process`,
    ['what', 'median ms', 'runs ms'],
    [
      [`runaway query → timeout response (status ${k.timeoutStatus})`, n(k.timeoutResponseMs, 1), ''],
      ['plain `select 1` latency', n(k.select1Ms, 2), ''],
      ['timeout response → `select 1` answered', n(k.recoveryMs, 1), k.recoveryRunsMs.map((v) => n(v, 1)).join(' / ')],
      ['recovery ÷ plain select 1', x(k.ratio), ''],
      ['same, when the killed process was < 1 s old', n(k.youngProcessRecoveryMs, 1), ''],
    ]));

  out.push(table('e. Server process memory during the json export (sampled every 50 ms; server and client worker share the process)',
    ['run', 'export', 'RSS before MB', 'RSS peak MB', 'growth MB', 'RSS after MB', 'heapUsed peak MB', 'query child peak RSS MB', 'all children MB'],
    r.memory.json.map((v, i) => [String(i + 1), v.ok ? 'ok' : 'FAILED', n(v.rssBeforeMb), n(v.rssPeakMb), n(v.growthMb), n(v.rssAfterMb), n(v.heapUsedPeakMb), n(v.childRssPeakMb), n(v.childrenRssPeakMb)])));
  out.push(`   largest gap between 50 ms samples (main event loop stall) during export: ` +
    (['json', 'csv', 'ndjson'] as const).map((fm) => `${fm} ${n(e.formats[fm].maxEventLoopGapMs)} ms`).join(', '));

  out.push(`\nproblems seen: ${r.problems.length ? `\n - ${r.problems.join('\n - ')}` : 'none'}`);
  out.push(`total run time: ${n(r.totalRunMs / 1000, 1)} s`);
  process.stdout.write(`${out.join('\n')}\n`);
}
