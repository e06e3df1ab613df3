/**
 * A table page's column filters (`COL__OP=VALUE`, Datasette's operators): what each operator means
 * in SQL, its value always bound as data, and in words.
 */
import { errors } from '../errors.js';
import type { QueryParam } from '../pool/protocol.js';
import { quoteIdentifier } from '../shared/sql-names.js';
import type { Filter, FilterOp } from './types.js';

export const filterOps: readonly FilterOp[] = [
  'exact',
  'not',
  'contains',
  'notcontains',
  'startswith',
  'endswith',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'notlike',
  'glob',
  'in',
  'notin',
  'isnull',
  'notnull',
  'isblank',
  'notblank',
  'date',
];
const opNames = new Set<string>(filterOps);
export const isFilterOp = (name: string): name is FilterOp => opNames.has(name);

/** Operators that take no value: `COL__isnull=1` (any value, written as 1). */
export const valuelessOps = new Set<FilterOp>(['isnull', 'notnull', 'isblank', 'notblank']);

/** Values of one `in` / `notin` filter. */
export const maxListValues = 500;

/**
 * A value as a number where it reads as one exactly (a decimal integer a double holds exactly, or
 * a decimal fraction): bound as a number too, it matches numbers stored in a column without a
 * declared type, where SQLite would compare the text as text (and text is never equal to a number).
 */
export function numberOf(value: string): number | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && (value.includes('.') || Number.isSafeInteger(n)) ? n : undefined;
}

/** The values of an `in` / `notin` filter: a JSON array of strings and numbers, or comma-separated text. */
export function listValues(filter: Filter): string[] {
  let values: string[];
  if (filter.value.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(filter.value);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string' || typeof v === 'number')) {
      throw errors.viewValue(`${filter.column}__${filter.op}`, 'a JSON array of strings and numbers, or values separated by commas');
    }
    values = parsed.map(String);
  } else values = filter.value.split(',');
  if (values.length > maxListValues) throw errors.viewValue(`${filter.column}__${filter.op}`, `at most ${maxListValues} values`);
  return values;
}

/** Checks what a filter's value must be, so a bad one is refused before any SQL runs. */
export function checkFilterValue(filter: Filter): void {
  if (filter.op === 'in' || filter.op === 'notin') listValues(filter);
  if (filter.op === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(filter.value)) {
    throw errors.viewValue(`${filter.column}__date`, 'a date written YYYY-MM-DD');
  }
}

/** The text and, where it reads as one, the number: `?` each, for `=` and `in`. */
function alternatives(value: string, params: QueryParam[]): string {
  const n = numberOf(value);
  params.push(value);
  if (n === undefined) return '?';
  params.push(n);
  return '?, ?';
}

/** LIKE's wildcards in a value taken literally, escaped with `\`. */
const likeLiteral = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The filter's condition in SQL on column `c` (quoted), its values pushed to `params`. Comparisons
 * take the value as a number when it reads as one (as Datasette does); `contains`, `startswith` and
 * `endswith` are LIKE with the value literal, so ASCII letters match in either case.
 */
export function filterSql(filter: Filter, params: QueryParam[]): string {
  const c = quoteIdentifier(filter.column);
  const v = filter.value;
  const like = (pattern: string, not = false) => {
    params.push(pattern);
    return `${c} ${not ? 'not like' : 'like'} ? escape '\\'`;
  };
  const compare = (op: string) => {
    params.push(numberOf(v) ?? v);
    return `${c} ${op} ?`;
  };
  switch (filter.op) {
    case 'exact':
      return `${c} in (${alternatives(v, params)})`;
    case 'not':
      return `${c} not in (${alternatives(v, params)})`;
    case 'contains':
      return like(`%${likeLiteral(v)}%`);
    case 'notcontains':
      return like(`%${likeLiteral(v)}%`, true);
    case 'startswith':
      return like(`${likeLiteral(v)}%`);
    case 'endswith':
      return like(`%${likeLiteral(v)}`);
    case 'gt':
      return compare('>');
    case 'gte':
      return compare('>=');
    case 'lt':
      return compare('<');
    case 'lte':
      return compare('<=');
    case 'like':
      params.push(v);
      return `${c} like ?`;
    case 'notlike':
      params.push(v);
      return `${c} not like ?`;
    case 'glob':
      params.push(v);
      return `${c} glob ?`;
    case 'in':
    case 'notin': {
      const list = listValues(filter).map((value) => alternatives(value, params));
      return `${c} ${filter.op === 'in' ? 'in' : 'not in'} (${list.join(', ')})`;
    }
    case 'isnull':
      return `${c} is null`;
    case 'notnull':
      return `${c} is not null`;
    case 'isblank':
      return `(${c} is null or ${c} = '')`;
    case 'notblank':
      return `(${c} is not null and ${c} != '')`;
    case 'date':
      params.push(v);
      return `date(${c}) = ?`;
  }
}

const words: Record<FilterOp, string> = {
  exact: '=',
  not: '!=',
  contains: 'contains',
  notcontains: 'does not contain',
  startswith: 'starts with',
  endswith: 'ends with',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'is like',
  notlike: 'is not like',
  glob: 'matches the glob',
  in: 'is one of',
  notin: 'is none of',
  isnull: 'is null',
  notnull: 'is not null',
  isblank: 'is blank',
  notblank: 'is not blank',
  date: 'is on the date',
};

/** "suburb = Katoomba", "price > 10", "name is one of a, b". */
export function describeFilter(filter: Filter): string {
  if (valuelessOps.has(filter.op)) return `${filter.column} ${words[filter.op]}`;
  const value = filter.op === 'in' || filter.op === 'notin' ? listValues(filter).join(', ') : filter.value;
  return `${filter.column} ${words[filter.op]} ${value}`;
}
