import type { JsonSchema } from './column-schema.js';
import { dataHeaders, keyed, type Scope } from './data-operations.js';
import { errorResponses } from './errors.js';
import { viewParams, type Parameter } from './parameters.js';

/**
 * @module The table views' twins for programs (`…/tables/{table}.json`, `.csv`, `…/{rowid}.json`)
 * as operations: for every table (a `table` path parameter) or for one, whose rows have a schema.
 */

/** A twin's table: the `{table}` parameter of every scraper's document, or one table by name. */
export interface TwinTable {
  /** The path segment: `{table}`, or the table's name tilde-encoded. */
  segment: string;
  params: Parameter[];
  /** An operationId's distinct part and the summary's name. */
  id: string;
  label: string;
  /** Its rows' schema; a plain object for any table. */
  row: JsonSchema;
  /** A view has no rowids, so no row twin. */
  hasRows: boolean;
  columnNames?: readonly string[];
}

export const tableParam: Parameter = {
  name: 'table',
  in: 'path',
  required: true,
  description: 'A table or view, its name [tilde-encoded](/docs#table-views) as the table pages write it.',
  schema: { type: 'string' },
};

/** A view's JSON twin: its rows and what the table page shows with them. */
function viewBody(row: JsonSchema): JsonSchema {
  const orNull = (type: string) => ({ type: [type, 'null'] });
  return {
    type: 'object',
    required: ['rows', 'columns', 'rowids', 'count', 'count_truncated', 'description', 'next', 'next_url', 'timed_out'],
    properties: {
      rows: { type: 'array', items: row },
      columns: { type: 'array', items: { type: 'string' } },
      rowids: { type: ['array', 'null'], items: { type: 'integer' } },
      count: { type: 'integer' },
      count_truncated: { type: 'boolean' },
      description: { type: 'string' },
      next: orNull('string'),
      next_url: orNull('string'),
      timed_out: { type: 'boolean' },
      facets: { type: 'object', additionalProperties: { type: 'object' } },
      suggested_facets: { type: 'array', items: { type: 'string' } },
    },
  };
}

const twinErrors = () => errorResponses({ areas: ['query'] });

/** The three twins of a table (two for a view). */
export function tablePaths(scope: Scope, table: TwinTable): Record<string, unknown> {
  const base = `${scope.prefix}/tables/${table.segment}`;
  const params = [...scope.params, ...table.params];
  const common = { tags: ['tables'], security: keyed };
  const paths: Record<string, unknown> = {
    [`${base}.json`]: {
      parameters: params,
      get: {
        ...common,
        operationId: `tableJson${table.id}`,
        summary: `Rows of ${table.label} as a table page shows them: filtered, sorted, faceted, in pages`,
        description: 'A download. See [Table views](/docs#table-views).',
        parameters: viewParams(table.columnNames),
        responses: {
          '200': {
            description: 'A page of the view.',
            headers: dataHeaders,
            content: { 'application/json': { schema: viewBody(table.row) } },
          },
          ...twinErrors(),
        },
      },
    },
    [`${base}.csv`]: {
      parameters: params,
      get: {
        ...common,
        operationId: `tableCsv${table.id}`,
        summary: `The same page of ${table.label} as CSV`,
        parameters: viewParams(table.columnNames),
        responses: {
          '200': {
            description: 'A header line, then the rows.',
            headers: dataHeaders,
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...twinErrors(),
        },
      },
    },
  };
  if (table.hasRows) {
    paths[`${base}/{rowid}.json`] = {
      parameters: [...params, { name: 'rowid', in: 'path', required: true, description: "The row's rowid.", schema: { type: 'integer' } }],
      get: {
        ...common,
        operationId: `tableRow${table.id}`,
        summary: `One row of ${table.label} by its rowid`,
        responses: {
          '200': {
            description: 'The row, as a list of one.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['rowid', 'columns', 'rows'],
                  properties: {
                    rowid: { type: 'integer' },
                    columns: { type: 'array', items: { type: 'string' } },
                    rows: { type: 'array', items: table.row },
                  },
                },
              },
            },
          },
          ...twinErrors(),
        },
      },
    };
  }
  return paths;
}
