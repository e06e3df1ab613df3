import { parse } from 'lossless-json';

/**
 * A value as a page shows it: numbers keep the exact text the json format wrote (64-bit integers,
 * `1.0`); `cut`: only the start of a longer text (browseTable's `maxCellChars`).
 */
export type Cell = { kind: 'text' | 'number'; text: string; cut?: true } | { kind: 'null' };

class NumberText {
  constructor(readonly text: string) {}
}

function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return { kind: 'null' };
  if (value instanceof NumberText) return { kind: 'number', text: value.text };
  return { kind: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) };
}

/**
 * The rows of a query's answer in the json format, each as the cells of `names` in that order
 * (object key order is not kept for names like "2"); a name the row lacks is null.
 */
export function readCells(json: string, names: readonly string[]): Cell[][] {
  const objects = parse(json, undefined, (text) => new NumberText(text)) as Record<string, unknown>[];
  return objects.map((row) => names.map((name) => toCell(Object.hasOwn(row, name) ? row[name] : null)));
}

/** A cell's text as a filter's value would match it (null: undefined). */
export const cellText = (cell: Cell): string | undefined => (cell.kind === 'null' ? undefined : cell.text);

/**
 * The cell as shown when values are cut at `maxChars` characters: its statement gave one more
 * character than that for a longer text (compile.ts), which says it was cut. Characters as SQLite
 * counts them (code points), not JavaScript's UTF-16 units.
 */
export function cutCell(cell: Cell, maxChars: number): Cell {
  if (cell.kind !== 'text' || cell.text.length <= maxChars) return cell;
  const chars = [...cell.text];
  return chars.length <= maxChars ? cell : { kind: 'text', text: chars.slice(0, maxChars).join(''), cut: true };
}

/**
 * The column names of a json answer, read from its first row's keys in the order the query process
 * wrote them (the query's order; a parsed object puts names like "2" first), each once. Its values
 * are flat (numbers, strings, null), so a key is a string at the start of the row or after a `,`.
 */
export function answerColumns(json: string): string[] {
  const names = new Set<string>();
  let atKey = true;
  for (let i = json.indexOf('{') + 1; i > 0 && i < json.length && json[i] !== '}'; i++) {
    if (json[i] === ',') atKey = true;
    if (json[i] !== '"') continue;
    let end = i + 1;
    while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
    if (atKey) names.add(JSON.parse(json.slice(i, end + 1)) as string);
    atKey = false;
    i = end;
  }
  return [...names];
}
