import { findFormat, formatNames, jsonpContentType } from '../formats/index.js';
import type { SqliteValue } from '../formats/values.js';

export interface FormatExample {
  /** For the page's anchors: the format's name, or `jsonp`. */
  id: string;
  name: string;
  contentType: string;
  /** What the body holds. */
  about: string;
  /** The body for the sample rows, written by the format's own encoder, so the page shows real output. */
  body: string;
}

const sampleColumns = ['title', 'content', 'link', 'date'];
const sampleRows: SqliteValue[][] = [
  ['Two storey dwelling', '12 Lurline Street, Katoomba', 'https://example.org/da/101', '2026-11-02'],
  ['Deck, pergola & carport', '3 Govett Street, Blackheath', 'https://example.org/da/102', '2026-11-03'],
];

const about: Record<string, string> = {
  json: 'A bare JSON array of row objects, keys in the query\'s column order. Integers stay exact at any size; `<`, `>` and `&` are \\u-escaped.',
  csv: 'RFC 4180: a header row (also when there are no rows), LF line ends (as on morph.io), fields quoted when needed. Sent as an attachment.',
  ndjson: 'One JSON row object per line, each ending in a newline: easy to stream.',
  atom: 'An Atom 1.0 feed, one entry per row. The query must return `title`, `content`, `link` and `date` columns (build them with `as` and `||`).',
  sqlite: 'The whole SQLite database file, with Content-Length; `query` is not needed. Sent as an attachment.',
};

/** Every format the service has, in its own order, each with a real sample body; `base` is '' when unknown. */
export function formatExamples(base: string, scraper: string): FormatExample[] {
  const examples: FormatExample[] = [];
  for (const name of formatNames) {
    const format = findFormat(name)!;
    if (format.kind === 'file') {
      examples.push({ id: name, name, contentType: format.contentType, about: about[name] ?? '', body: `(the ${name} database file, in binary)` });
      continue;
    }
    // A feed's URLs must be absolute: without a readable Host (base ''), a placeholder host stands in.
    const page = `${base || 'https://siphon.example'}/${scraper}`;
    const encoder = format.encoder({
      columns: sampleColumns,
      feed: {
        id: `${page}/data.atom?query=…`, title: scraper, subtitle: '', author: scraper.split('/')[0]!,
        updated: '2026-11-03T09:00:00.000Z', self: `${page}/data.atom?query=…`, alternate: page,
      },
    });
    examples.push({
      id: name, name, contentType: format.contentType, about: about[name] ?? '',
      body: encoder.head() + encoder.rows(sampleRows) + encoder.tail(),
    });
    if (name === 'json') {
      const jsonp = format.encoder({ columns: sampleColumns, callback: 'showRows' });
      examples.push({
        id: 'jsonp', name: 'json + callback (JSONP)', contentType: jsonpContentType,
        about: 'The json body wrapped in a call of your function, for a `<script>` tag.',
        body: jsonp.head() + jsonp.rows(sampleRows) + jsonp.tail(),
      });
    }
  }
  return examples;
}
