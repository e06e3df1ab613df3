import Database from 'better-sqlite3';
import path from 'node:path';

/**
 * Turns a data folder's siphon.db back into what the version before key details wrote: schema
 * version 1, its keys without label, prefix, origins or last use (migration 2 adds them), its
 * scrapers without removal, their names unique by a table constraint (migration 3 changes that),
 * and none of what accounts on the web added (migration 4: passwords, emails, sessions, an
 * account's own download counts, shared secrets; later: the spools' progress). A test going further back starts from here.
 */
export function asBeforeKeyDetails(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'siphon.db'));
  try {
    db.exec(`
      drop table sessions; drop table download_account_days; drop table server_secrets; drop table download_spools; drop table data_versions; drop table saved_queries;
      alter table accounts drop column password_hash; alter table accounts drop column email;
      alter table api_keys drop column label; alter table api_keys drop column prefix;
      alter table api_keys drop column origins_json; alter table api_keys drop column last_used_at;
      pragma foreign_keys = off;
      create table scrapers_old (
        id integer primary key, owner_id integer not null references accounts(id), name text not null collate nocase,
        description text not null default '', private integer not null default 0, data_file text not null,
        data_version integer not null, tables_json text not null, size_bytes integer not null, created_at text not null,
        updated_at text not null, unique (owner_id, name));
      insert into scrapers_old select id, owner_id, name, description, private, data_file, data_version, tables_json,
        size_bytes, created_at, updated_at from scrapers;
      drop table scrapers;
      alter table scrapers_old rename to scrapers;
      pragma user_version = 1;`);
  } finally {
    db.close();
  }
}
