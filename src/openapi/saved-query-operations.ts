import { hash } from 'node:crypto';
import type { Config } from '../config.js';
import { rowFormatNames } from '../formats/index.js';
import { reservedParamNames } from '../scrapers/saved-queries.js';
import { namedParamNames } from '../sql/named-params.js';
import type { SavedQuery } from '../store/types.js';
import type { JsonSchema } from './column-schema.js';
import { dataAnswers, keyed, type Scope } from './data-operations.js';
import { dataParamNames, dataParams, type Parameter } from './parameters.js';

/**
 * @module Saved queries' data URLs (`…/queries/<name>.<format>`) as operations: in the service's
 * document, one pair for every saved query (its name and format path parameters); in a scraper's,
 * a pair for each of its public saved queries in each row format, each `:named` parameter a
 * required parameter of its own.
 */

const savedNameParam: Parameter = {
  name: 'name',
  in: 'path',
  required: true,
  description: "The saved query's name.",
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' },
};

/** The formats a saved query is served in: its data URLs refuse `sqlite`. */
const rowFormatParam: Parameter = {
  name: 'format',
  in: 'path',
  required: true,
  description: 'The format of the answer: see [Formats](/docs#formats); `sqlite` is not one of a saved query.',
  schema: { type: 'string', enum: [...rowFormatNames] },
};

/** A saved query's values: each by its bare name, as many as its SQL names. */
const savedValuesParam: Parameter = {
  name: 'values',
  in: 'query',
  description:
    "Not a parameter itself: each member is one, named as the saved query's SQL names it without its colon (`town=Leura` for `:town`).",
  style: 'form',
  explode: true,
  schema: { type: 'object', additionalProperties: { type: 'string' } },
};

const savedQueriesLink = 'See [Saved queries](/docs#saved-queries).';

/** Every scraper's saved queries, by name (the service's document): the data API's call, its SQL the saved one's (`query` is ignored). */
export function everySavedQueryPath(scope: Scope, config: Config): Record<string, unknown> {
  const common = { tags: ['data'], security: keyed, responses: dataAnswers(rowFormatNames) };
  const parameters = [...dataParams(config).filter((p) => p.name !== 'query'), savedValuesParam];
  return {
    [`${scope.prefix}/queries/{name}.{format}`]: {
      parameters: [...scope.params, savedNameParam, rowFormatParam],
      get: {
        ...common,
        operationId: 'savedQuery',
        summary: "Run a query the scraper's owner saved, with its parameters by name",
        description: `A download, as \`data.{format}\` is. ${savedQueriesLink}`,
        parameters,
      },
      post: {
        ...common,
        operationId: 'savedQueryByPost',
        summary: 'The same call with its parameters in the body',
        description: `Never answered \`304\`. ${savedQueriesLink}`,
        parameters,
        requestBody: {
          content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } },
        },
      },
    },
  };
}

/** An operationId's part: the name's `-` made `_` (a name has no `_`, so two names never give the same). */
const idOf = (name: string) => name.replace(/-/g, '_');

/** Each `:named` parameter of the saved SQL, given by its bare name: always needed, bound as text. */
function namedParams(query: SavedQuery): Parameter[] {
  // A query saved before a name was reserved (`:version` was not at first) is described without it:
  // the call's own parameter of that name stands in its place, and one listed twice is invalid.
  const names = namedParamNames(query.sql).filter((name) => !reservedParamNames.includes(name));
  return names.map((name) => ({
    name,
    in: 'query',
    required: true,
    description: `\`:${name}\`, as text.`,
    schema: { type: 'string' },
  }));
}

/** A POST's form body: the `:named` values by bare name, and the call's other parameters. */
function formBody(named: readonly Parameter[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(named.map((p) => [p.name, { type: 'string', description: p.description }])),
    required: named.map((p) => p.name),
    additionalProperties: { type: 'string', description: "The call's other parameters, as a GET gives them (`version`, `dl`…)." },
  };
}

/** The rows' shape is the SQL's, which is known only when it runs. */
const rowsUnknown =
  "Its rows' columns are those its SQL selects, known only when it runs: in `json`, each row is an object of them (`additionalProperties`).";

/** Entries of a document's `components` (named `name` and each key) and references to them, by key. */
function shared(section: string, name: string, entries: Record<string, unknown>) {
  const keys = Object.keys(entries);
  return {
    refs: Object.fromEntries(keys.map((key) => [key, { $ref: `#/components/${section}/${name}${key}` }])),
    entries: Object.fromEntries(keys.map((key) => [`${name}${key}`, entries[key]])),
  };
}

/** What a scraper's document adds to its `components` for its saved queries. */
export interface SavedQueryComponents {
  responses: Record<string, unknown>;
  parameters: Record<string, unknown>;
}

/**
 * One scraper's public saved queries, each at its own path in every row format (`{format}`, as
 * `data.{format}` is), with GET (and HEAD) and POST. What every saved query's operations share (the
 * data API's answers and refusals, its parameters but `query` and `:named`) is in `components`, which
 * they refer to: a scraper may have 100 saved queries of 100 parameters each.
 */
export function savedQueryPaths(
  scope: Scope,
  config: Config,
  queries: readonly SavedQuery[],
): { paths: Record<string, unknown>; components: SavedQueryComponents } {
  if (queries.length === 0) return { paths: {}, components: { responses: {}, parameters: {} } };
  const responses = shared('responses', 'SavedQuery', dataAnswers(rowFormatNames));
  const callNames = dataParamNames().filter((name) => name !== 'query');
  const calls = dataParams(config).filter((p) => callNames.includes(p.name as string));
  const parameters = shared('parameters', 'SavedQuery_', Object.fromEntries(calls.map((p) => [p.name, p])));
  const common = { tags: ['saved queries'], security: keyed, responses: responses.refs };
  const paths: Record<string, unknown> = {};
  for (const query of queries) {
    const named = namedParams(query);
    const page = `${scope.prefix}/queries/${query.name}`;
    const about = `${query.description ? `${query.description}\n\n` : ''}${rowsUnknown} A download, as \`data.{format}\` is; its SQL and rows for people are [its page](${page}). ${savedQueriesLink}`;
    paths[`${page}.{format}`] = {
      parameters: [...scope.params, rowFormatParam],
      get: {
        ...common,
        operationId: `savedQuery_${idOf(query.name)}`,
        summary: query.title,
        description: about,
        parameters: [...Object.values(parameters.refs), ...named],
      },
      post: {
        ...common,
        operationId: `savedQueryByPost_${idOf(query.name)}`,
        summary: `${query.title}, its parameters in a form body`,
        description: `${about} Never answered \`304\`.`,
        requestBody: { required: named.length > 0, content: { 'application/x-www-form-urlencoded': { schema: formBody(named) } } },
      },
    };
  }
  return { paths, components: { responses: responses.entries, parameters: parameters.entries } };
}

/**
 * What of the saved queries shapes a scraper's document (the fields savedQueryPaths reads), as one
 * short hash for its ETag: saving, editing or removing a public query changes it.
 */
export function savedQueriesTag(queries: readonly SavedQuery[]): string {
  return hash('sha256', JSON.stringify(queries.map((q) => [q.name, q.title, q.description, q.sql])), 'base64url');
}
