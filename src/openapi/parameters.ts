import { defaultFacetSize, defaultPageSize, maxFacetSize, maxPageSize as maxViewSize, reservedNames } from '../browse/view-bounds.js';
import type { Config } from '../config.js';
import { formatParamNames, versionParamName } from '../formats/index.js';
import { maxQueryPageRows } from '../limits/query-page.js';
import { maxNamedValues, namedPrefix } from '../sql/named-params.js';
import type { JsonSchema } from './column-schema.js';
import { describedIn, referenceTable, type ReferenceTable } from './reference-tables.js';

/**
 * @module The parameters of the data API and of the table views' twins as OpenAPI parameters: their
 * names from the code (the format registry's, the view's reserved names), what they do from
 * docs/api.md's tables, their bounds from the code and the server's settings.
 */

export type Parameter = Record<string, unknown>;

const flag: JsonSchema = { type: 'string', enum: ['0', '1'] };
/** A kept data version's id, as src/scrapers/version-id.ts reads it. */
const versionSchema: JsonSchema = { type: 'string', pattern: '^[1-9][0-9]{0,8}$' };

/** The data API's parameters besides the key (a security scheme): `query`, `version`, then the formats'. */
export function dataParamNames(): string[] {
  return ['query', versionParamName, ...formatParamNames];
}

function dataParamSchema(name: string, config: Config): JsonSchema {
  switch (name) {
    case 'query':
      return { type: 'string', minLength: 1, maxLength: config.maxQueryChars };
    case 'page_size':
      return { type: 'integer', minimum: 1, maximum: maxQueryPageRows };
    case versionParamName:
      return versionSchema;
    case 'callback':
      return { type: 'string', maxLength: 128, pattern: '^[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)*$' };
    case 'dl':
    case 'excel':
      return flag;
    default:
      return { type: 'string' };
  }
}

/** A `:named` value's name, as its parameter spells it: the colon, then the SQL's name. */
const namedPattern = `^${namedPrefix}`;

/**
 * The SQL's `:named` values: one object whose members are sent as parameters of their own
 * (`style: form`, `explode`), each named with its colon.
 */
function namedValuesParam(table: ReferenceTable): Parameter {
  return {
    name: `${namedPrefix}named`,
    in: 'query',
    description: `Not a parameter itself: each member is one, named as the SQL names it. ${describedIn(table, `${namedPrefix}name`, 3)}`,
    style: 'form',
    explode: true,
    schema: {
      type: 'object',
      maxProperties: maxNamedValues,
      propertyNames: { pattern: namedPattern },
      additionalProperties: { type: 'string' },
    },
  };
}

/** The data API's query-string parameters; `examples` for `query`, when the document knows the tables. */
export function dataParams(config: Config, queryExamples?: Record<string, unknown>): Parameter[] {
  const table = referenceTable("Query a scraper's data");
  const params: Parameter[] = dataParamNames().map((name) => ({
    name,
    in: 'query',
    // `query` is required but for `sqlite`, which the path's format decides: required in no schema.
    required: false,
    description: describedIn(table, name, 3),
    schema: dataParamSchema(name, config),
    ...(name === 'query' && queryExamples ? { examples: queryExamples } : {}),
  }));
  return [...params, namedValuesParam(table)];
}

/** A POST's body: the same parameters, and the key, each a string. */
export function dataBodySchema(config: Config): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    key: { type: 'string', description: 'Your API key (a header is better: it wins over this).' },
  };
  for (const name of dataParamNames()) properties[name] = { ...dataParamSchema(name, config), type: 'string' };
  return { type: 'object', properties, patternProperties: { [namedPattern]: { type: 'string', description: 'A `:named` value.' } } };
}

/** Parameters a view takes more than once. */
const repeatable = new Set(['_sort', '_sort_desc', '_col', '_nocol', '_facet']);

function viewParamSchema(name: string): JsonSchema {
  if (repeatable.has(name)) return { type: 'array', items: { type: 'string' } };
  if (name === '_size')
    return { oneOf: [{ type: 'integer', minimum: 1, maximum: maxViewSize, default: defaultPageSize }, { const: 'max' }] };
  if (name === '_facet_size')
    return { oneOf: [{ type: 'integer', minimum: 1, maximum: maxFacetSize, default: defaultFacetSize }, { const: 'max' }] };
  if (name === '_count') return { const: 'all' };
  if (name === versionParamName) return versionSchema;
  return { type: 'string' };
}

/**
 * A view's parameters: each reserved name, and the filters (`COL=V`, `COL__OP=V`) as one object
 * whose members are sent as parameters of their own (`style: form`, `explode`).
 */
export function viewParams(columnNames?: readonly string[]): Parameter[] {
  const table = referenceTable('Parameters of a view');
  const named = [...reservedNames].map((name) => ({
    name,
    in: 'query',
    description: describedIn(table, name, 1),
    schema: viewParamSchema(name),
    ...(repeatable.has(name) ? { style: 'form', explode: true } : {}),
  }));
  const filters = {
    name: 'filters',
    in: 'query',
    description: `Not a parameter itself: each member is one. ${describedIn(table, 'COL', 1)}; ${describedIn(table, 'COL__OP', 1)}.`,
    style: 'form',
    explode: true,
    schema: {
      type: 'object',
      ...(columnNames ? { propertyNames: { description: `a column (${columnNames.join(', ')}), or one and \`__\` and an operator` } } : {}),
      additionalProperties: { type: 'string' },
    },
  };
  return [...named, filters];
}
