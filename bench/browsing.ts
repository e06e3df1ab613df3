/**
 * The browsing section of the bench: the engine behind the table pages (src/browse/), in this
 * process, on a table of 1,000,000 rows of its own (indexed columns, NULLs, repeated values), through
 * a real query pool of one process. Figures are medians; each is compared with the same run's first
 * page, never with a fixed time.
 *
 * Datasette's table view would be the baseline, but it cannot be installed on the bench's machine
 * (PyPI is not reachable from it): the report says so rather than leaving a gap.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { browseTable, parseView, type TableView } from '../src/browse/index.js';
import { encodeToken, viewIdentity } from '../src/browse/page-token.js';
import { defaults } from '../src/config.js';
import { QueryPool } from '../src/pool/pool.js';
import { describeTables } from '../src/scrapers/describe-tables.js';
import type { Scraper, TableInfo } from '../src/store/types.js';
import { median } from './proc-stats.js';
import { tempDir } from './servers.js';

export const browsingRows = 1_000_000;
const pageSize = 100;
const deepPage = 5000;
const repeats = 7;

export interface BrowsingFigures {
  rows: number;
  buildMs: number;
  /** Medians, ms: the first page unsorted, and of each sort its first page and page 5,000 (a token made for it). */
  firstPageMs: number;
  sorted: { sort: string; firstMs: number; deepMs: number; ratio: number }[];
  /** Target: page 5,000 of a view sorted by an indexed column costs at most this times its page 1. */
  deepTarget: number;
  /**
   * `_facet=suburb&_facet=kind` (and suggestions): on a version not seen before, then again (a facet
   * the first did not finish goes on in the background, and the second waits for it in the same lane).
   */
  facets: { query: string; coldMs: number; warmMs: number; timedOut: string[]; warmTimedOut: string[] };
  /** A filtered count with its budget, then `_count=all`. */
  count: { query: string; budgetMs: number; count: number; truncated: boolean; allMs: number; all: number };
  datasette: string;
}

