import Database from 'better-sqlite3';
import path from 'node:path';
import { Lookups } from '../lookups.js';
import { statements, type Dialect } from '../statements.js';
import { migrate } from './schema.js';

/** Names match by the columns' own `collate nocase`, which folds A–Z only. */
const dialect: Dialect = {
  nameEquals: (column, param) => `${column} = ${param}`,
  nameOrder: (column) => column,
  textLike: (column, param) => `${column} like ${param} escape '\\'`,
  noLimit: -1,
  originsColumn: 'origins_json',
  tablesColumn: 'tables_json',
};

export const sql = statements(dialect);

/** SQLite binds `$1` as a name: the values by their place, from 1. */
const numbered = (values: readonly unknown[]): Record<number, unknown> => Object.fromEntries(values.map((value, i) => [i + 1, value]));

/**
 * The SQLite store's file, which every concern's part (accounts.ts, sessions.ts…) shares: one
 * connection in WAL mode, opened by the server and the CLI at the same time, its statements
 * prepared once, and its cached lookups.
 *
 * The lookups are dropped whenever the file may have changed: on any write through this store
 * (`change`), and when `PRAGMA data_version` says another connection (the CLI, say) has committed.
 * That check is made before a cached lookup, at most once per turn of the event loop, so a key
 * revoked from the CLI is refused from the next turn on.
 *
 * Writes are synchronous commits; with WAL and synchronous=NORMAL a commit survives the process
 * being killed (only a power loss can take the last commits).
 */
export class SqliteConnection {
  readonly db: Database.Database;
  readonly lookups = new Lookups();
  /** Prepared once: preparing was ~14% of the main thread's time per small query (bench). */
  private readonly statements = new Map<string, Database.Statement>();
  /** Changes only when another connection commits. */
  private readonly dataVersion: Database.Statement;
  private seenDataVersion: unknown;
  private versionSeenThisTurn = false;

  /** `dataDir`: the folder data files are kept relative to; siphon.db's own folder unless told. */
  constructor(
    file: string,
    readonly dataDir = path.dirname(path.resolve(file)),
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Off while migrating (see migrate); better-sqlite3 builds SQLite with them on by default.
    this.db.pragma('foreign_keys = OFF');
    migrate(this.db, this.dataDir);
    this.db.pragma('foreign_keys = ON');
    this.dataVersion = this.db.prepare('pragma data_version').pluck();
    this.seenDataVersion = this.dataVersion.get();
  }

  private prepared(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  get<T>(text: string, values: readonly unknown[] = []): T | undefined {
    return this.prepared(text).get(numbered(values)) as T | undefined;
  }

  all<T>(text: string, values: readonly unknown[] = []): T[] {
    return this.prepared(text).all(numbered(values)) as T[];
  }

  run(text: string, values: readonly unknown[] = []): Database.RunResult {
    return this.prepared(text).run(numbered(values));
  }

  /** Runs `work` in one transaction that takes the write lock at once (BEGIN IMMEDIATE). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /**
   * Drops the cached lookups if another connection has committed since the last look, looking once
   * per turn of the event loop: a look is a read transaction, two fcntl calls on the WAL's shared
   * memory, and one before each of a request's two lookups cost a 304 ~25 µs of its ~220 of CPU;
   * under the bench's load one turn serves ~20 requests. A commit is seen from the next turn on.
   */
  dropStaleLookups(): void {
    if (this.versionSeenThisTurn) return;
    this.versionSeenThisTurn = true;
    setImmediate(() => {
      this.versionSeenThisTurn = false;
    });
    const version = this.dataVersion.get();
    if (version === this.seenDataVersion) return;
    this.seenDataVersion = version;
    this.lookups.drop();
  }

  /** A write that may change what a lookup returns: the cached lookups are dropped once it is done. */
  change<T>(write: () => T): T {
    try {
      return write();
    } finally {
      this.lookups.drop();
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
