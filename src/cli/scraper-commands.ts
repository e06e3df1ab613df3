import { existsSync } from 'node:fs';
import path from 'node:path';
import { settings } from '../config/settings.js';
import { UsageError } from './args.js';
import { CommandFailed } from './command-failed.js';
import type { Command, CommandSetting } from './commands.js';
import { formatCopyCounts, formatScraperList } from './listings.js';
import { text, withCatalog } from './with-catalog.js';

/** The start of a UTC day, from YYYY-MM-DD; undefined for anything else, or a day that does not exist. */
function utcDay(day: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(day)) return undefined;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day) ? date : undefined;
}

const importSettings: CommandSetting[] = ['importTimeoutMs', 'queryMemoryMb', 'diskReserveBytes'];
/** The operator's retention of data versions, which a publish applies and an owner's choice is bounded by. */
const retentionSettings: CommandSetting[] = ['keepVersions', 'keepDays', 'maxKeepVersions'];

/** A count given to `scraper keep`: a whole number, or `default` (null) for the operator's. */
function keepCount(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d{1,9}$/.test(value))
    throw new UsageError(`--${flag} must be a whole number or default, not ${JSON.stringify(value)}`, 'scraper keep');
  return Number(value);
}

/** The commands on scrapers, their downloads and the store itself, in the order the list of commands shows them. */
export const scraperCommands: readonly Command[] = [
  {
    name: 'scraper add',
    args: ['OWNER/NAME'],
    flags: ['db', 'private', 'description'],
    required: ['db'],
    settings: importSettings,
    summary: 'register a scraper with a copy of an SQLite file',
    about:
      'Registers a scraper with a copy of an SQLite file as its data, imported as a publish is: in a process of its own, under the import limits, checked with PRAGMA quick_check.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const s = await catalog.addScraper(run.args[0]!, path.resolve(text(run.flags.db)!), {
          isPrivate: run.flags.private === true,
          description: text(run.flags.description) ?? '',
        });
        run.io.stdout(
          `added ${s.owner.name}/${s.name} (${s.isPrivate ? 'private' : 'public'}): ${s.data.tables.map((t) => `${t.name} (${t.rows} rows)`).join(', ') || 'no tables'}\n`,
        );
      }),
  },
  {
    name: 'scraper publish',
    args: ['OWNER/NAME'],
    flags: ['db'],
    required: ['db'],
    settings: [...importSettings, ...retentionSettings],
    summary: "replace a scraper's data atomically",
    about:
      "Replaces a scraper's data in one step: requests already running finish on the old data, later ones read the new. " +
      'The new data is kept as a new version; versions past the retention (scraper keep, --keep-versions) are no longer served from then on, and their files are deleted 10 minutes later.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const s = await catalog.publish(run.args[0]!, path.resolve(text(run.flags.db)!));
        run.io.stdout(`published ${s.owner.name}/${s.name}, data version ${s.data.version}\n`);
      }),
  },
  {
    name: 'scraper set',
    args: ['OWNER/NAME'],
    flags: ['description', 'private', 'public'],
    settings: [],
    summary: "change a scraper's description or visibility",
    about: "Changes a scraper's description, or makes it private or public; a running server answers accordingly from its next request.",
    run: async (run) => {
      const { description, private: makePrivate, public: makePublic } = run.flags;
      if (makePrivate && makePublic) throw new UsageError('scraper set takes --private or --public, not both', 'scraper set');
      if (description === undefined && !makePrivate && !makePublic) {
        throw new UsageError('scraper set needs --description TEXT, --private or --public', 'scraper set');
      }
      await withCatalog(run, async (catalog) => {
        const isPrivate = makePrivate ? true : makePublic ? false : undefined;
        const s = await catalog.setScraper(run.args[0]!, { description: text(description), isPrivate });
        run.io.stdout(`updated ${s.owner.name}/${s.name} (${s.isPrivate ? 'private' : 'public'}): ${JSON.stringify(s.description)}\n`);
      });
    },
  },
  {
    name: 'scraper keep',
    args: ['OWNER/NAME'],
    flags: ['versions', 'days'],
    settings: retentionSettings,
    summary: 'choose how many data versions (and days) a scraper keeps',
    about:
      "Sets how many of a scraper's data versions stay readable with version=: those of its last --versions publishes (1 to --max-keep-versions), " +
      "and with --days above 0, only those published less than that many days ago; default for either goes back to the operator's. " +
      'Versions no longer kept are retired at the next publish or sweep (within a minute on a running server). Without flags, prints what it keeps.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const choice = { versions: keepCount('versions', text(run.flags.versions)), days: keepCount('days', text(run.flags.days)) };
        const given = Object.fromEntries(Object.entries(choice).filter(([, v]) => v !== undefined));
        const s = Object.keys(given).length > 0 ? await catalog.keepVersions(run.args[0]!, given) : await catalog.findScraper(run.args[0]!);
        const keep = catalog.retentionOf(s);
        const days = keep.days > 0 ? `, none older than ${keep.days} days` : '';
        run.io.stdout(
          `${s.owner.name}/${s.name} keeps ${keep.versions} versions${days}${s.keep.versions === null && s.keep.days === null ? ' (the default)' : ''}\n`,
        );
      }),
  },
  {
    name: 'scraper remove',
    args: ['OWNER/NAME'],
    flags: [],
    settings: [],
    summary: 'remove a scraper; its downloads stay counted',
    about:
      'Removes a scraper: a running server answers 404 for it from its next request, and its name is free again. ' +
      'A request already reading it finishes. Its data files are deleted 10 minutes later by a running server (kept meanwhile for requests that looked it up just before). ' +
      'Its downloads stay recorded and counted in the totals of the accounts that made them.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const s = await catalog.removeScraper(run.args[0]!);
        run.io.stdout(`removed ${s.owner.name}/${s.name}\n`);
      }),
  },
  {
    name: 'scraper list',
    args: ['[OWNER]'],
    flags: [],
    settings: [],
    summary: "every scraper, or OWNER's: visibility, version, size, updated, downloads, tables",
    about:
      'Lists every scraper (or those of OWNER), private ones marked, by owner and name: data version, size, when its data last changed (UTC), downloads and tables.',
    run: (run) => withCatalog(run, async (catalog) => run.io.stdout(formatScraperList(await catalog.listScrapers(run.args[0])))),
  },
  {
    name: 'downloads prune',
    args: [],
    flags: ['before'],
    required: ['before'],
    settings: [],
    summary: 'delete the downloads recorded before a day; counts stay',
    about:
      'Deletes the download records older than --before. The counts that pages and scraper information show are kept apart, so they do not change. ' +
      'It runs in slices, so a running server keeps recording downloads meanwhile. The file does not shrink: SQLite reuses the space.',
    run: async (run) => {
      const day = text(run.flags.before)!;
      const before = utcDay(day);
      if (!before) throw new UsageError(`--before must be a day written YYYY-MM-DD, not ${JSON.stringify(day)}`, 'downloads prune');
      await withCatalog(run, async (catalog) =>
        run.io.stdout(`pruned ${await catalog.pruneDownloads(before)} downloads recorded before ${day}\n`),
      );
    },
  },
  {
    name: 'store copy',
    args: [],
    flags: ['to'],
    required: ['to'],
    settings: [],
    summary: "copy the data folder's siphon.db into an empty PostgreSQL database",
    about:
      "Copies everything of the data folder's siphon.db into the PostgreSQL database of --to, to run nodes on it: accounts (with their password hashes), keys (revoked ones too), " +
      'web sessions not yet expired and the secret their cookies are signed with, scrapers (removed ones too), every download record and the counts. ' +
      "It makes the database's schema first if need be, then copies in one transaction: all of it or nothing. " +
      'It refuses a database that holds any account or scraper, changing nothing. It only reads siphon.db, and refuses --database-url (the source is always siphon.db). Stop the server first: downloads it records after the copy are not copied.',
    run: async (run) => {
      const { config } = run;
      if (config.databaseUrl !== undefined) {
        throw new UsageError(
          "store copy copies the data folder's siphon.db: unset --database-url and $SIPHON_DATABASE_URL, and name the target with --to",
          'store copy',
        );
      }
      const to = text(run.flags.to)!;
      try {
        settings.databaseUrl.parse(to, run.io.cwd);
      } catch (err) {
        // Its value is never repeated: it may hold a password.
        throw new CommandFailed(`--to must be ${(err as Error).message}`);
      }
      if (!existsSync(path.join(config.dataDir, 'siphon.db')))
        throw new CommandFailed(`there is no siphon.db in ${config.dataDir}: nothing to copy`);
      // Loaded only here: the other commands on SQLite never load the PostgreSQL driver.
      const { copyToPostgres, TargetNotEmpty } = await import('../store/copy-to-pg.js');
      try {
        run.io.stdout(formatCopyCounts(await copyToPostgres(config.dataDir, to)));
      } catch (err) {
        if (!(err instanceof TargetNotEmpty)) throw err;
        throw new CommandFailed(
          `the database of --to already holds ${err.accounts} accounts and ${err.scrapers} scrapers: store copy only copies into a database without any; nothing was changed`,
        );
      }
    },
  },
];
