import { html, type SafeHtml } from './html.js';
import { scaleBytes } from '../utils/byte-size.js';

/** 1,234,567 — grouped so large counts read at a glance. */
export function count(n: number): string {
  return n.toLocaleString('en-GB');
}

/** `1 row`, `2 rows`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** Sizes as people read them, in powers of 1024 (as `ls -h` and file managers show them). */
export function humanSize(bytes: number): string {
  const { size, unit } = scaleBytes(bytes);
  return unit === 'B' ? plural(bytes, 'byte') : `${size < 10 ? size.toFixed(1) : Math.round(size)} ${unit}`;
}

/** A machine-readable `<time>` showing the UTC date and minute, e.g. `21 Nov 2026, 05:45 UTC`. */
export function timeElement(iso: string): SafeHtml {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime())
    ? iso
    : `${date.toLocaleString('en-GB', {
        timeZone: 'UTC',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      })} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

export function ownerPath(owner: string): string {
  return `/${encodeURIComponent(owner)}`;
}

export function scraperPath(owner: string, name: string): string {
  return `/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/** A saved query's page, `/{owner}/{scraper}/queries/{name}`; with `.json` (any row format's extension), its data URL. */
export function savedQueryPath(owner: string, scraper: string, name: string, extension = ''): string {
  return `${scraperPath(owner, scraper)}/queries/${encodeURIComponent(name)}${extension}`;
}

/** A table's row count as counted at publish: `312 rows`, or `more than 10,000 rows` for a view counted only so far. */
export function tableRows(table: { rows: number; rowsCapped?: true }): string {
  return table.rowsCapped ? `more than ${plural(table.rows, 'row')}` : plural(table.rows, 'row');
}
