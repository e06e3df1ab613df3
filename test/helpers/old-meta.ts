import Database from 'better-sqlite3';
import path from 'node:path';

/**
 * Turns a data folder's siphon.db back into what the version before key details wrote: schema
 * version 1, its keys without label, prefix, origins or last use (migration 2 adds them). A test
 * going further back starts from here.
 */
export function asBeforeKeyDetails(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'siphon.db'));
  try {
    db.exec(`
      alter table api_keys drop column label; alter table api_keys drop column prefix;
      alter table api_keys drop column origins_json; alter table api_keys drop column last_used_at;
      pragma user_version = 1;`);
  } finally {
    db.close();
  }
}
