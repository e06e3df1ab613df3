import { absoluteDataPath, storedDataPath } from './data-paths.js';
import type {
  Account,
  AccountListing,
  ApiKey,
  DataVersion,
  KeyListing,
  RetiredVersion,
  SavedQuery,
  Scraper,
  SessionRecord,
  TableInfo,
} from './records.js';

// Rows as both engines read them, turned into the store's records. SQLite gives 0 or 1 for a
// boolean and JSON text for what PostgreSQL keeps as an array or jsonb: each mapper takes either.

type Flag = boolean | number;
type Json<T> = T | string;

const flag = (value: Flag): boolean => value === true || value === 1;
const fromJson = <T>(value: Json<T>): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
const originsFrom = (value: Json<string[]> | null): readonly string[] | null => (value === null ? null : fromJson(value));

export interface ScraperRow {
  id: number;
  owner_id: number;
  owner_name: string;
  name: string;
  description: string;
  private: Flag;
  data_file: string;
  data_version: number;
  tables: Json<TableInfo[]>;
  size_bytes: number;
  updated_at: string;
  keep_versions: number | null;
  keep_days: number | null;
}

export function toScraper(row: ScraperRow, dataDir: string): Scraper {
  return {
    id: row.id,
    owner: { id: row.owner_id, name: row.owner_name },
    name: row.name,
    description: row.description,
    isPrivate: flag(row.private),
    data: toVersion({ ...row, version: row.data_version, published_at: row.updated_at }, dataDir),
    keep: { versions: row.keep_versions, days: row.keep_days },
  };
}

export interface VersionRow {
  version: number;
  data_file: string;
  tables: Json<TableInfo[]>;
  size_bytes: number;
  published_at: string;
}

export function toVersion(row: VersionRow, dataDir: string): DataVersion {
  return {
    file: absoluteDataPath(dataDir, row.data_file),
    version: row.version,
    tables: fromJson(row.tables),
    sizeBytes: row.size_bytes,
    updatedAt: row.published_at,
  };
}

/** A version's values in the order the engines' `addVersion` statement takes them: `toVersion` the other way. */
export function versionValues(scraperId: number, version: number, data: Omit<DataVersion, 'version'>, dataDir: string) {
  return [scraperId, version, storedDataPath(dataDir, data.file), JSON.stringify(data.tables), data.sizeBytes, data.updatedAt];
}

export function toRetiredVersion(row: VersionRow & { retired_at: string }, dataDir: string): RetiredVersion {
  return { ...toVersion(row, dataDir), retiredAt: row.retired_at };
}

export interface KeyRow {
  id: number;
  read_only: Flag;
  revoked_at: string | null;
  origins: Json<string[]> | null;
  account_id: number;
  account_name: string;
}

export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    account: { id: row.account_id, name: row.account_name },
    readOnly: flag(row.read_only),
    revoked: row.revoked_at !== null,
    origins: originsFrom(row.origins),
  };
}

export interface KeyListingRow {
  id: number;
  prefix: string | null;
  label: string;
  read_only: Flag;
  origins: Json<string[]> | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function toKeyListing(row: KeyListingRow): KeyListing {
  return {
    id: row.id,
    prefix: row.prefix,
    label: row.label,
    readOnly: flag(row.read_only),
    origins: originsFrom(row.origins),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface AccountListingRow {
  name: string;
  created_at: string;
  keys: number;
  revoked_keys: number;
  scrapers: number;
}

export function toAccountListing(row: AccountListingRow): AccountListing {
  return { name: row.name, createdAt: row.created_at, keys: row.keys, revokedKeys: row.revoked_keys, scrapers: row.scrapers };
}

export interface LoginRow {
  id: number;
  name: string;
  password_hash: string | null;
}

export function toLogin(row: LoginRow): { account: Account; passwordHash: string | null } {
  return { account: { id: row.id, name: row.name }, passwordHash: row.password_hash };
}

export interface SessionRow {
  id: number;
  name: string;
  created_at: string;
  expires_at: string;
}

export function toSession(row: SessionRow): SessionRecord {
  return { account: { id: row.id, name: row.name }, createdAt: row.created_at, expiresAt: row.expires_at };
}

export interface SavedQueryRow {
  scraper_id: number;
  name: string;
  title: string;
  description: string;
  sql: string;
  private: Flag;
  updated_at: string;
}

export function toSavedQuery(row: SavedQueryRow): SavedQuery {
  return {
    scraperId: row.scraper_id,
    name: row.name,
    title: row.title,
    description: row.description,
    sql: row.sql,
    isPrivate: flag(row.private),
    updatedAt: row.updated_at,
  };
}
