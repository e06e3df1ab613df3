/**
 * Which queries may be split into rowid ranges run by two query processes at once, and the ranges
 * of a plan. Only a whole-table export qualifies (`select * from <table>`, nothing else), in a format
 * whose body can be made range by range (`rangeable`); the query process then checks the table
 * itself (range-plan.ts). Concatenated in order, the ranges' bodies are the unsplit body, byte for byte.
 */
import { findFormat } from '../formats/index.js';
import { sqlTokens, type SqlToken } from '../sql/tokens.js';
import type { QueryJob, RangePlan, RowidRange } from './protocol.js';

/** The table a query reads whole when it is exactly `select * from <name>`; undefined for any other query. */
export function wholeTable(sql: string): string | undefined {
  const tokens: SqlToken[] = [];
  // Five tokens are enough to know: a long query is not read to its end.
  for (const token of sqlTokens(sql)) if (tokens.push(token) > 4) return undefined;
  const is = (i: number, kind: string, text: string) => tokens[i]?.kind === kind && tokens[i].text.toLowerCase() === text;
  if (tokens.length !== 4 || !is(0, 'word', 'select') || !is(1, 'other', '*') || !is(2, 'word', 'from')) return undefined;
  const name = tokens[3]!;
  return name.kind === 'word' || name.kind === 'quoted' ? name.text : undefined;
}

/** Whether the job could be split, as far as its SQL text and format say. */
export function mayBeSplit(job: QueryJob): boolean {
  const format = findFormat(job.format);
  return format?.kind === 'rows' && format.rangeable === true && wholeTable(job.sql) !== undefined;
}

export function rangeCount(plan: RangePlan): number {
  return plan.bounds.length + 1;
}

/** Range `k` of a plan: the first has no lower bound and the last no upper one, so together they hold every rowid. */
export function rangeOf(plan: RangePlan, k: number): RowidRange {
  return { table: plan.table, column: plan.column, from: plan.bounds[k - 1], to: plan.bounds[k], rows: plan.rows };
}
