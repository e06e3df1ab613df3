/**
 * @module Where the query builder shows what the API answered: an error, rows, text or a file, always
 * as text (textContent), never as markup.
 */

/** Rows shown from a result; the rest are counted. */
const shownRows = 100;
/** Characters shown of a text result. */
const shownChars = 20_000;

/** An element with its text and class, both optional. */
export function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  if (className) el.className = className;
  return el;
}

/** The builder's result area. */
export class ResultView {
  constructor(private readonly result: HTMLElement) {}

  error(message: string): void {
    const p = make('p', message, 'error');
    p.setAttribute('role', 'alert');
    this.result.replaceChildren(p);
  }

  rows(rows: Record<string, unknown>[]): void {
    const summary = make(
      'p',
      `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}${rows.length > shownRows ? `, the first ${shownRows} shown` : ''}.`,
      'muted',
    );
    const columns = [...new Set(rows.slice(0, shownRows).flatMap((r) => Object.keys(r)))];
    const tableEl = make('table', undefined, 'data');
    const head = make('tr');
    head.append(...columns.map((c) => make('th', c)));
    tableEl.append(make('thead'), make('tbody'));
    tableEl.tHead!.append(head);
    for (const row of rows.slice(0, shownRows)) {
      const tr = make('tr');
      tr.append(
        ...columns.map((c) => {
          const v = row[c];
          return v === null
            ? make('td', 'null', 'null')
            : make('td', typeof v === 'string' ? v : JSON.stringify(v), typeof v === 'number' ? 'num' : undefined);
        }),
      );
      tableEl.tBodies[0]!.append(tr);
    }
    const scroll = make('div', undefined, 'table-scroll');
    scroll.append(tableEl);
    this.result.replaceChildren(summary, scroll);
  }

  text(text: string): void {
    const more =
      text.length > shownChars ? ` (the first ${shownChars.toLocaleString()} characters of ${text.length.toLocaleString()})` : '';
    this.result.replaceChildren(make('p', `Result${more}:`, 'muted'), make('pre', text.slice(0, shownChars)));
  }

  file(blob: Blob, name: string, save: boolean): void {
    const link = Object.assign(make('a', `Save ${name}`), { href: URL.createObjectURL(blob), download: name });
    const p = make('p', `${blob.size.toLocaleString()} bytes received. `);
    p.append(link);
    this.result.replaceChildren(p);
    if (save) link.click();
  }
}
