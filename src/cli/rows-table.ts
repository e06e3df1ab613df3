import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** A field of a CSV record: null where the field was empty and unquoted (Siphon's csv writes NULL so). */
type Field = string | null;

/**
 * RFC 4180 records from CSV text that comes in pieces, one record at a time as each completes: a
 * quoted field may hold commas, quotes ("") and line breaks, and may be split across pieces.
 */
export class CsvRecords {
  private field = '';
  private quoted = false;
  private inQuotes = false;
  /** The last character was a quote inside a quoted field: either its end or the first of "". */
  private quoteSeen = false;
  private record: Field[] = [];

  /** The records `text` completes. */
  push(text: string): Field[][] {
    const done: Field[][] = [];
    for (const c of text) {
      if (this.inQuotes) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (c === '"') {
            this.field += '"';
            continue;
          }
          this.inQuotes = false;
        } else if (c === '"') {
          this.quoteSeen = true;
          continue;
        } else {
          this.field += c;
          continue;
        }
      }
      if (c === '"' && this.field === '' && !this.quoted) {
        this.quoted = this.inQuotes = true;
      } else if (c === ',') {
        this.endField();
      } else if (c === '\n') {
        this.endField();
        done.push(this.record);
        this.record = [];
      } else if (c !== '\r') {
        this.field += c;
      }
    }
    return done;
  }

  private endField(): void {
    this.record.push(this.field === '' && !this.quoted ? null : this.field);
    this.field = '';
    this.quoted = false;
  }
}

/** The widest a column is drawn; longer values are cut, with an ellipsis. */
const maxWidth = 40;
/** Rows read before the columns' widths are fixed: the rest are drawn as they come, in those widths. */
const sizingRows = 100;

/** A value in one line of at most `width` characters. */
function cell(value: Field, width: number): string {
  const flat = (value ?? '').replace(/[\r\n\t]/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat.padEnd(width);
}

/**
 * Draws the CSV rows of `body` as a table for a person at a terminal: a header, a rule, the rows
 * (the first 100 sized before any is drawn, the rest streamed in the same widths) and how many rows
 * there were. Resolves once the body has ended.
 */
export async function drawTable(body: Readable, write: (text: string) => void): Promise<void> {
  const csv = new CsvRecords();
  const decoder = new StringDecoder('utf8');
  let header: Field[] | undefined;
  let widths: number[] | undefined;
  let rows = 0;
  const held: Field[][] = [];
  const line = (record: Field[]) => `${widths!.map((w, i) => cell(record[i] ?? null, w)).join('  ')}`.trimEnd() + '\n';
  const fixWidths = () => {
    widths = header!.map((name, i) => Math.min(maxWidth, Math.max(1, (name ?? '').length, ...held.map((r) => (r[i] ?? '').length))));
    write(line(header!) + widths.map((w) => '-'.repeat(w)).join('  ') + '\n' + held.map(line).join(''));
    held.length = 0;
  };
  const take = (records: Field[][]) => {
    for (const record of records) {
      if (!header) header = record;
      else {
        rows++;
        if (widths) write(line(record));
        else if (held.push(record) === sizingRows) fixWidths();
      }
    }
  };
  for await (const chunk of body) take(csv.push(decoder.write(chunk as Buffer)));
  take(csv.push(decoder.end()));
  if (!header) return;
  if (!widths) fixWidths();
  write(`(${rows} ${rows === 1 ? 'row' : 'rows'})\n`);
}
