import type { Cell } from '../browse/types.js';
import { html, type SafeHtml } from './html.js';
import { count } from './text.js';

/**
 * A value that is a web address a visitor may follow: http or https only, so a `javascript:` or
 * `data:` value stays text. The whole value must be the address (no spaces), as a person would read it.
 */
export function webAddress(text: string): string | undefined {
  if (!/^https?:\/\/\S+$/i.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A text value: a link when it is a web address. Scraped links are not endorsed, and get no referrer. */
function textHtml(text: string): SafeHtml {
  const address = webAddress(text);
  return address ? html`<a href="${address}" rel="nofollow noopener noreferrer">${text}</a>` : html`${text}`;
}

/**
 * One cell of a table page: NULL as a marked `null`, numbers right-aligned, text cut after `maxChars`
 * characters (by the query, which marks it `cut`, or here) with a link to the row page that shows
 * it whole, when there is one.
 */
export function tableCell(cell: Cell, maxChars: number, rowHref: string | undefined): SafeHtml {
  if (cell.kind === 'null') return html`<td class="null">null</td>`;
  if (cell.kind === 'number') return html`<td class="num">${cell.text}</td>`;
  // Counted in characters (code points), as SQLite cuts them; spread only when it may be too long.
  const cut = cell.cut === true || (cell.text.length > maxChars && [...cell.text].length > maxChars);
  if (!cut) return html`<td>${textHtml(cell.text)}</td>`;
  const shown = cell.cut ? cell.text : [...cell.text].slice(0, maxChars).join('');
  return html`<td class="cut">${shown}<span class="cut-mark">…</span> ${
    rowHref
      ? html`<a class="whole" href="${rowHref}">the whole value</a>`
      : html`<span class="hint">(cut at ${count(maxChars)} characters)</span>`
  }</td>`;
}

/** A value whole, as the row page shows it: NULL said, long text wrapped, web addresses followable. */
export function wholeValue(cell: Cell): SafeHtml {
  if (cell.kind === 'null') return html`<span class="null">null</span>`;
  if (cell.kind === 'number') return html`<span class="num">${cell.text}</span>`;
  if (cell.text === '') return html`<span class="empty-text">(empty text)</span>`;
  return html`<span class="text">${textHtml(cell.text)}</span>`;
}
