import { errorCodeHeader } from '../errors.js';
import { errorReference, type DocumentedError } from '../views/error-reference.js';
import type { JsonSchema } from './column-schema.js';
import { portable } from './reference-tables.js';

/**
 * @module Siphon's errors in OpenAPI, from the error catalogue (src/errors/, with the docs of
 * src/views/error-reference.ts): the one error shape, every code, and each operation's error
 * responses, a response per status listing the codes it may carry with an example of each.
 */

const errorRef = { $ref: '#/components/schemas/Error' };

/** The schemas every document has: the error body and the list of codes. */
export function errorSchemas(): Record<string, JsonSchema> {
  return {
    Error: {
      type: 'object',
      description: `Every refusal's body, whatever the format asked for (a JSONP call's is handed to its callback, with status 200). The code is in the \`${errorCodeHeader}\` header.`,
      required: ['error'],
      properties: { error: { type: 'string', description: 'What was wrong, for a person to read.' } },
      examples: [{ error: errorReference[0]!.example }],
    },
    ErrorCode: {
      type: 'string',
      description: 'Every `SIPHON_ERR_*` code, sent in the `Siphon-Error-Code` header of each refusal. Codes are never reused or renamed.',
      enum: errorReference.map((e) => e.code),
    },
  };
}

/** OpenAPI's key for a status: `4XX` for the errors whose status is the HTTP layer's. */
const statusKey = (e: DocumentedError) => (e.status === '4xx' ? '4XX' : e.status);

function response(list: DocumentedError[]): Record<string, unknown> {
  const codes = [...new Set(list.map((e) => e.code))];
  return {
    description: list.map((e) => `\`${e.code}\`: ${portable(e.when)}`).join('\n\n'),
    headers: { [errorCodeHeader]: { description: 'The error code.', schema: { type: 'string', enum: codes } } },
    content: {
      'application/json': {
        schema: errorRef,
        examples: Object.fromEntries(list.map((e) => [e.code, { summary: e.code, value: { error: e.example } }])),
      },
    },
  };
}

/** Each code's own response, under its code: every code of the catalogue is in every document. */
export function errorResponseComponents(): Record<string, unknown> {
  const byCode = new Map<string, DocumentedError[]>();
  for (const e of errorReference) byCode.set(e.code, [...(byCode.get(e.code) ?? []), e]);
  return Object.fromEntries([...byCode].map(([code, list]) => [code, response(list)]));
}

/** Which errors an operation answers: those of the catalogue's areas, and any codes named. */
export interface ErrorSelection {
  areas?: readonly DocumentedError['area'][];
  codes?: readonly string[];
}

/** An operation's error responses by status, each listing its codes. */
export function errorResponses(selection: ErrorSelection): Record<string, unknown> {
  const chosen = errorReference.filter((e) => selection.areas?.includes(e.area) || selection.codes?.includes(e.code));
  const byStatus = new Map<string, DocumentedError[]>();
  for (const e of chosen) byStatus.set(statusKey(e), [...(byStatus.get(statusKey(e)) ?? []), e]);
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a.localeCompare(b)).map(([status, list]) => [status, response(list)]));
}
