import { parse } from 'lossless-json';
import type { QueryPool } from '../pool/pool.js';
import type { Scraper, TableInfo } from '../store/types.js';
import { firstRowsSql } from '../views/client/api-request.js';

/** A value as the page shows it: numbers keep the exact text the json format wrote (64-bit integers, `1.0`). */
export type Cell = { kind: 'text' | 'number'; text: string } | { kind: 'null' };

export type TablePreview = { ok: true; rows: Cell[][] } | { ok: false; error: string };

/** Ten rows of a huge table (large blobs, long texts) are cut off here rather than held for a page. */
const maxPreviewBytes = 1024 * 1024;

class NumberText {
  constructor(readonly text: string) {}
}

function toCell(value: unknown): Cell {
  if (value === null) return { kind: 'null' };
  if (value instanceof NumberText) return { kind: 'number', text: value.text };
  return { kind: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) };
}

/**
 * The first rows of a table, run as the API would run `select * from "<table>" limit 10`: in a query
 * process of the pool (never on the server's main thread), under the same time limit, as json.
 * It is not a download. A failure (busy, time limit, too large) is shown on the page instead of rows.
 */
export async function previewTable(pool: QueryPool, scraper: Scraper, table: TableInfo): Promise<TablePreview> {
  const run = pool.run({ scraperId: scraper.id, file: scraper.data.file, sql: firstRowsSql(table.name), format: 'json' });
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of run as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxPreviewBytes) {
        run.destroy();
        return { ok: false, error: 'The first rows are too large to preview.' };
      }
      chunks.push(chunk);
    }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  const objects = parse(Buffer.concat(chunks).toString('utf8'), undefined, (text) => new NumberText(text)) as
    Record<string, unknown>[];
  // By the table's column order: object key order is not kept for names like "2".
  return { ok: true, rows: objects.map((row) => table.columns.map((c) => toCell(Object.hasOwn(row, c.name) ? row[c.name] : null))) };
}
