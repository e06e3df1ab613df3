import type { FormatCall } from '../formats/format.js';
import { findFormat, formatNames, type RowFormat } from '../formats/index.js';
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
  jsonp: 'The json body wrapped in a call of your function, for a `<script>` tag.',
  atom: 'An Atom 1.0 feed, one entry per row. The query must return `title`, `content`, `link` and `date` columns (build them with `as` and `||`).',
  sqlite: 'The whole SQLite database file, with Content-Length; `query` is not needed. Sent as an attachment.',
};

/**
 * A call of the examples' own, for the options of the sample bodies: `params` are the format's
 * (a JSONP callback); a feed's URLs must be absolute, so without a readable Host (base '') a
 * placeholder host stands in.
 */
function sampleCall(base: string, scraper: string, params: Record<string, string>): FormatCall {
  const [owner = '', name = ''] = scraper.split('/');
  return {
    params, sql: 'select title, content, link, date from data', scraper: { owner, name, description: '', updatedAt: '2026-11-03T09:00:00.000Z' },
    publicBase: () => base || 'https://siphon.example',
    publicUrl: () => undefined,
  };
}

function sampleBody(format: RowFormat, call: FormatCall): string {
  const encoder = format.encoder(sampleColumns, format.options(call));
  return encoder.head() + encoder.rows(sampleRows) + encoder.tail();
}

/** Every format the service has, in its own order, each with a real sample body; `base` is '' when unknown. */
export function formatExamples(base: string, scraper: string): FormatExample[] {
  const examples: FormatExample[] = [];
  for (const name of formatNames) {
    const format = findFormat(name)!;
    if (format.kind === 'file') {
      examples.push({ id: name, name, contentType: format.contentType, about: about[name] ?? '', body: `(the ${name} database file, in binary)` });
      continue;
    }
    examples.push({
      id: name, name, contentType: format.contentType, about: about[name] ?? '', body: sampleBody(format, sampleCall(base, scraper, {})),
    });
    if (format.script) {
      const { param, name: scriptName, contentType } = format.script;
      examples.push({
        id: scriptName, name: `${name} + ${param} (${scriptName.toUpperCase()})`, contentType, about: about[scriptName] ?? '',
        body: sampleBody(format, sampleCall(base, scraper, { [param]: 'showRows' })),
      });
    }
  }
  return examples;
}
