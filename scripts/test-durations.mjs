// A node:test reporter that prints, once the run ends, each test file's time: the sum of its
// top-level tests' durations and the span from its first to its last report. Used by
// `npm run test:slowest` to find where the suite spends its time.
import path from 'node:path';

export default async function* testDurations(source) {
  const files = new Map();
  for await (const event of source) {
    if (!['test:pass', 'test:fail'].includes(event.type)) continue;
    const { file, nesting, details, name } = event.data;
    if (!file || nesting !== 0) continue;
    const now = Date.now();
    const entry = files.get(file) ?? { first: now - details.duration_ms, last: now, sum: 0, slowest: [] };
    entry.first = Math.min(entry.first, now - details.duration_ms);
    entry.last = now;
    entry.sum += details.duration_ms;
    entry.slowest.push([details.duration_ms, name]);
    files.set(file, entry);
  }
  const rows = [...files].map(([file, e]) => ({ file: path.relative(process.cwd(), file), span: e.last - e.first, ...e }));
  rows.sort((a, b) => b.span - a.span);
  yield 'span s   tests s  file (slowest test)\n';
  for (const r of rows) {
    const [ms, name] = r.slowest.sort((a, b) => b[0] - a[0])[0];
    yield `${(r.span / 1000).toFixed(1).padStart(6)} ${(r.sum / 1000).toFixed(1).padStart(8)}  ${r.file} (${(ms / 1000).toFixed(1)} s: ${name})\n`;
  }
}
