import type Database from 'better-sqlite3';
import { storedDataPath } from '../data-paths.js';

/** The tables every version has. `if not exists`, so it also runs on files made before versions were kept. */
const baseSchema = `
create table if not exists accounts (
  id integer primary key,
  name text not null unique collate nocase,
  created_at text not null
);
create table if not exists api_keys (
  id integer primary key,
  account_id integer not null references accounts(id),
  hash text not null unique,
  read_only integer not null default 0,
  created_at text not null,
  revoked_at text
);
create table if not exists scrapers (
  id integer primary key,
  owner_id integer not null references accounts(id),
  name text not null collate nocase,
  description text not null default '',
  private integer not null default 0,
  data_file text not null,
  data_version integer not null,
  tables_json text not null,
  size_bytes integer not null,
  created_at text not null,
  updated_at text not null,
  unique (owner_id, name)
);
create table if not exists downloads (
  id integer primary key,
  scraper_id integer not null references scrapers(id),
  account_id integer not null references accounts(id),
  key_id integer not null references api_keys(id),
  at text not null,
  format text not null,
  query text,
  status integer not null,
  rows integer,
  bytes integer not null,
  duration_ms real not null
);
`;

/**
 * Migration i takes a file from `PRAGMA user_version` i to i + 1. Files made before versions were
 * kept are version 0. Append only: a migration that has shipped never changes.
 */
