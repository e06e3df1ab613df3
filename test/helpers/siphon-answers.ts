import assert from 'node:assert/strict';
import { errorReference } from '../../src/views/error-reference.js';

/** Every error code the service defines, with its documented status (`4xx` when it varies). */
export const documentedStatus = new Map(errorReference.map((e) => [e.code, e.status]));

export interface Answer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string | undefined>;
  body: string;
}

/**
 * What is wrong with an error answer, or undefined when it is in Siphon's one shape: a JSON body of
 * exactly `{"error": "<message>"}`, the code of an error defined in src/errors/ in
 * `Siphon-Error-Code` with that error's status, CORS, no-store and nosniff headers.
 */
export function errorShapeProblem(answer: Answer, method = 'GET'): string | undefined {
  const code = answer.headers['siphon-error-code'];
  if (code === undefined) return 'no Siphon-Error-Code header';
  const documented = documentedStatus.get(code);
  if (documented === undefined) return `unknown code ${code}`;
  if (documented !== '4xx' && documented !== String(answer.status)) return `${code} with status ${answer.status}, documented ${documented}`;
  if (documented === '4xx' && (answer.status < 400 || answer.status > 499)) return `${code} with status ${answer.status}`;
  if (!(answer.headers['content-type'] ?? '').startsWith('application/json')) return `content-type ${answer.headers['content-type']}`;
  if (answer.headers['access-control-allow-origin'] !== '*') return 'no CORS header';
  // A signed-in visitor's answers are `private, no-store` (web-session.ts): kept by no cache either.
  if (!/^(private, )?no-store$/.test(answer.headers['cache-control'] ?? '')) return `cache-control ${answer.headers['cache-control']}`;
  if (answer.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
  // A HEAD answer has no body to check.
  if (method === 'HEAD') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 200)}`;
  }
  const keys = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed) : [];
  if (keys.length !== 1 || keys[0] !== 'error' || typeof (parsed as { error: unknown }).error !== 'string') {
    return `body is not {"error": "..."}: ${answer.body.slice(0, 200)}`;
  }
  return undefined;
}

/** Asserts an error answer has this status and code, in Siphon's shape; returns its message. */
export function assertRefused(answer: Answer, status: number, code: string, what = ''): string {
  assert.equal(answer.status, status, `${what}: ${answer.body.slice(0, 300)}`);
  assert.equal(answer.headers['siphon-error-code'], code, what);
  assert.equal(errorShapeProblem(answer), undefined, what);
  return (JSON.parse(answer.body) as { error: string }).error;
}

/** A fetch() response as an Answer (its body read as text). */
export async function fetchAnswer(response: Response): Promise<Answer> {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}
