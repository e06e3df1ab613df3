/** Scrapers for the browsing engine's tests: a real data file, described as a publish describes it. */
import Database from 'better-sqlite3';
import { browseTable, parseView, type BrowsePage } from '../../src/browse/index.js';
import type { QueryPool } from '../../src/pool/pool.js';
import { describeTables } from '../../src/scrapers/describe-tables.js';
import type { Scraper, TableInfo } from '../../src/store/types.js';
import { makeDb, tempDir } from './fixture-db.js';

let nextId = 1;

/** A scraper whose data is the database `sql` builds; `db` reads the same file directly, as the oracle. */
export function browseScraper(sql: string, version = 1): { scraper: Scraper; db: Database.Database; table: (name: string) => TableInfo } {
  const file = makeDb(tempDir(), 'data.sqlite', sql);
  const db = new Database(file, { readonly: true });
  const tables = describeTables(db);
  const scraper: Scraper = {
    id: nextId++,
    owner: { id: 1, name: 'alice' },
    name: 'places',
    description: '',
    isPrivate: false,
    keep: { versions: null, days: null },
    data: { file, version, tables, sizeBytes: 0, updatedAt: new Date().toISOString() },
  };
  return { scraper, db, table: (name) => tables.find((t) => t.name === name)! };
}

/** The page of a view written as a query string. */
export function browse(pool: QueryPool, scraper: Scraper, table: TableInfo, query: string): Promise<BrowsePage> {
  return browseTable(pool, scraper, table, parseView(new URLSearchParams(query), table), 'tester');
}
