import type { ListScrapersOptions } from './records.js';

/**
 * The SQL both engines run, written once. Parameters are `$1`, `$2`…: PostgreSQL's own, and names
 * SQLite binds (src/store/sqlite/connection.ts). What the engines spell apart is their dialect:
 * how names match (types.ts: A–Z folded, nothing else) and the columns SQLite keeps as JSON text.
 */
export interface Dialect {
  /** `column` holds the name in `param`, as names match. */
  nameEquals(column: string, param: string): string;
  /** Orders by the name in `column` as names match, then as written. */
  nameOrder(column: string): string;
  /** `column` holds the text of the LIKE pattern in `param`, A–Z matching a–z. */
  textLike(column: string, param: string): string;
  /** What LIMIT takes for no limit at all. */
  noLimit: number | null;
  /** A key's web origins, and a data version's tables. */
  originsColumn: string;
  tablesColumn: string;
}

/** A search text as a LIKE pattern that finds it anywhere, its wildcards matched as plain characters (`escape '\\'`). */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The columns of a ScraperRow (src/store/rows.ts), of `s` joined with its owner `a`. */
const scraperColumns = (d: Dialect) => `
  select s.id, s.owner_id, a.name as owner_name, s.name, s.description, s.private,
         s.data_file, s.data_version, s.${d.tablesColumn} as tables, s.size_bytes, s.updated_at, s.keep_versions, s.keep_days`;

/** The columns of a VersionRow (src/store/rows.ts). */
const versionColumns = (d: Dialect) => `select version, data_file, ${d.tablesColumn} as tables, size_bytes, published_at`;

/** The columns of a SavedQueryRow (src/store/rows.ts). */
const savedQueryColumns = 'scraper_id, name, title, description, sql, private, updated_at';

