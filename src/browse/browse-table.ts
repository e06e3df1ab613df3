/**
 * A page of a table's view, and a row's page: what the table pages and their JSON and CSV twins
 * show. The rows come first, under the query time limit; then the count, within its budget; then
 * the facets, within theirs (counts.ts, facets.ts). All through the given pool, in the given lane.
 */
import { errors, QueryFailed } from '../errors.js';
import type { QueryPool } from '../pool/pool.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { cellText, cutCell, type Cell } from './cells.js';
import { pageStatement, rowidName } from './compile.js';
import { countView } from './counts.js';
import { describeView } from './describe.js';
import { viewFacets } from './facets.js';
import { decodeToken, encodeToken, viewIdentity, type PagePosition } from './page-token.js';
import { runStatement } from './run.js';
import { quoteIdentifier } from '../shared/sql-names.js';
import type { BrowsePage, TableView } from './types.js';
import { viewParams } from './view-params.js';

export interface BrowseOptions {
  /** Text longer than this many characters is cut there, its cell marked `cut` (HTML pages; the twins give values whole). */
  maxCellChars?: number;
}

/** Where the page starts: refused if the token is not this view's, or is for an older data version. */
function startOf(scraper: Scraper, table: TableInfo, view: TableView): PagePosition | undefined {
  if (view.next === undefined) return undefined;
  const first = () => viewParams({ ...view, next: undefined }, table);
  const token = decodeToken(view.next, viewIdentity(table.name, view), view.sort.length, first);
  if (token.version !== scraper.data.version) throw errors.pageTokenStale(first());
  if ((token.position.kind === 'keyset') !== (rowidName(table) !== undefined)) throw errors.pageTokenInvalid(first());
  return token.position;
}

export async function browseTable(
  pool: QueryPool,
  scraper: Scraper,
  table: TableInfo,
  view: TableView,
  laneKey: string,
  signal?: AbortSignal,
  options: BrowseOptions = {},
): Promise<BrowsePage> {
  const position = startOf(scraper, table, view);
  const statement = pageStatement(table, view, position, options.maxCellChars);
  const names = statement.keyset ? ['k', ...view.sort.map((_, i) => `n${i}`), ...statement.cells] : statement.cells;
  let found: Cell[][];
  try {
    found = (await runStatement(pool, scraper, statement, names, laneKey, { signal }))!;
  } catch (err) {
    if (!(err instanceof QueryFailed && err.failure.kind === 'timeout')) throw err;
    const description = `${describeView(view, 0, true)}: the query ran out of time`;
    return {
      columns: view.columns,
      rows: [],
      count: 0,
      countTruncated: true,
      next: null,
      description,
      facets: {},
      suggestedFacets: [],
      timedOut: true,
    };
  }
  const more = found.length > view.size;
  const shown = found.slice(0, view.size);
  const keys = statement.keyset ? 1 + view.sort.length : 0;
  const { maxCellChars } = options;
  const rows = shown.map((row) => ({
    rowid: statement.keyset ? cellText(row[0]!)! : null,
    cells: maxCellChars === undefined ? row.slice(keys) : row.slice(keys).map((cell) => cutCell(cell, maxCellChars)),
  }));
  let next: string | null = null;
  if (more) {
    const last = shown.at(-1)!;
    const at: PagePosition = statement.keyset
      ? { kind: 'keyset', rowid: cellText(last[0]!)!, nulls: view.sort.map((_, i) => cellText(last[1 + i]!) === '1') }
      : { kind: 'offset', offset: (position?.kind === 'offset' ? position.offset : 0) + view.size };
    next = encodeToken({ version: scraper.data.version, position: at }, viewIdentity(table.name, view));
  }
  const run = { pool, scraper, table, view, laneKey, signal };
  const { count, truncated } = await countView(run, { rows: rows.length, more });
  const { facets, suggested } = await viewFacets(run);
  return {
    columns: view.columns,
    rows,
    count,
    countTruncated: truncated,
    next,
    description: describeView(view, count, truncated),
    facets,
    suggestedFacets: suggested,
    timedOut: false,
  };
}

/** One row, every value whole; undefined if the table has no such rowid (or no rowids: a view). */
/** A rowid as its row page's path writes it: a 64-bit integer in its one decimal spelling. */
function isRowid(text: string): boolean {
  if (!/^(0|-?[1-9]\d{0,18})$/.test(text)) return false;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

export async function fetchRow(
  pool: QueryPool,
  scraper: Scraper,
  table: TableInfo,
  rowid: string,
  laneKey: string,
  signal?: AbortSignal,
): Promise<{ columns: string[]; cells: Cell[] } | undefined> {
  const key = rowidName(table);
  if (key === undefined || !isRowid(rowid)) return undefined;
  const columns = table.columns.map((c) => c.name);
  const names = columns.map((_, i) => `c${i}`);
  const sql = `select ${columns.map((c, i) => `${quoteIdentifier(c)} as c${i}`).join(', ')} from ${quoteIdentifier(table.name)} where ${quoteIdentifier(key)} = cast(? as integer)`;
  const [cells] = (await runStatement(pool, scraper, { sql, params: [rowid] }, names, laneKey, { signal }))!;
  return cells && { columns, cells };
}
