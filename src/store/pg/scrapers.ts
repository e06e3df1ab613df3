import type pg from 'pg';
import { storedDataPath } from '../data-paths.js';
import { holdsNul } from '../nul-text.js';
import { toRetiredVersion, toScraper, toVersion, versionValues, type ScraperRow, type VersionRow } from '../rows.js';
import { scraperCacheKey } from '../scraper-key.js';
import type { DataVersion, Scraper, ScraperStore } from '../types.js';
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
  const version = (row: VersionRow) => toVersion(row, db.dataDir);
  /** Keeps `data` as the scraper's version `id`. */
  const addVersion = (client: pg.PoolClient, scraperId: number, id: number, data: Omit<DataVersion, 'version'>) =>
    client.query(sql.addVersion, versionValues(scraperId, id, data, db.dataDir));

  return {
    async addScraper(s) {
      const { rows } = await db.change(() =>
        inTransaction(pool, async (client) => {
          const added = await client.query<ScraperRow>(addScraperSql, [
            s.ownerId,
            s.name,
            s.description,
            s.isPrivate,
            storedDataPath(db.dataDir, s.data.file),
            JSON.stringify(s.data.tables),
            s.data.sizeBytes,
            new Date().toISOString(),
            s.data.updatedAt,
          ]);
          await addVersion(client, added.rows[0]!.id, 1, s.data);
          return added;
        }),
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
          await addVersion(client, scraperId, replaced.version + 1, data);
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
          const keep = { ...current.keep, ...changes.keep };
          await client.query(sql.updateScraper, [description, isPrivate, keep.versions, keep.days, scraperId]);
          return { ...current, description, isPrivate, keep };
        }),
      );
    },

    async listVersions(scraperId) {
      return (await pool.query<VersionRow>(sql.listVersions, [scraperId])).rows.map(version);
    },

    async findVersion(scraperId, id) {
      const { rows } = await pool.query<VersionRow>(sql.findVersion, [scraperId, id]);
      return rows[0] && version(rows[0]);
    },

    async retireVersions(scraperId, keep, now) {
      return inTransaction(pool, async (client) => {
        const current = (await lockLiveScraper(client, scraperId))?.data.version;
        if (current === undefined) return 0;
        const before = new Date(Date.parse(now) - keep.days * 86_400_000).toISOString();
        const { rowCount } = await client.query(sql.retireVersions, [scraperId, current, keep.versions, before, keep.days > 0, now]);
        return rowCount ?? 0;
      });
    },

    async retiredVersions(scraperId) {
      const { rows } = await pool.query<VersionRow & { retired_at: string }>(sql.retiredVersions, [scraperId]);
      return rows.map((row) => toRetiredVersion(row, db.dataDir));
    },

    async forgetVersion(scraperId, id) {
      await pool.query(sql.forgetVersion, [scraperId, id]);
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
