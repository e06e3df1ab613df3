import Database from 'better-sqlite3';

/**
 * SQLite compile options Siphon relies on, as `PRAGMA compile_options` lists them; the postinstall
 * script (scripts/build-sqlite.mjs) builds them in. DQS=3: double-quoted strings as in stock SQLite,
 * which morph.io's clients write. MAX_ATTACHED=0: ATTACH and VACUUM INTO fail inside SQLite itself.
 */
export const requiredSqliteOptions: readonly string[] = ['DQS=3', 'MAX_ATTACHED=0'];

/** The installed SQLite lacks options Siphon relies on (a bare `npm rebuild` brings the stock build back). */
export class SqliteBuildError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(
      `The installed better-sqlite3 was built without SQLite options Siphon needs (${missing.join(', ')}). ` +
        'Run npm install, or node scripts/build-sqlite.mjs, to rebuild it.',
    );
    this.name = 'SqliteBuildError';
  }
}

/** Which of the required options `have` (PRAGMA compile_options) lacks. */
export function missingSqliteOptions(have: readonly string[]): string[] {
  return requiredSqliteOptions.filter((option) => !have.includes(option));
}

/** Throws SqliteBuildError unless the SQLite that queries will run on has every required option. */
export function assertSqliteBuild(): void {
  const db = new Database(':memory:');
  try {
    const have = (db.pragma('compile_options') as { compile_options: string }[]).map((row) => row.compile_options);
    const missing = missingSqliteOptions(have);
    if (missing.length > 0) throw new SqliteBuildError(missing);
  } finally {
    db.close();
  }
}
