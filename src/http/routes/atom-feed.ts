import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import type { AtomFeed } from '../../formats/atom.js';
import type { Scraper } from '../../store/types.js';
import { publicOrigin } from '../public-origin.js';
import { decodePair } from '../query-string.js';
import { isPublicParam } from '../redact.js';

/**
 * Kept in the self link: parameters known to hold no secret (any other could be a key, under any
 * name), less a JSONP callback, which means nothing to a feed.
 */
const kept = (name: string) => name !== 'callback' && isPublicParam(name);

/**
 * What an Atom feed says about itself, with absolute URLs on the configured public address, else
 * on the address the client used. No URL holds the key.
 */
export function atomFeed(request: FastifyRequest, scraper: Scraper, sql: string, config: Config): AtomFeed {
  const base = publicOrigin(request, config);
  // The feed's links are built on it.
  if (base === undefined) throw errors.hostInvalid();
  const page = `${base}/${scraper.owner.name}/${scraper.name}`;
  // Named by the scraper's own spelling and the query alone, so the same feed keeps its id
  // however the client spelled the path or ordered its parameters.
  const id = `${page}/data.atom?${new URLSearchParams({ query: sql })}`;
  // Path and query as the client sent them, with only the parameters kept (in their own encoding);
  // URL only drops the host of an absolute-form request and escapes what a URL cannot hold.
  const sent = new URL(request.url, 'http://localhost');
  const keptPairs = sent.search.slice(1).split('&').filter((pair) => pair !== '' && kept(decodePair(pair)[0]));
  return {
    id,
    title: `${scraper.owner.name}/${scraper.name}`,
    subtitle: scraper.description,
    author: scraper.owner.name,
    updated: scraper.data.updatedAt,
    // A POST's query is in its body, so its URL is not the feed's: the GET that gives the same feed is.
    self: request.method === 'POST' ? id : `${base}${sent.pathname}${keptPairs.length > 0 ? `?${keptPairs.join('&')}` : ''}`,
    alternate: page,
  };
}
