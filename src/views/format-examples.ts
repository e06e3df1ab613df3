import type { FormatCall } from '../formats/format.js';
import { findFormat, formatNames, type RowFormat } from '../formats/index.js';
import type { SqliteValue } from '../formats/values.js';

export interface FormatExample {
  /** The format's name, or `jsonp` for json with a callback. */
  id: string;
  /** How docs/api.md names it (Markdown). */
  name: string;
  contentType: string;
  /** The body for the sample rows, written by the format's own encoder, so the docs show real output; none for a file. */
  body?: string;
}

const sampleColumns = ['title', 'content', 'link', 'date'];
const sampleRows: SqliteValue[][] = [
  ['Two storey dwelling', '12 Lurline Street, Katoomba', 'https://example.org/da/101', '2026-11-02'],
  ['Deck, pergola & carport', '3 Govett Street, Blackheath', 'https://example.org/da/102', '2026-11-03'],
];

/**
 * A call of the examples' own, for the options of the sample bodies: `params` are the format's
 * (a JSONP callback). The same on every server, so docs/api.md can hold them: a feed's absolute
 * URLs use a placeholder host.
 */
function sampleCall(params: Record<string, string>): FormatCall {
  return {
    params,
    sql: 'select title, content, link, date from data',
    values: {},
    scraper: { owner: 'demo', name: 'planning-applications', description: '', updatedAt: '2026-11-03T09:00:00.000Z' },
    publicBase: () => 'https://siphon.example',
    publicUrl: () => undefined,
  };
}

function sampleBody(format: RowFormat, call: FormatCall): string {
  const encoder = format.encoder(sampleColumns, format.options(call));
  return encoder.head() + encoder.rows(sampleRows) + encoder.tail();
}

/** Every format the service has, in its own order, each with a real sample body. */
export function formatExamples(): FormatExample[] {
  const examples: FormatExample[] = [];
  for (const name of formatNames) {
    const format = findFormat(name)!;
    if (format.kind === 'file') {
      examples.push({ id: name, name: `\`${name}\``, contentType: format.contentType });
      continue;
    }
    examples.push({ id: name, name: `\`${name}\``, contentType: format.contentType, body: sampleBody(format, sampleCall({})) });
    if (format.script) {
      const { param, name: scriptName, contentType } = format.script;
      examples.push({
        id: scriptName,
        name: `\`${name}\` + \`${param}\` (${scriptName.toUpperCase()})`,
        contentType,
        body: sampleBody(format, sampleCall({ [param]: 'showRows' })),
      });
    }
  }
  return examples;
}
