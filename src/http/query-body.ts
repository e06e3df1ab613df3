import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { errors } from '../errors.js';
import { formatParamNames, versionParamName } from '../formats/index.js';
import { readBoundedBody, type BodyLimits } from '../limits/bounded-body.js';
import { namedPrefix } from '../sql/named-params.js';
import { parseParams, type Params } from '../utils/query-string.js';

const formType = 'application/x-www-form-urlencoded';
const jsonType = 'application/json';
/**
 * The parameters a JSON body gives, and its `:named` values: each must be a string; other members
 * are ignored, as unknown parameters are.
 */
const jsonParams = ['key', 'query', versionParamName, ...formatParamNames];
const isJsonParam = (name: string) => jsonParams.includes(name) || name.startsWith(namedPrefix);

/** Whether a request has a body at all (RFC 9112: a Content-Length above 0, or Transfer-Encoding). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function fromJson(body: Buffer): Params {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw errors.bodyInvalid('The body is not valid JSON in UTF-8.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.bodyInvalid('The JSON body must be an object, such as {"key": "…", "query": "select …"}.');
  }
  const params: Params = Object.create(null) as Params;
  for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
    if (!isJsonParam(name)) continue;
    if (typeof member !== 'string') throw errors.bodyInvalid(`"${name}" in the JSON body must be a string.`);
    params[name] = member;
  }
  return params;
}

/**
 * The parameters in the body of a data query sent by POST: a form (decoded exactly as a query
 * string is) or a JSON object, read as UTF-8 whatever its charset says, under `limits` (413 at
 * once when its Content-Length is over). A POST without a body has none; a body of another type
 * is refused (415). `failure` aborts if the HTTP parser finds the body malformed.
 */
export async function readQueryBody(request: FastifyRequest, limits: BodyLimits, failure: AbortSignal): Promise<Params> {
  if (!hasBody(request)) return {};
  const mediaType = request.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== formType && mediaType !== jsonType) throw errors.contentType(`${formType} or ${jsonType}`);
  if (Number(request.headers['content-length'] ?? 0) > limits.maxBytes) throw limits.tooLarge();
  const body = await readBoundedBody((request.body as Readable | undefined) ?? request.raw, limits, failure);
  return mediaType === formType ? parseParams(body.toString('utf8')) : fromJson(body);
}
