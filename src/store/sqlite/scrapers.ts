import { storedDataPath } from '../data-paths.js';
import { holdsNul } from '../nul-text.js';
import { toRetiredVersion, toScraper, toVersion, versionValues, type ScraperRow, type VersionRow } from '../rows.js';
import { scraperCacheKey } from '../scraper-key.js';
import type { DataVersion, Scraper, ScraperStore } from '../types.js';
import { sql, type SqliteConnection } from './connection.js';

/** The SQLite store's scrapers and their data versions. A lookup is cached as a key's is (accounts.ts). */
export function sqliteScrapers(db: SqliteConnection): ScraperStore {
  const scraper = (row: ScraperRow) => toScraper(row, db.dataDir);
  /** The scraper by id, unless it was removed. */
  const liveScraper = (scraperId: number): Scraper | undefined => {
    const row = db.get<ScraperRow>(sql.liveScraper, [scraperId]);
    return row && scraper(row);
  };
  const version = (row: VersionRow) => toVersion(row, db.dataDir);
  /** Keeps `data` as the scraper's version `id`. */
  const addVersion = (scraperId: number, id: number, data: Omit<DataVersion, 'version'>) =>
    db.run(sql.addVersion, versionValues(scraperId, id, data, db.dataDir));

  return {
    async addScraper(s) {
      const now = new Date().toISOString();
      const info = db.change(() =>
        db.transaction(() => {
          const added = db.run(
            `
          insert into scrapers (owner_id, name, description, private, data_file, data_version, tables_json, size_bytes, created_at, updated_at)
          values ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9)`,
            [
              s.ownerId,
              s.name,
              s.description,
              s.isPrivate ? 1 : 0,
              storedDataPath(db.dataDir, s.data.file),
              JSON.stringify(s.data.tables),
              s.data.sizeBytes,
              now,
              s.data.updatedAt,
            ],
          );
          addVersion(Number(added.lastInsertRowid), 1, s.data);
          return added;
        }),
      );
      return liveScraper(Number(info.lastInsertRowid))!;
    },

    async findScraper(owner, name) {
      db.dropStaleLookups();
      const cacheKey = scraperCacheKey(owner, name);
      const cached = db.lookups.scrapers.get(cacheKey);
      if (cached) return cached;
      const row = db.get<ScraperRow>(sql.findScraper, [owner, name]);
      if (!row) return undefined;
      const found = scraper(row);
      db.lookups.scrapers.set(cacheKey, found);
      return found;
    },

    async replaceData(scraperId, data) {
      return db.change(() =>
        db.transaction(() => {
          const replaced = liveScraper(scraperId)?.data;
          if (!replaced) return undefined;
          db.run(sql.replaceData, [
            storedDataPath(db.dataDir, data.file),
            JSON.stringify(data.tables),
            data.sizeBytes,
            data.updatedAt,
            scraperId,
          ]);
          addVersion(scraperId, replaced.version + 1, data);
          return { replaced, current: { ...data, version: replaced.version + 1 } };
        }),
      );
    },

    async updateScraper(scraperId, changes) {
      return db.change(() =>
        db.transaction(() => {
          const current = liveScraper(scraperId);
          if (!current) return undefined;
          const description = changes.description ?? current.description;
          const isPrivate = changes.isPrivate ?? current.isPrivate;
          const keep = { ...current.keep, ...changes.keep };
          db.run(sql.updateScraper, [description, isPrivate ? 1 : 0, keep.versions, keep.days, scraperId]);
          return { ...current, description, isPrivate, keep };
        }),
      );
    },

    async listVersions(scraperId) {
      return db.all<VersionRow>(sql.listVersions, [scraperId]).map(version);
    },

    async findVersion(scraperId, id) {
      const row = db.get<VersionRow>(sql.findVersion, [scraperId, id]);
      return row && version(row);
    },

    async retireVersions(scraperId, keep, now) {
      return db.transaction(() => {
        const current = liveScraper(scraperId)?.data.version;
        if (current === undefined) return 0;
        const before = new Date(Date.parse(now) - keep.days * 86_400_000).toISOString();
        return db.run(sql.retireVersions, [scraperId, current, keep.versions, before, keep.days > 0 ? 1 : 0, now]).changes;
      });
    },

    async retiredVersions(scraperId) {
      return db.all<VersionRow & { retired_at: string }>(sql.retiredVersions, [scraperId]).map((row) => toRetiredVersion(row, db.dataDir));
    },

    async forgetVersion(scraperId, id) {
      db.run(sql.forgetVersion, [scraperId, id]);
    },

    async removeScraper(scraperId) {
      return db.change(() => db.run(sql.removeScraper, [new Date().toISOString(), scraperId])).changes > 0;
    },

    async listScrapers(options) {
      if (holdsNul(options.owner, options.search)) return [];
      const { text, values } = sql.listScrapers(options);
      return db.all<ScraperRow & { downloads: number }>(text, values).map((row) => ({ scraper: scraper(row), downloads: row.downloads }));
    },
  };
}
