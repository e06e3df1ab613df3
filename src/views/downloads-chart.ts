import type { DayCount } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { count, plural } from './text.js';

/** Drawing size in SVG units; the SVG scales to the width of the page. */
const width = 720;
const height = 170;
const plot = { left: 40, right: 712, top: 12, bottom: 138 };

const round = (n: number) => Math.round(n * 10) / 10;

/** `2026-11-21` as `21 Nov`. */
function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
}

/**
 * Downloads per day as a bar chart drawn on the server: an inline SVG, so it shows without
 * JavaScript, scales with the page and needs no library. Each bar carries its day and count (as a
 * tooltip and as data attributes), and the days with downloads are also listed in a table for
 * screen readers and for copying.
 */
export function downloadsChart(days: DayCount[]): SafeHtml {
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const max = Math.max(1, ...days.map((d) => d.count));
  const busiest = days.reduce((best, d) => (d.count > best.count ? d : best), days[0] ?? { day: '', count: 0 });
  const step = (plot.right - plot.left) / Math.max(1, days.length);
  const y = (n: number) => plot.bottom - (n / max) * (plot.bottom - plot.top);
  const summary =
    total === 0
      ? `No downloads in the last ${days.length} days.`
      : `${plural(total, 'download')} in the last ${days.length} days; the most on one day was ${count(busiest.count)}, on ${busiest.day}.`;
  const labelled = days.length === 0 ? [] : [0, Math.floor((days.length - 1) / 2), days.length - 1];

  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc" data-total="${total}">
<title id="chart-title">Downloads per day, last ${days.length} days</title>
<desc id="chart-desc">${summary}</desc>
<line class="axis" x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}"/>
<line class="grid" x1="${plot.left}" y1="${plot.top}" x2="${plot.right}" y2="${plot.top}"/>
<text class="tick" x="${plot.left - 6}" y="${plot.top + 4}" text-anchor="end">${count(max)}</text>
<text class="tick" x="${plot.left - 6}" y="${plot.bottom + 4}" text-anchor="end">0</text>
${days.map(
  (
    d,
    i,
  ) => html`<rect class="bar" x="${round(plot.left + i * step + step * 0.15)}" y="${round(y(d.count))}" width="${round(step * 0.7)}" height="${round(plot.bottom - y(d.count))}" data-day="${d.day}" data-count="${d.count}"><title>${d.day}: ${plural(d.count, 'download')}</title></rect>
`,
)}${labelled.map(
    (
      i,
      n,
    ) => html`<text class="tick" x="${round(plot.left + (n === 0 ? 0 : n === 2 ? days.length : i + 0.5) * step)}" y="${height - 12}" text-anchor="${['start', 'middle', 'end'][n]}">${i === days.length - 1 ? 'today' : shortDay(days[i]!.day)}</text>
`,
  )}</svg>
<figcaption>${summary}</figcaption>
</figure>
${
  total === 0
    ? ''
    : html`<details class="chart-table">
<summary>Downloads per day as a table</summary>
<table>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Downloads</th></tr></thead>
<tbody>
${days
  .filter((d) => d.count > 0)
  .reverse()
  .map((d) => html`<tr><td>${d.day}</td><td class="num">${count(d.count)}</td></tr>\n`)}</tbody>
</table>
</details>`
}`;
}
