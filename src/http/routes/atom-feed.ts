import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { errors } from '../../errors.js';
import type { AtomFeed } from '../../formats/atom.js';
import type { Scraper } from '../../store/types.js';
import { publicOrigin } from '../public-origin.js';

/** Left out of the self link: the key is a secret, and a JSONP callback means nothing to a feed. */
const paramsLeftOut = ['key', 'callback'];

/**
 * What an Atom feed says about itself, with absolute URLs on the configured public address, else
 * on the address the client used. No URL holds the key.
 */
export function atomFeed(request: FastifyRequest, scraper: Scraper, sql: string, config: Config): AtomFeed {
  const base = publicOrigin(request, config);
  if (base === undefined) {
    throw errors.badRequest(400, 'The Host header is not a valid host name, so the feed\'s links cannot be built.');
  }
  const page = `${base}/${scraper.owner.name}/${scraper.name}`;
  // Path and query as the client sent them, less those parameters (the others keep their encoding);
  // URL only drops the host of an absolute-form request and escapes what a URL cannot hold.
  const sent = new URL(request.url, 'http://localhost');
  const kept = sent.search.slice(1).split('&').filter((pair) => pair !== '' && !paramsLeftOut.includes(paramName(pair)));
  return {
    // Named by the scraper's own spelling and the query alone, so the same feed keeps its id
    // however the client spelled the path or ordered its parameters.
    id: `${page}/data.atom?${new URLSearchParams({ query: sql })}`,
    title: `${scraper.owner.name}/${scraper.name}`,
    subtitle: scraper.description,
    author: scraper.owner.name,
    updated: scraper.data.updatedAt,
    self: `${base}${sent.pathname}${kept.length > 0 ? `?${kept.join('&')}` : ''}`,
    alternate: page,
  };
}

/** The decoded name of one `name=value` pair of a query string. */
function paramName(pair: string): string {
  return new URLSearchParams(pair).keys().next().value ?? '';
}