export function statements(d: Dialect) {
  const scraperSelect = `${scraperColumns(d)} from scrapers s join accounts a on a.id = s.owner_id`;
  return {
    scraperColumns: scraperColumns(d),
    scraperSelect,
    liveScraper: `${scraperSelect} where s.id = $1 and s.removed_at is null`,
    findScraper: `${scraperSelect} where ${d.nameEquals('a.name', '$1')} and ${d.nameEquals('s.name', '$2')} and s.removed_at is null`,
    updateScraper: 'update scrapers set description = $1, private = $2, keep_versions = $3, keep_days = $4 where id = $5',
    replaceData: `
      update scrapers set data_file = $1, data_version = data_version + 1, ${d.tablesColumn} = $2, size_bytes = $3, updated_at = $4
      where id = $5`,
    addVersion: `
      insert into data_versions (scraper_id, version, data_file, ${d.tablesColumn}, size_bytes, published_at) values ($1, $2, $3, $4, $5, $6)`,
    listVersions: `${versionColumns(d)} from data_versions where scraper_id = $1 and retired_at is null order by version desc`,
    findVersion: `${versionColumns(d)} from data_versions where scraper_id = $1 and version = $2 and retired_at is null`,
    /**
     * Retires the kept versions but the current one ($2) that are not among the last $3 publishes,
     * or, when $5 is true, were published before $4.
     */
    retireVersions: `
      update data_versions set retired_at = $6
      where scraper_id = $1 and retired_at is null and version < $2 and (version <= $2 - $3 or ($5 and published_at < $4))`,
    retiredVersions: `${versionColumns(d)}, retired_at from data_versions where scraper_id = $1 and retired_at is not null order by version`,
    forgetVersion: 'delete from data_versions where scraper_id = $1 and version = $2',
    removeScraper: 'update scrapers set removed_at = $1 where id = $2 and removed_at is null',
    /** The query of ScraperStore.listScrapers: rows of a ScraperRow and its `downloads`. */
    listScrapers(options: ListScrapersOptions): { text: string; values: unknown[] } {
      const where = ['s.removed_at is null'];
      const values: unknown[] = [];
      const param = (value: unknown) => `$${values.push(value)}`;
      if (!options.includePrivate) where.push('not s.private');
      if (options.owner !== undefined) where.push(d.nameEquals('a.name', param(options.owner)));
      if (options.search) {
        const pattern = param(containsPattern(options.search));
        where.push(`(${['a.name', 's.name', 's.description'].map((column) => d.textLike(column, pattern)).join(' or ')})`);
      }
      const text = `
        select * from (
          select scraper.*, (select cast(coalesce(sum(t.count), 0) as bigint) from download_totals t where t.scraper_id = scraper.id) as downloads
          from (${scraperSelect} where ${where.join(' and ')}) scraper) listed
        order by downloads desc, updated_at desc, ${d.nameOrder('owner_name')}, ${d.nameOrder('name')} limit ${param(options.limit ?? d.noLimit)}`;
      return { text, values };
    },

    // The unique name decides between two sign-ups of one name at the same moment.
    createAccount: `
      insert into accounts (name, created_at, password_hash, email) values ($1, $2, $3, $4) on conflict do nothing returning id`,
    findAccount: `select id, name from accounts where ${d.nameEquals('name', '$1')}`,
    findLogin: `select id, name, password_hash from accounts where ${d.nameEquals('name', '$1')}`,
    setPasswordHash: 'update accounts set password_hash = $1 where id = $2',
    listAccounts: `
      select a.name, a.created_at,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is null) as keys,
             (select count(*) from api_keys k where k.account_id = a.id and k.revoked_at is not null) as revoked_keys,
             (select count(*) from scrapers s where s.owner_id = a.id and s.removed_at is null) as scrapers
      from accounts a order by ${d.nameOrder('a.name')}`,
    addKey: `
      insert into api_keys (account_id, hash, prefix, label, read_only, ${d.originsColumn}, created_at) values ($1, $2, $3, $4, $5, $6, $7)`,
    listKeys: `
      select id, prefix, label, read_only, ${d.originsColumn} as origins, created_at, last_used_at, revoked_at
      from api_keys where account_id = $1 order by id`,
    findKey: `
      select k.id, k.read_only, k.revoked_at, k.${d.originsColumn} as origins, a.id as account_id, a.name as account_name
      from api_keys k join accounts a on a.id = k.account_id where k.hash = $1`,
    revokeKey: 'update api_keys set revoked_at = coalesce(revoked_at, $1) where hash = $2',
    revokeAccountKey: 'update api_keys set revoked_at = coalesce(revoked_at, $1) where id = $2 and account_id = $3',
    // A key's last use is not part of its lookup: recording one drops no cached lookup.
    keyUse: 'update api_keys set last_used_at = $1 where id = $2 and (last_used_at is null or last_used_at < $1)',

    saveSession: `
      insert into sessions (id_hash, account_id, created_at, expires_at) values ($1, $2, $3, $4)
      on conflict (id_hash) do update set expires_at = excluded.expires_at`,
    findSession: `
      select a.id, a.name, s.created_at, s.expires_at from sessions s join accounts a on a.id = s.account_id
      where s.id_hash = $1 and s.expires_at > $2`,
    removeSession: 'delete from sessions where id_hash = $1',
    removeAccountSessions: 'delete from sessions where account_id = $1 and id_hash <> $2',
    removeExpiredSessions: 'delete from sessions where expires_at <= $1',
    addSecret: 'insert into server_secrets (name, value) values ($1, $2) on conflict do nothing',
    secret: 'select value from server_secrets where name = $1',

    // Inserted only while the scraper has fewer than $8 queries of other names: the bound is kept
    // by the statement itself, whichever node saves.
    saveQuery: `
      insert into saved_queries (scraper_id, name, title, description, sql, private, updated_at)
      select $1, $2, $3, $4, $5, $6, $7
      where (select count(*) from saved_queries where scraper_id = $1 and name <> $2) < $8
      on conflict (scraper_id, name) do update set
        title = excluded.title, description = excluded.description, sql = excluded.sql,
        private = excluded.private, updated_at = excluded.updated_at
      returning ${savedQueryColumns}`,
    findQuery: `select ${savedQueryColumns} from saved_queries where scraper_id = $1 and name = $2`,
    listQueries: `select ${savedQueryColumns} from saved_queries where scraper_id = $1 and (not private or $2) order by name`,
    removeQuery: 'delete from saved_queries where scraper_id = $1 and name = $2',

    spoolRecorded: 'select recorded from download_spools where name = $1',
    forgetSpool: 'delete from download_spools where name = $1',
    downloadStats: `
      select a.name as owner, t.count from download_totals t join accounts a on a.id = t.account_id
      where t.scraper_id = $1 order by t.count desc, ${d.nameOrder('a.name')}`,
    downloadsPerDay: 'select day, count from download_days where scraper_id = $1 and day >= $2',
    accountDownloads: `
      select a.name as owner, s.name, s.removed_at is not null as removed, d.scraper_id, d.day, d.count
      from download_account_days d join scrapers s on s.id = d.scraper_id join accounts a on a.id = s.owner_id
      where d.account_id = $1 and d.day >= $2`,
  };
}
