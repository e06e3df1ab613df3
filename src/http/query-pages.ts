import type { FastifyRequest } from 'fastify';
import { runStatement } from '../browse/run.js';
import { decodeToken, encodeToken } from '../browse/page-token.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { QueryPool } from '../pool/pool.js';
import { namedPrefix, type NamedValues } from '../sql/named-params.js';
import { sliceOf } from '../sql/query-slice.js';
import type { Scraper } from '../store/types.js';
import { formatParamNames, versionParamName } from '../formats/index.js';
import { publicOrigin } from './public-origin.js';
import { maxQueryPageRows } from '../limits/query-page.js';

/**
 * @module Pages of any query on the data API (`page_size`, `next`): the query is run as
 * `select * from (<query>) limit <size> offset <offset>`, so a page costs what reading past its
 * offset costs; the `next` token holds the offset and the data version, with a checksum of itself,
 * the query, its `:named` values and the page size (browse/page-token.ts, as a table page's `_next`).
 */

/** The page a call asks for. */
export interface QueryPage {
  size: number;
  offset: number;
  /** The query's `:named` values: every page binds the same. */
  values: NamedValues | undefined;
}

/** What a token is bound to: the query, its values and the page size. */
const identityOf = (sql: string, values: NamedValues | undefined, size: number) => JSON.stringify(['query', sql, values ?? null, size]);

/**
 * The page a call asks for with `page_size` (and `next` after the first page), or undefined without
 * `page_size`. A size that is not 1 to maxQueryPageRows, or `next` without it, is a 400; a token changed
 * by hand or given for another query or size is a 400, one of an older data version a 409.
 */
export function queryPageOf(
  param: (name: string) => string | undefined,
  scraper: Scraper,
  sql: string,
  values: NamedValues | undefined,
): QueryPage | undefined {
  const sizeText = param('page_size');
  const next = param('next');
  if (sizeText === undefined) {
    if (next !== undefined) throw errors.pageTokenInvalid([]);
    return undefined;
  }
  const size = /^\d{1,6}$/.test(sizeText) ? Number(sizeText) : 0;
  if (size < 1 || size > maxQueryPageRows) throw errors.pageSizeInvalid(maxQueryPageRows);
  if (next === undefined) return { size, offset: 0, values };
  const token = decodeToken(next, identityOf(sql, values, size), 0, () => []);
  if (token.position.kind !== 'offset') throw errors.pageTokenInvalid([]);
  if (token.version !== scraper.data.version) throw errors.pageTokenStale([]);
  return { size, offset: token.position.offset, values };
}

/** The SQL of a page: the checked query, cut to the page. */
export function pagedSql(sql: string, page: QueryPage): string {
  return sliceOf(sql, page.size, page.offset);
}

/**
 * The `Link` header of a page followed by more rows: the next page's URL on the public address,
 * the call's parameters but the key (never in a link), its `:named` values among them, with `next` the new token. Undefined on the
 * last page. Whether rows follow is asked of the query in the key's lane before the page is sent.
 */
export async function nextPageLink(
  request: FastifyRequest,
  deps: { config: Config; pool: QueryPool },
  scraper: Scraper,
  sql: string,
  page: QueryPage,
  param: (name: string) => string | undefined,
  laneKey: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const offset = page.offset + page.size;
  const probe = { sql: sliceOf(sql, 1, offset, '1 as more'), params: page.values ?? [] };
  const rows = await runStatement(deps.pool, scraper, probe, ['more'], laneKey, { signal });
  if (!rows || rows.length === 0) return undefined;
  const token = encodeToken(
    { version: scraper.data.version, position: { kind: 'offset', offset } },
    identityOf(sql, page.values, page.size),
  );
  const base = publicOrigin(request, deps.config);
  if (base === undefined) throw errors.hostInvalid();
  const query = new URLSearchParams({ query: sql });
  for (const name of [versionParamName, ...formatParamNames]) {
    const value = name === 'next' ? token : param(name);
    if (value !== undefined) query.set(name, value);
  }
  for (const [name, value] of Object.entries(page.values ?? {})) query.set(`${namedPrefix}${name}`, value);
  const path = new URL(request.url, 'http://localhost').pathname;
  return `<${base}${path}?${query}>; rel="next"`;
}