/** `places(suburb TEXT 200 values, kind TEXT 6 values, date TEXT ISO, price REAL 20 % NULL, title TEXT)`, indexed on date and price. */
function buildTable(dir: string): string {
  const file = path.join(dir, 'browsing.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`create table places (suburb text, kind text, date text, price real, title text);
    with recursive n(x) as (select 1 union all select x + 1 from n limit ${browsingRows})
    insert into places select 'suburb ' || (x * 7919 % 200), 'kind ' || (x % 6),
      date('2015-01-01', '+' || (x * 104729 % 4000) || ' days'), case when x % 5 = 0 then null else (x * 31337 % 1000003) / 100.0 end,
      'a title of forty characters, number ' || x from n;
    create index places_date on places (date);
    create index places_price on places (price);`);
  db.close();
  return file;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function measureBrowsing(workDir: string, progress: (msg: string) => void): Promise<BrowsingFigures> {
  const built = performance.now();
  const file = buildTable(workDir);
  const db = new Database(file, { readonly: true });
  const table: TableInfo = describeTables(db).find((t) => t.name === 'places')!;
  const buildMs = performance.now() - built;
  progress(`browsing: ${browsingRows} rows built in ${(buildMs / 1000).toFixed(1)} s`);
  const pool = new QueryPool({
    size: 1,
    longQueries: 1,
    timeoutMs: 60_000,
    memoryMb: defaults.queryMemoryMb,
    tempMb: defaults.queryTempMb,
    diskReserveBytes: defaults.diskReserveBytes,
    tempDir: workDir,
    queue: { keyConcurrency: 1, keyQueue: 100, queueLimit: 100, queueTimeoutMs: 60_000 },
    spoolResponseMb: 16,
    spoolTotalMb: 64,
    rowsPerRange: 0,
    startingAtOnce: 1,
    queriesAhead: defaults.queriesAhead,
  });
  await pool.ready();
  let version = 1;
  const scraper = (): Scraper => ({
    id: 1,
    owner: { id: 1, name: 'bench' },
    name: 'browsing',
    description: '',
    isPrivate: false,
    keep: { versions: null, days: null },
    data: { file, version, tables: [table], sizeBytes: 0, updatedAt: new Date().toISOString() },
  });
  const view = (query: string) => parseView(new URLSearchParams(query), table);
  const page = (v: TableView) => browseTable(pool, scraper(), table, v, 'bench');
  const medianOf = async (v: TableView) => {
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) times.push((await timed(() => page(v))).ms);
    return median(times);
  };
  try {
    const firstPageMs = await medianOf(view(''));
    const sorted: BrowsingFigures['sorted'] = [];
    for (const [sort, order] of [
      ['_sort=date', 'date, rowid'],
      ['_sort_desc=date', 'date desc, rowid desc'],
      ['_sort_desc=price', 'price desc, rowid desc'],
    ] as const) {
      const first = view(sort);
      // The token page 4,999 would give: the last row before page 5,000, found directly in SQLite.
      const column = sort.split('=')[1]!;
      const last = db
        .prepare(`select rowid as k, ${column} is null as n from places order by ${order} limit 1 offset ?`)
        .get((deepPage - 1) * pageSize - 1) as {
        k: number;
        n: number;
      };
      const next = encodeToken(
        { version, position: { kind: 'keyset', rowid: String(last.k), nulls: [last.n === 1] } },
        viewIdentity(table.name, first),
      );
      const firstMs = await medianOf(first);
      const deepMs = await medianOf({ ...first, next });
      sorted.push({ sort, firstMs, deepMs, ratio: deepMs / firstMs });
      progress(`browsing ${sort}: page 1 ${firstMs.toFixed(1)} ms, page ${deepPage} ${deepMs.toFixed(1)} ms`);
    }
    const facetQuery = '_facet=suburb&_facet=kind&kind=kind 3';
    version += 1;
    const cold = await timed(() => page(view(facetQuery)));
    const warm = await timed(() => page(view(facetQuery)));
    const timedOutOf = (facets: Record<string, { timedOut: boolean }>) =>
      Object.entries(facets)
        .filter(([, f]) => f.timedOut)
        .map(([c]) => c);
    const [timedOut, warmTimedOut] = [timedOutOf(cold.value.facets), timedOutOf(warm.value.facets)];
    progress(`browsing facets: cold ${cold.ms.toFixed(0)} ms, warm ${warm.ms.toFixed(1)} ms`);
    const countQuery = 'suburb=suburb 7&price__gt=100';
    version += 1;
    const budget = await timed(() => page(view(countQuery)));
    version += 1;
    const all = await timed(() => page(view(`${countQuery}&_count=all`)));
    progress(`browsing count: ${budget.ms.toFixed(0)} ms (${budget.value.count}), count all ${all.ms.toFixed(0)} ms (${all.value.count})`);
    return {
      rows: browsingRows,
      buildMs,
      firstPageMs,
      sorted,
      deepTarget: 2,
      facets: { query: facetQuery, coldMs: cold.ms, warmMs: warm.ms, timedOut, warmTimedOut },
      count: {
        query: countQuery,
        budgetMs: budget.ms,
        count: budget.value.count,
        truncated: budget.value.countTruncated,
        allMs: all.ms,
        all: all.value.count,
      },
      datasette: 'not measured: Datasette cannot be installed on this machine (PyPI is not reachable from it)',
    };
  } finally {
    db.close();
    await pool.close();
  }
}

// `node dist/bench/browsing.js`: this section alone, its figures as JSON.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = tempDir('siphon-bench-browsing-');
  measureBrowsing(dir, (msg) => process.stderr.write(`${msg}\n`))
    .then((figures) => process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`))
    .finally(() => rmSync(dir, { recursive: true, force: true }))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    });
}
