/**
 * `node dist/bench/cache-costs.js`: the CPU time of the two steps of every data call that go
 * through an LRU cache, in this one process: the SQL's check (`checkSql`, its accepted texts kept)
 * and the response's validators (`addValidators`, the ETag's hashes kept). Each is measured as a
 * 304 or a polling client makes it (the same call again: a hit) and as the bench's small queries
 * do (a new SQL text each time, with the cache full: a miss, the work, and the oldest entry
 * dropped). CPU time, the median of several runs, so other work on the machine moves it little.
 */
import { addValidators } from '../src/http/conditional.js';
import { checkSql } from '../src/sql/check-sql.js';
import type { Scraper } from '../src/store/types.js';
import { median } from './proc-stats.js';

const calls = 200_000;
const runs = 7;
const maxChars = 100_000;

const scraper: Scraper = {
  id: 1,
  owner: { id: 1, name: 'alice' },
  name: 'weather',
  description: '',
  isPrivate: false,
  keep: { versions: null, days: null },
  data: { file: '/data/scrapers/alice/weather/1.sqlite', version: 1, tables: [], sizeBytes: 0, updatedAt: '2026-11-28T12:00:00.000Z' },
};

/** As the bench's small queries: each its own N. */
const newSql = Array.from({ length: calls }, (_, i) => `select * from data where id > ${1_000_000 + i} limit 10`);
const sameSql = 'select * from data where id > 5000 limit 10';

/** CPU time (user and system) of `calls` calls of `step`, in ns a call. */
function cpuNsPerCall(step: (i: number) => void): number {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) step(i);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / calls;
}

const steps: [string, (i: number) => void][] = [
  ['checkSql, the same text (hit)', () => checkSql(sameSql, maxChars)],
  ['checkSql, a new text each call (miss, full cache)', (i) => checkSql(newSql[i], maxChars)],
  ['addValidators, the same call (hit)', () => addValidators({}, scraper, { format: 'json', sql: sameSql }, 'identity')],
  [
    'addValidators, a new text each call (miss, full cache)',
    (i) => addValidators({}, scraper, { format: 'json', sql: newSql[i] }, 'identity'),
  ],
];

// Every cache filled (and every step compiled) before anything is measured.
for (const [, step] of steps) cpuNsPerCall(step);
const results = new Map(steps.map(([name]) => [name, [] as number[]]));
// The steps in turn, run after run, so each saw the same minutes of the machine.
for (let run = 0; run < runs; run++) for (const [name, step] of steps) results.get(name)!.push(cpuNsPerCall(step));
for (const [name, figures] of results) {
  console.log(`${name}: ${median(figures).toFixed(0)} ns a call (median of ${runs} runs of ${calls.toLocaleString('en-US')})`);
}
