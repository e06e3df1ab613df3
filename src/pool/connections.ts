/**
 * The query process's open connections, one per scraper, each with the statements prepared on it
 * and the range plans made on it: a query asked again (a page polling the same URL) skips SQLite's
 * parse and plan, and a whole-table query the planning of its ranges.
 */
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { QueryJob, RangePlan } from './protocol.js';

/** Open connections kept, one per scraper; the oldest is closed beyond this. */
const maxConnections = 32;
/**
 * Statements (and range plans) kept per connection, and the most SQL text they may add up to (a
 * plan's bounds counted in): a prepared statement holds memory in proportion to its SQL, and 32
 * connections each keep their own.
 */
const maxStatements = 32;
const maxStatementChars = 256 * 1024;

/** A statement as prepared for one SQL text, with what running it again needs to know. */
export interface Prepared {
  stmt: Database.Statement;
  /**
   * Whether it only reads (SQLite's own answer, for this statement): ATTACH, VACUUM INTO, BEGIN,
   * CREATE TEMP … get past a read-only connection. Kept with the statement and checked at every run.
   */
  readOnly: boolean;
  /** Its result's column names: the same array at every run, so encoders may keep what they derive from it. */
  columns: readonly string[];
}

export interface Connection {
  file: string;
  db: Database.Database;
  statements: LRUCache<string, Prepared>;
  /** Range plans by range size and SQL text (false: not split), kept as statements are (range-plan.ts). */
  plans: LRUCache<string, RangePlan | false>;
}

/**
 * A cache of at most `maxStatements` entries keyed by SQL text, whose texts (and the values'
 * `charsOf`, for values that grow with the data) add up to `maxStatementChars` at most.
 */
const bySqlText = <V extends NonNullable<unknown>>(charsOf: (value: V) => number = () => 0) =>
  new LRUCache<string, V>({ max: maxStatements, maxSize: maxStatementChars, sizeCalculation: (value, sql) => sql.length + charsOf(value) });

/** A plan's bounds are one per range: a big table's plan can outweigh its SQL text many times. */
const planChars = (plan: RangePlan | false) => (plan ? plan.bounds.reduce((chars, bound) => chars + bound.length, 0) : 0);

const connections = new Map<number, Connection>();

/** The job's connection, opened unless kept; throws when the data file cannot be opened, which is ours. */
export function connection(job: QueryJob): Connection {
  const cached = connections.get(job.scraperId);
  if (cached?.file === job.file) {
    connections.delete(job.scraperId);
    connections.set(job.scraperId, cached); // most recently used last
    return cached;
  }
  // A publish replaced this scraper's data: its statements go with the connection they were prepared on.
  cached?.db.close();
  connections.delete(job.scraperId);
  if (connections.size >= maxConnections) {
    const [oldestId, oldest] = connections.entries().next().value!;
    oldest.db.close();
    connections.delete(oldestId);
  }
  const db = new Database(job.file, { readonly: true, fileMustExist: true });
  // The schema is the publisher's: a view over pragma_database_list would show the file's path to
  // whoever reads it. Untrusted, a schema cannot use virtual tables or functions SQLite does not mark
  // harmless (the pragma functions, but also FTS's snippet() and highlight(): in a query they work).
  db.pragma('trusted_schema = OFF');
  // A data version never changes once published: its shared lock is taken once and kept, rather than
  // taken, checked for a hot journal and its change counter read again at every query (three system
  // calls, measured as a tenth of a small query's CPU in this process).
  db.pragma('locking_mode = EXCLUSIVE');
  const opened = { file: job.file, db, statements: bySqlText<Prepared>(), plans: bySqlText(planChars) };
  connections.set(job.scraperId, opened);
  return opened;
}

/**
 * The statement for `sql`: the one kept unless that is still iterating, else newly prepared
 * (throws SQLite's error for SQL it refuses: the client's). Rows come as arrays, integers as bigints.
 */
export function prepare({ db, statements }: Connection, sql: string): Prepared {
  const kept = statements.get(sql);
  if (kept && !kept.stmt.busy) return kept;
  const stmt = db.prepare(sql);
  const readOnly = stmt.reader && stmt.readonly;
  const prepared: Prepared = { stmt, readOnly, columns: readOnly ? stmt.columns().map((c) => c.name) : [] };
  if (readOnly) stmt.raw(true).safeIntegers(true);
  statements.set(sql, prepared);
  return prepared;
}
