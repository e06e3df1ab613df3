import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onExit } from './on-exit.js';

/**
 * The PostgreSQL server the tests make their databases on: $SIPHON_TEST_DATABASE_URL's server (any
 * database of it), else this machine's, as user postgres.
 */
export const testPostgresUrl = process.env.SIPHON_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of `database` on the test server. */
function urlOf(database: string): string {
  const url = new URL(testPostgresUrl);
  url.pathname = `/${database}`;
  return url.href;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf('postgres'), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops it, closing whatever connections are left. */
  drop(): Promise<void>;
}

/**
 * A new, empty database with a random name, dropped by `drop()`, or when the test file's process
 * ends at the latest (by psql, since only synchronous work runs then).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `siphon_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name}`));
  const dropSql = `drop database if exists ${name} with (force)`;
  onExit(() => {
    spawnSync('psql', [urlOf('postgres'), '-qc', dropSql], { stdio: 'ignore' });
  });
  return {
    url: urlOf(name),
    name,
    drop: () =>
      admin(async (client) => {
        await client.query(dropSql);
      }),
  };
}

/**
 * Why a test file needing PostgreSQL is skipped: the test server does not answer. False when it
 * answers, and always with SIPHON_REQUIRE_POSTGRES=1 (CI), which makes an unreachable server a failure.
 */
export async function postgresSkip(): Promise<string | false> {
  if (process.env.SIPHON_REQUIRE_POSTGRES === '1') return false;
  try {
    await admin((client) => client.query('select 1'));
    return false;
  } catch (err) {
    // The host only: the URL may hold a password.
    const reason = err instanceof Error ? err.message : String(err);
    return `PostgreSQL does not answer at ${new URL(testPostgresUrl).host} (${reason}); set SIPHON_REQUIRE_POSTGRES=1 to make this a failure`;
  }
}
