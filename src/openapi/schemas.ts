import type { JsonSchema } from './column-schema.js';
import { errorResponseComponents, errorSchemas } from './errors.js';

/**
 * @module The components every document has: the three ways to send a key, the error shape and
 * every code, and the bodies of the answers that are not rows.
 */

export const securitySchemes = {
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Your key in a header: the way to prefer from server code.',
  },
  bearer: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <key>`.' },
  keyParam: {
    type: 'apiKey',
    in: 'query',
    name: 'key',
    description:
      "The `key` parameter, as on morph.io (or a POST body's `key`). A key in a URL ends up in logs and history: a header wins over it.",
  },
};

const column: JsonSchema = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string', description: "As declared ('' for none)." },
    notNull: { const: true, description: 'Never NULL: declared NOT NULL, or the INTEGER PRIMARY KEY.' },
    generated: { const: true, description: 'A generated column.' },
  },
};

const table: JsonSchema = {
  type: 'object',
  required: ['name', 'columns', 'rows'],
  properties: {
    name: { type: 'string' },
    columns: { type: 'array', items: column },
    rows: { type: 'integer', description: 'Counted at publish (a view: up to a cap).' },
    kind: { enum: ['view', 'without-rowid'] },
    rowsCapped: { const: true },
  },
};

const scraperFacts = {
  owner: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  updated_at: { type: 'string', format: 'date-time' },
  tables: { type: 'array', items: { $ref: '#/components/schemas/Table' } },
};

export function componentSchemas(): Record<string, JsonSchema> {
  return {
    ...errorSchemas(),
    Table: table,
    ScraperInfo: {
      type: 'object',
      required: ['owner', 'name', 'description', 'updated_at', 'tables', 'downloads'],
      properties: {
        ...scraperFacts,
        downloads: {
          type: 'object',
          properties: {
            total: { type: 'integer' },
            by: { type: 'array', items: { type: 'object', properties: { owner: { type: 'string' }, count: { type: 'integer' } } } },
          },
        },
      },
    },
    Published: {
      type: 'object',
      required: ['owner', 'name', 'description', 'updated_at', 'version', 'tables'],
      properties: { ...scraperFacts, version: { type: 'integer' } },
    },
  };
}

/** The components of a document, with its own schemas (a scraper's rows), responses and parameters (its saved queries') added. */
export function components(
  own: Record<string, JsonSchema> = {},
  shared: { responses?: Record<string, unknown>; parameters?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    securitySchemes,
    schemas: { ...componentSchemas(), ...own },
    responses: { ...errorResponseComponents(), ...shared.responses },
    ...(shared.parameters ? { parameters: shared.parameters } : {}),
  };
}
