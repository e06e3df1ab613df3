import { namedPrefix } from '../sql/named-params.js';
import type { FormatCall } from './format.js';

/**
 * What an Atom feed says about itself, built from the call in the server (it knows the public
 * address and keeps the key out); the encoder only writes it.
 */
export interface AtomFeed {
  /** The feed's atom:id: an absolute IRI naming the scraper and the query, never holding a key. */
  id: string;
  /** `owner/scraper`. */
  title: string;
  /** The scraper's description; an empty one is left out. */
  subtitle: string;
  /** The owner's name. */
  author: string;
  /** RFC 3339: when the scraper's data last changed. Also the `updated` of an entry whose date cannot be read. */
  updated: string;
  /** The URL of this feed, without the key. */
  self: string;
  /** The scraper's page. */
  alternate: string;
}

/**
 * The feed's metadata, with absolute URLs on the public address. The self link drops a JSONP
 * callback, which means nothing to a feed.
 */
export function atomFeed(call: FormatCall): AtomFeed {
  const { scraper, sql } = call;
  const page = `${call.publicBase()}/${scraper.owner}/${scraper.name}`;
  // Named by the scraper's own spelling, the query and its values alone, so the same feed keeps its
  // id however the client spelled the path or ordered its parameters.
  const values = Object.entries(call.values).map(([name, value]) => [`${namedPrefix}${name}`, value]);
  const id = `${page}/data.atom?${new URLSearchParams([['query', sql], ...values])}`;
  return {
    id,
    title: `${scraper.owner}/${scraper.name}`,
    subtitle: scraper.description,
    author: scraper.owner,
    updated: scraper.updatedAt,
    // A POST's query is in its body, so its URL is not the feed's: the GET that gives the same feed is.
    self: call.publicUrl(['callback']) ?? id,
    alternate: page,
  };
}
