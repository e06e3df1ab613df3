import pg from 'pg';
import { errors } from '../../errors.js';

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

/**
 * A text a client sent, kept as a record of what happened (a refused query's SQL), with each U+0000
 * as U+FFFD: PostgreSQL would refuse the whole batch of downloads, everyone's, for that one character.
 */
export const storableText = (text: string | null): string | null => text && text.replaceAll('\u0000', '\uFFFD');

/** Waiting longer than this for a connection (PostgreSQL down or unreachable) fails the call rather than holding it. */
const connectTimeoutMs = 5000;

/** Node's and PostgreSQL's codes for a database that cannot be reached, or is shutting down (SQLSTATE classes 08 and 57P). */
const downCodes = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|08...|57P0[1-3])$/;

/**
 * The store's database being unreachable is the service's condition, not a fault of the call: it is
 * answered 503 (errors.unavailable) and the client may try again, rather than 500.
 */
function asUnavailable(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  const down =
    (typeof code === 'string' && downCodes.test(code)) || /^Connection terminated|timeout exceeded when trying to connect/.test(message);
  if (!down) return err;
  const unavailable = errors.unavailable();
  unavailable.cause = err;
  return unavailable;
}

/**
 * A pool of connections to the store's database, whose calls fail with errors.unavailable() while the
 * database cannot be reached. An idle connection that breaks is dropped by the pool, not thrown.
 */
export class StorePool {
  private readonly pool: pg.Pool;

  constructor(connectionString: string, max: number) {
    this.pool = new pg.Pool({ connectionString, max, types, idleTimeoutMillis: 30_000, connectionTimeoutMillis: connectTimeoutMs });
    this.pool.on('error', () => {});
  }

  get ended(): boolean {
    return this.pool.ended;
  }

  async query<R extends pg.QueryResultRow>(query: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(typeof query === 'string' ? { text: query, values } : query);
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  async connect(): Promise<pg.PoolClient> {
    return this.pool.connect().catch((err: unknown) => {
      throw asUnavailable(err);
    });
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** Runs `work` in one transaction on one connection of the pool: committed if it returns, rolled back if it throws. */
export async function inTransaction<T>(pool: StorePool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
