import type pg from 'pg';
import { storedDataPath } from '../data-paths.js';
import { holdsNul } from '../nul-text.js';
import { toScraper, type ScraperRow } from '../rows.js';
import { scraperCacheKey } from '../scraper-key.js';
import type { Scraper, ScraperStore } from '../types.js';
import { sql, type PgConnection } from './connection.js';
import { inTransaction } from './pool.js';

// Run at every request: prepared once per connection (named); the rest as they come.
const findScraperSql = { name: 'find-scraper', text: sql.findScraper };

const addScraperSql = `
  with added as (
    insert into scrapers (owner_id, name, description, private, data_file, data_version, tables, size_bytes, created_at, updated_at)
    values ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9) returning *)
  ${sql.scraperColumns} from added s join accounts a on a.id = s.owner_id`;

/** The PostgreSQL store's scrapers and their data versions. A look-up is cached as a key's is (accounts.ts). */
export function pgScrapers(db: PgConnection): ScraperStore {
  const { pool } = db;
  const scraper = (row: ScraperRow) => toScraper(row, db.dataDir);
  /** The scraper by id unless it was removed, its row locked until the transaction ends. */
  const lockLiveScraper = async (client: pg.PoolClient, scraperId: number): Promise<Scraper | undefined> => {
    const { rows } = await client.query<ScraperRow>(`${sql.liveScraper} for update of s`, [scraperId]);
    return rows[0] && scraper(rows[0]);
  };

  return {
    async addScraper(s) {
      const { rows } = await db.change(() =>
        pool.query<ScraperRow>(addScraperSql, [
          s.ownerId,
          s.name,
          s.description,
          s.isPrivate,
          storedDataPath(db.dataDir, s.data.file),
          JSON.stringify(s.data.tables),
          s.data.sizeBytes,
          new Date().toISOString(),
          s.data.updatedAt,
        ]),
      );
      return scraper(rows[0]!);
    },

    async findScraper(owner, name) {
      if (holdsNul(owner, name)) return undefined;
      return db.cachedLookup(db.lookups.scrapers, scraperCacheKey(owner, name), async () => {
        const { rows } = await pool.query<ScraperRow>({ ...findScraperSql, values: [owner, name] });
        return rows[0] && scraper(rows[0]);
      });
    },

    async replaceData(scraperId, data) {
      return db.change(() =>
        inTransaction(pool, async (client) => {
          const replaced = (await lockLiveScraper(client, scraperId))?.data;
          if (!replaced) return undefined;
          const file = storedDataPath(db.dataDir, data.file);
          await client.query(sql.replaceData, [file, JSON.stringify(data.tables), data.sizeBytes, data.updatedAt, scraperId]);
          return { replaced, current: { ...data, version: replaced.version + 1 } };
        }),
      );
    },

    async updateScraper(scraperId, changes) {
      return db.change(() =>
        inTransaction(pool, async (client) => {
          const current = await lockLiveScraper(client, scraperId);
          if (!current) return undefined;
          const description = changes.description ?? current.description;
          const isPrivate = changes.isPrivate ?? current.isPrivate;
          await client.query(sql.updateScraper, [description, isPrivate, scraperId]);
          return { ...current, description, isPrivate };
        }),
      );
    },

    async removeScraper(scraperId) {
      const { rowCount } = await db.change(() => pool.query(sql.removeScraper, [new Date().toISOString(), scraperId]));
      return (rowCount ?? 0) > 0;
    },

    async listScrapers(options) {
      if (holdsNul(options.owner, options.search)) return [];
      const { text, values } = sql.listScrapers(options);
      const { rows } = await pool.query<ScraperRow & { downloads: number }>(text, values);
      return rows.map((row) => ({ scraper: scraper(row), downloads: row.downloads }));
    },
  };
}
