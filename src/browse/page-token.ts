/**
 * The `_next` token of a table page: where the next page starts, for one view of one data version.
 *
 * A table's token holds the last row's rowid and which of its sort values were NULL (the values
 * themselves are read back from that row by the next page's SQL, compile.ts, so no value has to
 * survive a round trip through text); a view's (or a table without rowid) holds an offset. It
 * carries the data version and ends with a checksum of itself and of the view it was given for
 * (table, sort, filters, search): a token changed by hand, or used with another view, is refused.
 * A checksum, not a signature: a forged token can only point at rows of the same public view, the
 * very rows the next links lead to, so no secret shared between the nodes is worth having for it.
 */
import { createHash } from 'node:crypto';
import { errors } from '../errors.js';
import type { TableView } from './types.js';

export type PagePosition = { kind: 'keyset'; rowid: string; nulls: boolean[] } | { kind: 'offset'; offset: number };

export interface PageToken {
  version: number;
  position: PagePosition;
}

/** What a token is bound to: the view's rows and their order, not its page size or shown columns. */
export function viewIdentity(table: string, view: TableView): string {
  return JSON.stringify([table, view.sort, view.filters, view.search ?? null]);
}

const checksum = (payload: string, identity: string) =>
  createHash('sha256').update(payload).update('\n').update(identity).digest('base64url').slice(0, 16);

export function encodeToken(token: PageToken, identity: string): string {
  const { version, position } = token;
  const body =
    position.kind === 'keyset' ? [version, position.rowid, position.nulls.map((n) => (n ? 1 : 0)).join('')] : [version, position.offset];
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${checksum(payload, identity)}`;
}

/** The token's page, or a refusal carrying the view's first page (`firstPage`) when it is not this view's. */
export function decodeToken(text: string, identity: string, sortKeys: number, firstPage: () => [string, string][]): PageToken {
  const [payload = '', sum, extra] = text.split('.');
  if (extra !== undefined || sum !== checksum(payload, identity)) throw errors.pageTokenInvalid(firstPage());
  // The checksum is no secret: a token made by hand to pass it is checked as strictly as any text.
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw errors.pageTokenInvalid(firstPage());
  }
  const [version, at, nulls] = Array.isArray(body) ? (body as unknown[]) : [];
  if (!Number.isSafeInteger(version)) throw errors.pageTokenInvalid(firstPage());
  if ((body as unknown[]).length === 2 && Number.isSafeInteger(at) && (at as number) >= 0) {
    return { version: version as number, position: { kind: 'offset', offset: at as number } };
  }
  if (
    typeof at === 'string' &&
    /^-?\d{1,19}$/.test(at) &&
    typeof nulls === 'string' &&
    /^[01]*$/.test(nulls) &&
    nulls.length === sortKeys
  ) {
    return { version: version as number, position: { kind: 'keyset', rowid: at, nulls: [...nulls].map((n) => n === '1') } };
  }
  throw errors.pageTokenInvalid(firstPage());
}