const migrations: (string | ((db: Database.Database, dataDir: string) => void))[] = [
  // 1: download counts kept as downloads are recorded, so a page costs the same with 10 downloads or
  // 10 million: per scraper and account (who downloaded, the totals) and per scraper and UTC day (the
  // chart). `at` is an ISO timestamp in UTC, so its first 10 characters are its UTC day. The indexes
  // on downloads only served the counts that these tables replace; dropping them makes each insert cheaper.
  `
  create table download_totals (
    scraper_id integer not null references scrapers(id),
    account_id integer not null references accounts(id),
    count integer not null,
    primary key (scraper_id, account_id)
  ) without rowid;
  create table download_days (
    scraper_id integer not null references scrapers(id),
    day text not null,
    count integer not null,
    primary key (scraper_id, day)
  ) without rowid;
  insert into download_totals (scraper_id, account_id, count)
    select scraper_id, account_id, count(*) from downloads group by scraper_id, account_id;
  insert into download_days (scraper_id, day, count)
    select scraper_id, substr(at, 1, 10), count(*) from downloads group by scraper_id, substr(at, 1, 10);
  drop index if exists downloads_by_scraper;
  drop index if exists downloads_by_scraper_time;
  `,
  // 2: what `key list` shows of a key, and keys limited to web origins. Keys made before have no
  // label and no prefix (it cannot be recovered from the hash: shown as unknown); they keep their
  // created_at. Their last use is taken from the downloads already recorded, in one pass over them.
  // origins_json is a JSON array of normalised origins, null for a key usable from anywhere.
  `
  alter table api_keys add column label text not null default '';
  alter table api_keys add column prefix text;
  alter table api_keys add column origins_json text;
  alter table api_keys add column last_used_at text;
  update api_keys set last_used_at = used.at
    from (select key_id, max(at) as at from downloads group by key_id) as used
    where used.key_id = api_keys.id;
  `,
  // 3: scrapers can be removed. A removed scraper's row stays, with removed_at set, because its
  // downloads and their totals still refer to it (and so that its id is never given to another
  // scraper, which would inherit its counts); its name is free again, so the unique name becomes a
  // unique index over the scrapers not removed. SQLite cannot drop a table's constraint: the table
  // is rebuilt as SQLite's documentation says (foreign keys are off while migrations run).
  `
  create table scrapers_new (
    id integer primary key,
    owner_id integer not null references accounts(id),
    name text not null collate nocase,
    description text not null default '',
    private integer not null default 0,
    data_file text not null,
    data_version integer not null,
    tables_json text not null,
    size_bytes integer not null,
    created_at text not null,
    updated_at text not null,
    removed_at text
  );
  insert into scrapers_new (id, owner_id, name, description, private, data_file, data_version, tables_json, size_bytes,
                            created_at, updated_at)
    select id, owner_id, name, description, private, data_file, data_version, tables_json, size_bytes, created_at, updated_at
    from scrapers;
  drop table scrapers;
  alter table scrapers_new rename to scrapers;
  create unique index scrapers_by_name on scrapers (owner_id, name) where removed_at is null;
  `,
  // 4: accounts on the web. An account may have a password (an scrypt hash in the PHC-like text of
  // src/accounts/passwords.ts; null: it cannot sign in) and an email. Sessions are kept by the
  // SHA-256 of their id, as keys are, with when they end; expired ones are deleted by a sweep.
  // download_account_days counts an account's own downloads per scraper and UTC day for its page,
  // as download_days does per scraper, filled from the downloads already recorded. server_secrets
  // holds what every server of one store must share (the session cookie's signing secret).
  `
  alter table accounts add column password_hash text;
  alter table accounts add column email text;
  create table sessions (
    id_hash text primary key,
    account_id integer not null references accounts(id),
    created_at text not null,
    expires_at text not null
  );
  create index sessions_by_expiry on sessions (expires_at);
  create index sessions_by_account on sessions (account_id);
  create table download_account_days (
    account_id integer not null references accounts(id),
    scraper_id integer not null references scrapers(id),
    day text not null,
    count integer not null,
    primary key (account_id, day, scraper_id)
  ) without rowid;
  insert into download_account_days (account_id, scraper_id, day, count)
    select account_id, scraper_id, substr(at, 1, 10), count(*) from downloads group by account_id, scraper_id, substr(at, 1, 10);
  create table server_secrets (
    name text primary key,
    value text not null
  ) without rowid;
  `,
  // 5: data files are kept relative to the data folder (src/store/data-paths.ts), so that the folder
  // can move. Paths under the folder holding this file become relative; others stay as they were.
  (db, dataDir) => {
    const rows = db.prepare('select id, data_file from scrapers').all() as { id: number; data_file: string }[];
    const update = db.prepare('update scrapers set data_file = ? where id = ?');
    for (const row of rows) {
      const stored = storedDataPath(dataDir, row.data_file);
      if (stored !== row.data_file) update.run(stored, row.id);
    }
  },
  // 6: where each node's spool of downloads (src/downloads/spool.ts) has been recorded up to, kept in
  // the same transaction as the downloads, so that a spool replayed after a crash records each once.
  `
  create table download_spools (
    name text primary key,
    recorded integer not null
  ) without rowid;
  `,
  // 7: data versions kept after a publish, each a row until its file is removed (src/scrapers/versions.ts);
  // retired_at is set when retention stops keeping one (it is no longer served). A scraper's own
  // retention, null for the operator's default. Every scraper's current data becomes its first kept version.
  `
  create table data_versions (
    scraper_id integer not null references scrapers(id),
    version integer not null,
    data_file text not null,
    tables_json text not null,
    size_bytes integer not null,
    published_at text not null,
    retired_at text,
    primary key (scraper_id, version)
  );
  alter table scrapers add column keep_versions integer;
  alter table scrapers add column keep_days integer;
  insert into data_versions (scraper_id, version, data_file, tables_json, size_bytes, published_at)
    select id, data_version, data_file, tables_json, size_bytes, updated_at from scrapers where removed_at is null;
  `,
  // 8: queries a scraper's owner saved, by a name unique in the scraper (a lower-case slug, so
  // compared as written). A removed scraper's stay with its row, unreachable.
  `
  create table saved_queries (
    scraper_id integer not null references scrapers(id),
    name text not null,
    title text not null,
    description text not null,
    sql text not null,
    private integer not null,
    updated_at text not null,
    primary key (scraper_id, name)
  ) without rowid;
  `,
];

/**
 * Brings the file to the current schema. Each migration runs in a write transaction of its own
 * that checks the version again, so a server and a CLI opening an old file at the same moment
 * migrate it once. Call it before turning foreign keys on: a migration that rebuilds a table drops
 * one that others refer to, so each is checked for broken references before it commits instead.
 */
export function migrate(db: Database.Database, dataDir: string): void {
  db.exec(baseSchema);
  const version = () => db.pragma('user_version', { simple: true }) as number;
  for (let target = version() + 1; target <= migrations.length; target++) {
    db.transaction(() => {
      if (version() >= target) return;
      const migration = migrations[target - 1]!;
      if (typeof migration === 'string') db.exec(migration);
      else migration(db, dataDir);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0)
        throw new Error(`migration ${target} would leave ${broken.length} broken references: ${JSON.stringify(broken.slice(0, 3))}`);
      db.pragma(`user_version = ${target}`);
    }).immediate();
  }
}
