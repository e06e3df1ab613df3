import { describeFilter } from './filters.js';
import type { TableView } from './types.js';

const number = (n: number) => n.toLocaleString('en-US');

/**
 * What a page shows, in words, for its title and its twins: "312 rows where suburb = Katoomba,
 * sorted by date descending"; "more than 10,000 rows matching "Blue Mountains"".
 */
export function describeView(view: TableView, count: number, countTruncated: boolean): string {
  const rows = countTruncated ? `more than ${number(count)} rows` : `${number(count)} ${count === 1 ? 'row' : 'rows'}`;
  const parts = [rows];
  if (view.search !== undefined) parts.push(`matching ${JSON.stringify(view.search)}`);
  if (view.filters.length > 0) parts.push(`where ${view.filters.map(describeFilter).join(' and ')}`);
  const text = parts.join(' ');
  if (view.sort.length === 0) return text;
  return `${text}, sorted by ${view.sort.map((s) => `${s.column}${s.desc ? ' descending' : ''}`).join(', then ')}`;
}
