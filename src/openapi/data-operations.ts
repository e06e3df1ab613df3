import type { Config } from '../config.js';
import { findFormat, formatNames } from '../formats/index.js';
import type { JsonSchema } from './column-schema.js';
import { errorResponses } from './errors.js';
import { dataBodySchema, dataParams, type Parameter } from './parameters.js';
import { referenceTable } from './reference-tables.js';

/**
 * @module The data API's operations (GET and POST `data.{format}`, PUT `data.sqlite`) and the
 * scraper's information, for a scope: every scraper (`/{owner}/{scraper}`, the path's parameters) or
 * one (its own path). Formats and their types come from the format registry (src/formats/index.ts).
 */

/** Where the operations are: the path before `/data.…`, and the path parameters it holds. */
export interface Scope {
  prefix: string;
  params: Parameter[];
  /** Per table: a name and `select * from … limit 10`, for the `query` parameter's examples. */
  queryExamples?: Record<string, unknown>;
}

/** Security: any one of the three ways to send a key. */
export const keyed = [{ apiKeyHeader: [] }, { bearer: [] }, { keyParam: [] }];

const text = (description: string): Record<string, unknown> => ({ description, schema: { type: 'string' } });

/** Headers of every data answer. */
export const dataHeaders = {
  ETag: text('Changes with the data version, the query and its format: send it back in `If-None-Match` for a `304`.'),
  'Last-Modified': text('When the data last changed.'),
  Link: text('A page of a query (`page_size`) or a view: `<URL>; rel="next"`, the next page, when there is one.'),
  'Content-Disposition': text('`attachment` with a readable file name: with `dl=1`, and always for `csv` and `sqlite`.'),
  'RateLimit-Limit': { description: 'Requests a minute the key may make.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in this minute.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the count starts over.', schema: { type: 'integer' } },
};

/** The media type without its parameters (`; charset=utf-8`), as OpenAPI keys content. */
const mediaType = (contentType: string) => contentType.split(';')[0]!.trim();

/** What each format's body is, by its media type: JSON rows as objects, everything else as text or bytes. */
function formatContent(names: readonly string[]): Record<string, unknown> {
  const described = referenceTable('Formats');
  const content: Record<string, unknown> = {};
  const add = (type: string, schema: JsonSchema, body: string | undefined) =>
    (content[mediaType(type)] = { schema: body === undefined ? schema : { ...schema, description: body } });
  for (const name of names) {
    const format = findFormat(name)!;
    const body = described.get(name)?.[1];
    if (format.kind === 'file') add(format.contentType, { type: 'string', contentMediaType: mediaType(format.contentType) }, body);
    else if (mediaType(format.contentType) === 'application/json')
      add(format.contentType, { type: 'array', items: { type: 'object', additionalProperties: true } }, body);
    else add(format.contentType, { type: 'string' }, body);
    if (format.kind === 'rows' && format.script)
      add(format.script.contentType, { type: 'string' }, described.get(`${name} + ${format.script.param}`)?.[1]);
  }
  return content;
}

const formatParam: Parameter = {
  name: 'format',
  in: 'path',
  required: true,
  description: 'The format of the answer: see [Formats](/docs#formats).',
  schema: { type: 'string', enum: [...formatNames] },
};

/** A data call's answers in `formats` (every one by default), its refusals those of the data API unless given (as references). */
export function dataAnswers(
  formats: readonly string[] = formatNames,
  refusals = errorResponses({ areas: ['query'] }),
): Record<string, unknown> {
  return {
    '200': {
      description: "The query's rows (or the database file) in the format asked for.",
      headers: dataHeaders,
      content: formatContent(formats),
    },
    '304': {
      description: '`If-None-Match` (or `If-Modified-Since`) names the current answer (GET and HEAD only).',
      headers: { ETag: dataHeaders.ETag },
    },
    ...refusals,
  };
}

/** A GET of the SQLite file with `Range`: a part of it (416 past its end is among the errors). */
const partialAnswer = {
  '206': {
    description:
      'A `Range: bytes=…` of the `sqlite` file (one range; `If-Range` with its strong `ETag`). See [Byte ranges](/docs#byte-ranges-of-the-sqlite-file).',
    headers: { 'Content-Range': text('`bytes FIRST-LAST/SIZE`.'), ETag: dataHeaders.ETag },
    content: { 'application/vnd.sqlite3': { schema: { type: 'string', contentMediaType: 'application/vnd.sqlite3' } } },
  },
};

/** `data.{format}` in GET and POST, and `data.sqlite` in PUT (publishing). */
export function dataPaths(scope: Scope, config: Config): Record<string, unknown> {
  const common = { tags: ['data'], security: keyed };
  return {
    [`${scope.prefix}/data.{format}`]: {
      parameters: [...scope.params, formatParam],
      get: {
        ...common,
        operationId: 'query',
        summary: 'Run an SQL query on the scraper, or download its database',
        description: "A download: recorded and rate-limited. See [Query a scraper's data](/docs#query-a-scrapers-data).",
        parameters: dataParams(config, scope.queryExamples),
        responses: { ...dataAnswers(), ...partialAnswer },
      },
      post: {
        ...common,
        operationId: 'queryByPost',
        summary: 'The same call with its parameters in the body',
        description:
          'For SQL too long for a URL, and to keep keys out of URLs. Never answered `304`. See [POST](/docs#post-parameters-in-the-body).',
        parameters: dataParams(config),
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': { schema: dataBodySchema(config) },
            'application/json': { schema: dataBodySchema(config) },
          },
        },
        responses: dataAnswers(),
      },
    },
    [`${scope.prefix}/data.sqlite`]: {
      parameters: scope.params,
      put: {
        tags: ['publishing'],
        security: keyed,
        operationId: 'publish',
        summary: "Replace the scraper's data with an SQLite database (its owner's key)",
        description: 'See [Publishing data](/docs#publishing-data).',
        requestBody: {
          required: true,
          content: { 'application/vnd.sqlite3': { schema: { type: 'string', contentMediaType: 'application/vnd.sqlite3' } } },
        },
        responses: {
          '200': {
            description: "The new data's description.",
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Published' } } },
          },
          ...errorResponses({ areas: ['query', 'manage'] }),
        },
      },
    },
    [`${scope.prefix}.json`]: {
      parameters: scope.params,
      get: {
        tags: ['scrapers'],
        security: [],
        operationId: 'scraperInfo',
        summary: 'Tables, columns, row counts and downloads of a public scraper; no key',
        description: 'See [Scraper information](/docs#scraper-information).',
        responses: {
          '200': {
            description: 'What a client needs to write a query.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ScraperInfo' } } },
          },
          ...errorResponses({ codes: ['SIPHON_ERR_SCRAPER_NOT_FOUND'] }),
        },
      },
    },
  };
}
