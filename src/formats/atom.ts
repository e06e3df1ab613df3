import { createHash } from 'node:crypto';
import type { AtomFeed } from './atom-feed.js';
import type { Encoder } from './encoder.js';
import { feedDate } from './feed-date.js';
import { jsonValue, textValue, type SqliteValue } from './values.js';
import { xmlAttribute, xmlText } from './xml.js';

/** The columns a query must return to be turned into an Atom feed (the spec's rule 3). */
export const atomColumns: readonly string[] = ['title', 'content', 'link', 'date'];

/**
 * The date part of entry `tag:` URIs (RFC 4151): the year Siphon began minting them. It is fixed,
 * not the day of any request or publish, so an entry keeps its id for ever.
 */
const tagDate = '2026';

/**
 * An Atom 1.0 feed (RFC 4287), one entry per row, written by hand: its shape is fixed, every value
 * goes through one escape function (xml.ts), and entries stream out batch by batch like the rows of
 * the other formats, which a document builder holding the whole tree would not do.
 *
 * Per entry: `title` and `content` are plain text (`type="text"`: markup in the data is shown,
 * never run); `link` becomes the entry's alternate link only when it is an absolute http(s) URL;
 * `updated` is read from `date` (feed-date.ts), or else is the feed's `updated`.
 */
export function atomEncoder(columns: readonly string[], feed: AtomFeed): Encoder {
  // The query process checked that each is there (atomColumns), before the first byte.
  const [title, content, link, date] = atomColumns.map((name) => columns.indexOf(name)) as [number, number, number, number];
  const entryId = entryIds(feed);
  const text = (v: SqliteValue) => xmlText(textValue(v) ?? '');
  const entry = (row: SqliteValue[]) => {
    const href = absoluteLink(row[link]);
    const updated = feedDate(row[date]) ?? feed.updated;
    return (
      `<entry>\n<id>${xmlText(entryId(row, href))}</id>\n<title>${text(row[title])}</title>\n` +
      `<updated>${xmlText(updated)}</updated>\n` +
      (href === undefined ? '' : `<link rel="alternate" href="${xmlAttribute(href)}"/>\n`) +
      `<content type="text">${text(row[content])}</content>\n</entry>\n`
    );
  };
  return {
    head: () =>
      '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n' +
      `<id>${xmlText(feed.id)}</id>\n<title>${xmlText(feed.title)}</title>\n` +
      (feed.subtitle === '' ? '' : `<subtitle>${xmlText(feed.subtitle)}</subtitle>\n`) +
      `<updated>${xmlText(feed.updated)}</updated>\n<author><name>${xmlText(feed.author)}</name></author>\n` +
      `<link rel="self" type="application/atom+xml" href="${xmlAttribute(feed.self)}"/>\n` +
      `<link rel="alternate" href="${xmlAttribute(feed.alternate)}"/>\n`,
    rows(batch) {
      let s = '';
      for (const row of batch) s += entry(row);
      return s;
    },
    tail: () => '</feed>\n',
  };
}

/**
 * The link as a normalised absolute http(s) URL, or undefined. A relative link cannot be resolved:
 * its base is the scraped site, which Siphon does not know (resolving it against Siphon would point
 * readers at the wrong host); `javascript:`, `data:` and the like must never become a link.
 */
function absoluteLink(value: SqliteValue): string | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/**
 * Entry ids, the same at every run of the same query on the same data and unique within the feed:
 * the link when the entry has one not used by an earlier entry; otherwise a tag: URI naming the
 * scraper and a hash of the row's values, with the occurrence number added from the second
 * identical row on (`…/<hash>/2`).
 */
function entryIds(feed: AtomFeed): (row: SqliteValue[], link: string | undefined) => string {
  const page = new URL(feed.alternate);
  // An IPv6 literal's brackets and colons have no place in a tag's authority.
  const authority = page.hostname.replace(/^\[|\]$/g, '').replaceAll(':', '-');
  const prefix = `tag:${authority},${tagDate}:${page.pathname.replace(/^\/+/, '')}/`;
  const linksUsed = new Set<string>();
  const occurrences = new Map<string, number>();
  return (row, link) => {
    if (link !== undefined && !linksUsed.has(link)) {
      linksUsed.add(link);
      return link;
    }
    const digest = createHash('sha256').update(rowText(row)).digest('hex').slice(0, 32);
    const n = (occurrences.get(digest) ?? 0) + 1;
    occurrences.set(digest, n);
    return n === 1 ? `${prefix}${digest}` : `${prefix}${digest}/${n}`;
  };
}

/** A row's values as one unambiguous text: JSON values, BLOBs as hex (so a BLOB never equals a TEXT). */
function rowText(row: SqliteValue[]): string {
  return row.map((v) => (Buffer.isBuffer(v) ? `x'${v.toString('hex')}'` : jsonValue(v))).join(',');
}
