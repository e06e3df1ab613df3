import { siphonVersion } from '../version.js';
import type { Config } from '../config.js';
import { dataPaths, type Scope } from './data-operations.js';
import { errorResponses } from './errors.js';
import { everySavedQueryPath } from './saved-query-operations.js';
import { components } from './schemas.js';
import { tableParam, tablePaths } from './table-operations.js';

/**
 * @module `GET /openapi.json`: Siphon's whole public HTTP API as OpenAPI 3.1, made from what /docs
 * is made from (the format registry, the error catalogue, the settings, docs/api.md's tables), so
 * the two cannot disagree. test/openapi.test.ts checks it against the server's routes.
 */

export type OpenApiDocument = Record<string, unknown>;

export const openApiVersion = '3.1.0';

const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });

/** Every scraper: the owner and scraper as path parameters. */
const everyScraper: Scope = {
  prefix: '/{owner}/{scraper}',
  params: [pathParam('owner', "The scraper's owner (any case)."), pathParam('scraper', "The scraper's name (any case).")],
};

const documentAnswer = { description: 'An OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } };

/** The document of one scraper's API, as a path of every document. */
export function scraperDocumentPath(scope: Scope): Record<string, unknown> {
  return {
    [`${scope.prefix}/openapi.json`]: {
      parameters: scope.params,
      get: {
        summary: "This scraper's API as OpenAPI 3.1: its tables' rows as JSON Schemas, an example query per table",
        tags: ['scrapers'],
        operationId: 'scraperOpenApi',
        description:
          "No key needed for a public scraper; a private one's is served to its owner's key only. Carries an `ETag` that changes with each data version: see [OpenAPI documents](/docs#openapi-documents).",
        security: [{}, { apiKeyHeader: [] }, { bearer: [] }, { keyParam: [] }],
        responses: {
          '200': documentAnswer,
          '304': { description: '`If-None-Match` names the current document.' },
          ...errorResponses({ codes: ['SIPHON_ERR_SCRAPER_NOT_FOUND', 'SIPHON_ERR_KEY_INVALID', 'SIPHON_ERR_KEY_REVOKED'] }),
        },
      },
    },
  };
}

/** The information part and servers of a document. */
export function documentHead(title: string, description: string, origin: string | undefined): Record<string, unknown> {
  return {
    openapi: openApiVersion,
    info: { title, version: siphonVersion(), description },
    ...(origin ? { servers: [{ url: origin }] } : {}),
  };
}

/** Siphon's whole API; `origin` is the public address to put in `servers`, when it is known. */
export function serviceDocument(config: Config, origin: string | undefined): OpenApiDocument {
  return {
    ...documentHead(
      'Siphon',
      "Query a public scraper's SQLite data with one GET request and an SQL query, in the format you need; morph.io's data API. The reference: [/docs](/docs).",
      origin,
    ),
    security: [{ apiKeyHeader: [] }, { bearer: [] }, { keyParam: [] }],
    paths: {
      ...dataPaths(everyScraper, config),
      ...everySavedQueryPath(everyScraper, config),
      ...tablePaths(everyScraper, {
        segment: '{table}',
        params: [tableParam],
        id: '',
        label: 'a table or view',
        row: { type: 'object' },
        hasRows: true,
      }),
      ...scraperDocumentPath(everyScraper),
      '/openapi.json': {
        get: { summary: 'This document', tags: ['service'], operationId: 'openApi', security: [], responses: { '200': documentAnswer } },
      },
      '/healthz': {
        get: {
          tags: ['service'],
          operationId: 'health',
          security: [],
          summary: 'Whether queries can be served',
          responses: {
            '200': {
              description: 'At least one query process is ready.',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { status: { const: 'ok' }, queryProcessesReady: { type: 'integer' } } },
                },
              },
            },
            ...errorResponses({ codes: ['SIPHON_ERR_UNAVAILABLE'] }),
          },
        },
      },
    },
    components: components(),
  };
}
