import pg from 'pg';

const int8 = 20;
const date = 1082;
const timestamptz = 1184;
const parseTimestamp = pg.types.getTypeParser(timestamptz) as (text: string) => Date;

/**
 * How values come back, as the Store interface gives them: counts (bigint) as numbers (none nears
 * 2^53), days as YYYY-MM-DD, timestamps as ISO texts in UTC.
 */
const types = {
  getTypeParser(oid: number, format?: string): unknown {
    if (oid === int8) return Number;
    if (oid === date) return (text: string) => text;
    if (oid === timestamptz) return (text: string) => parseTimestamp(text).toISOString();
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** A pool of connections to the store's database. An idle connection that breaks is dropped by the pool, not thrown. */
export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {});
  return pool;
}

/** Runs `work` in one transaction on one connection of the pool: committed if it returns, rolled back if it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
