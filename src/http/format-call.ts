import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { FormatCall } from '../formats/format.js';
import type { Scraper } from '../store/types.js';
import { publicOrigin } from './public-origin.js';
import { pairName } from '../utils/query-string.js';
import { isPublicParam } from '../log/redact.js';

/** What a format may read of a data call: its checked parameters and SQL, the scraper, and keyless URLs. */
export function formatCall(
  request: FastifyRequest,
  config: Config,
  scraper: Scraper,
  sql: string,
  params: Record<string, string>,
  values: Readonly<Record<string, string>> = {},
): FormatCall {
  const publicBase = () => {
    const base = publicOrigin(request, config);
    // Links are built on it.
    if (base === undefined) throw errors.hostInvalid();
    return base;
  };
  return {
    params,
    sql,
    values,
    scraper: { owner: scraper.owner.name, name: scraper.name, description: scraper.description, updatedAt: scraper.data.updatedAt },
    publicBase,
    publicUrl(drop) {
      if (request.method === 'POST') return undefined;
      // Path and query as the client sent them, with only the parameters known to hold no secret
      // (any other could be a key, under any name), in their own encoding; URL only drops the host
      // of an absolute-form request and escapes what a URL cannot hold.
      const sent = new URL(request.url, 'http://localhost');
      const kept = sent.search
        .slice(1)
        .split('&')
        .filter((pair) => {
          if (pair === '') return false;
          const name = pairName(pair);
          return isPublicParam(name) && !drop.includes(name);
        });
      return `${publicBase()}${sent.pathname}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
    },
  };
}
