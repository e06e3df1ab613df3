import { errors } from '../errors.js';
import { rowFormatNames, type Format } from '../formats/index.js';
import { findSavedQuery } from '../scrapers/saved-queries.js';
import { namedParamNames, namedPrefix } from '../sql/named-params.js';
import type { SavedQueryStore } from '../store/types.js';
import type { Params } from '../utils/query-string.js';
import type { ApiCall } from './api-call.js';
import { singleParam } from './routes/params.js';

/** The SQL a data call runs (null for a whole file) and the parameters its `:named` values are read from. */
export interface CallQuery {
  sql: string | null;
  given: Params;
}

/** The data API's own: the `query` parameter, its values spelt `:name=value`. */
export function requestQuery(params: Params, format: Format | undefined): CallQuery {
  return { sql: format?.kind === 'file' ? null : (singleParam(params.query) ?? null), given: params };
}

/**
 * A saved query's (`/<owner>/<scraper>/queries/<name>.<format>`): its SQL, whatever `query` says,
 * its values given by bare name (`?town=Leura`; other parameters are ignored, as they cannot be
 * told from the URL's own) or spelt `:town=Leura` as on the data API (its pages' `Link`s are). A
 * private one, or one that does not exist, is a 404 to every key but its owner's; a file format is a 404.
 */
export async function savedQuery(
  store: SavedQueryStore,
  call: ApiCall,
  name: string,
  params: Params,
  format: Format | undefined,
): Promise<CallQuery> {
  const { scraper } = call;
  const saved = await findSavedQuery(store, scraper.id, name);
  if (!saved || (saved.isPrivate && call.key.account.id !== scraper.owner.id)) {
    throw errors.savedQueryNotFound(`${scraper.owner.name}/${scraper.name}`, name);
  }
  if (format?.kind === 'file') throw errors.formatUnknown(rowFormatNames);
  const given: Params = Object.create(null) as Params;
  for (const [param, value] of Object.entries(params)) if (param.startsWith(namedPrefix)) given[param] = value;
  for (const param of namedParamNames(saved.sql)) if (params[param] !== undefined) given[`${namedPrefix}${param}`] = params[param];
  return { sql: saved.sql, given };
}
