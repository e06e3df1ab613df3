import { Lexer, type Tokens } from 'marked';
import { readApiReference } from '../views/docs-reference.js';

/**
 * @module The tables of docs/api.md that the OpenAPI documents take their descriptions from, so
 * what a parameter or format does is written once, where /docs shows it. Read once, then kept.
 */

/** One table: its rows by the name its first cell gives (in backquotes), each the row's cells. */
export type ReferenceTable = ReadonlyMap<string, readonly string[]>;

/** The Markdown of a cell as a description outside /docs: its links to /docs' headings kept working, to the other files' dropped. */
export function portable(markdown: string): string {
  return markdown.replace(/\]\(#/g, '](/docs#').replace(/\[([^\]]*)\]\((?!\/docs#)[^)]*\)/g, '$1');
}

let tables: Map<string, Tokens.Table> | undefined;

/** Each table of docs/api.md under the heading it follows (its first only). */
function tablesByHeading(): Map<string, Tokens.Table> {
  if (tables) return tables;
  tables = new Map();
  let heading = '';
  for (const token of Lexer.lex(readApiReference())) {
    if (token.type === 'heading') heading = (token as Tokens.Heading).text;
    else if (token.type === 'table' && !tables.has(heading)) tables.set(heading, token as Tokens.Table);
  }
  return tables;
}

/**
 * The table under `heading`, each row under every backquoted name its first cell gives up to an
 * `=` (`` `_sort=COL`, `_sort_desc=COL` `` gives `_sort` and `_sort_desc`). Throws when docs/api.md
 * has no such table: a document must not go out with its descriptions missing.
 */
export function referenceTable(heading: string): ReferenceTable {
  const table = tablesByHeading().get(heading);
  if (!table) throw new Error(`docs/api.md has no table under the heading "${heading}"`);
  const rows = new Map<string, string[]>();
  for (const row of table.rows) {
    const cells = row.map((cell) => portable(cell.text));
    for (const [, name] of row[0]!.text.matchAll(/`([^`=]+)(?:=[^`]*)?`/g)) if (!rows.has(name!)) rows.set(name!, cells);
  }
  return rows;
}

/** Cell `column` of the row named `name`; throws when docs/api.md does not describe it. */
export function describedIn(table: ReferenceTable, name: string, column: number): string {
  const text = table.get(name)?.[column];
  if (text === undefined) throw new Error(`docs/api.md's table does not describe ${name}`);
  return text;
}
