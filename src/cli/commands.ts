import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { allSettings, describeSettings, settings, type Resolved } from '../config/settings.js';
import type { Catalog } from '../scrapers/catalog.js';
import { catalogWithImportLimits } from '../scrapers/limited-catalog.js';
import { openStore } from '../store/open.js';
import type { FlagSpec } from './args.js';
import { UsageError } from './args.js';
import { completionScript, completionShells, type CompletionShell } from './completion.js';
import { remoteCommands, remoteFlags } from './remote-commands.js';
import { CommandFailed } from './command-failed.js';
import { formatCopyCounts, formatKeyList, formatScraperList, formatUserList } from './listings.js';
import type { CliIo } from './io.js';
import { readNewPassword } from './read-password.js';
import { isKeyPrefix } from '../keys.js';

export type FlagDoc = FlagSpec & { metavar?: string; doc: string };

/** The flags of the commands that are not settings: how each is read and what it means. */
export const commandFlags = {
  label: { type: 'string', metavar: 'TEXT', doc: 'what the key is for, shown by key list (at most 100 characters, one line)' },
  'read-only': { type: 'boolean', doc: 'the key can query data but never publish it' },
  origin: {
    type: 'string',
    multiple: true,
    metavar: 'ORIGIN',
    doc: 'only web pages of this origin (https://maps.example.org) may use the key, which is then read-only; repeatable',
  },
  db: { type: 'string', metavar: 'FILE', doc: 'the SQLite database file to copy in' },
  private: { type: 'boolean', doc: 'served to nobody and listed nowhere: a private scraper is answered as one that does not exist' },
  public: { type: 'boolean', doc: 'served to every key and listed on the pages' },
  description: { type: 'string', metavar: 'TEXT', doc: "the scraper's description, shown on its page and in its feeds" },
  before: { type: 'string', metavar: 'DATE', doc: 'a day, YYYY-MM-DD: the downloads recorded before it began (UTC) are deleted' },
  to: {
    type: 'string',
    metavar: 'URL',
    doc: 'the PostgreSQL database to copy into (postgres://user:password@host:5432/db), holding no account or scraper',
  },
  account: {
    type: 'string',
    metavar: 'NAME',
    doc: 'the account whose key is named by its prefix, as key list shows it (sph_ and 6 more), instead of the key itself',
  },
  demo: { type: 'boolean', doc: 'first create the demo account and scraper if they are missing' },
  ...remoteFlags,
  'print-config': {
    type: 'boolean',
    doc: "print every setting's value and where it came from (flag, env or default), then exit without serving",
  },
} satisfies Record<string, FlagDoc>;

export type CommandFlag = keyof typeof commandFlags;
type FlagValues = Partial<Record<CommandFlag, string | boolean | string[]>>;

/** The settings every command reads: where the store is. */
export const storeSettings = ['dataDir', 'databaseUrl'] as const;

type CommandSetting = Exclude<keyof Config, (typeof storeSettings)[number]>;

export interface CommandRun {
  /** The command's arguments, as many as it takes. */
  args: string[];
  flags: FlagValues;
  /** The data folder and the command's settings from flags, environment and defaults; the defaults for the rest. */
  config: Config;
  /** The same settings with where each came from, for --print-config. */
  resolved: Resolved<keyof Config>;
  io: CliIo;
}

export interface Command {
  /** One or two words: `serve`, `key create`. */
  name: string;
  /** The arguments after the name, as usage shows them; `[OWNER]` is optional. */
  args: readonly string[];
  /** Its flags besides its settings' flags, --data-dir and --help; those in `required` must be given. */
  flags: readonly CommandFlag[];
  required?: readonly CommandFlag[];
  /** The settings it reads besides the data folder, each by its flag or environment variable. */
  settings: readonly CommandSetting[];
  /** false: it reads no data folder or store (it asks a running server, say), so it takes neither --data-dir nor --database-url. */
  store?: false;
  /** One line for the list of commands. */
  summary: string;
  /** What `help <command>` says it does. */
  about: string;
  run(command: CommandRun): Promise<void>;
}

/**
 * Opens the data folder's store (creating both if need be) and a catalog over it, runs `use`, and
 * closes the store. Imports run as the server runs them: in a process of their own, under its limits.
 */
async function withCatalog(run: CommandRun, use: (catalog: Catalog) => Promise<void>): Promise<void> {
  const { config } = run;
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore(config, 2);
  try {
    await use(catalogWithImportLimits(store, config));
  } finally {
    await store.close();
  }
}

const text = (value: FlagValues[CommandFlag]) => value as string | undefined;

/** The start of a UTC day, from YYYY-MM-DD; undefined for anything else, or a day that does not exist. */
function utcDay(day: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(day)) return undefined;
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day) ? date : undefined;
}

const importSettings: CommandSetting[] = ['importTimeoutMs', 'queryMemoryMb', 'diskReserveBytes'];

/** Every command, in the order the list of commands shows them. */
export const commands: readonly Command[] = [
  {
    name: 'user add',
    args: ['NAME'],
    flags: ['label'],
    settings: [],
    summary: 'create an account; prints its first API key',
    about:
      'Creates an account and prints its first API key, alone on one line. The key is labelled "first key" unless --label says otherwise.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        run.io.stdout(`${(await catalog.addUser(run.args[0]!, { label: text(run.flags.label) })).key}\n`);
      }),
  },
  {
    name: 'user passwd',
    args: ['NAME'],
    flags: [],
    settings: [],
    summary: "set account NAME's password for the web (read from stdin)",
    about:
      'Sets the password account NAME signs in with on the web, and logs out its sessions. The password is typed twice at a prompt that does not show it, or, when stdin is not a terminal, is the first line piped in (`printf \'%s\\n\' "$PW" | siphon user passwd NAME`); never an argument, which every user of the machine could read in ps. 10 to 200 characters.',
    run: async (run) => {
      const password = await readNewPassword(run.io);
      if (password === undefined) throw new CommandFailed('the two passwords typed differ; nothing was changed');
      await withCatalog(run, async (catalog) => {
        const account = await catalog.setPassword(run.args[0]!, password);
        run.io.stdout(`password set for ${account.name}; its web sessions are logged out\n`);
      });
    },
  },
  {
    name: 'user list',
    args: [],
    flags: [],
    settings: [],
    summary: 'every account: created, keys, scrapers',
    about:
      'Lists every account, by name: when it was created (UTC), its keys that work, its revoked keys and its scrapers (private ones included).',
    run: (run) => withCatalog(run, async (catalog) => run.io.stdout(formatUserList(await catalog.listUsers()))),
  },
  {
    name: 'key create',
    args: ['NAME'],
    flags: ['read-only', 'origin', 'label'],
    settings: [],
    summary: 'print a further key for account NAME',
    about: 'Prints a further API key for account NAME, alone on one line. Only its hash is kept: it cannot be shown again.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const key = await catalog.createKey(run.args[0]!, {
          readOnly: run.flags['read-only'] === true,
          origins: run.flags.origin as string[] | undefined,
          label: text(run.flags.label),
        });
        run.io.stdout(`${key}\n`);
      }),
  },
  {
    name: 'key list',
    args: ['NAME'],
    flags: [],
    settings: [],
    summary: "the account's keys (never the keys themselves)",
    about:
      "Lists the account's keys, oldest first: prefix, label, read-only, origins, created, last used, revoked. Never a key or its hash.",
    run: (run) => withCatalog(run, async (catalog) => run.io.stdout(formatKeyList(await catalog.listKeys(run.args[0]!)))),
  },
  {
    name: 'key revoke',
    args: ['KEY'],
    flags: ['account'],
    settings: [],
    summary: 'revoke a key at once',
    about:
      'Revokes the key at once: a running server refuses it from its next request. ' +
      'Without the key itself, name it by its prefix as key list shows it, with its account: key revoke sph_AbCdEf --account NAME.',
    run: (run) =>
      withCatalog(run, async (catalog) => {
        const given = run.args[0]!;
        const account = text(run.flags.account);
        if (account === undefined) {
          if (isKeyPrefix(given)) throw new CommandFailed(`${given} is a key's prefix: name its account too (--account NAME)`);
          if (!(await catalog.revokeKey(given))) throw new CommandFailed('no such key');
        } else {
          const prefix = given.replace(/…$/, '');
          if (!isKeyPrefix(prefix))
            throw new CommandFailed(
              `with --account, give the key's prefix as key list shows it (sph_ and 6 more), not ${JSON.stringify(given)}`,
            );
          const outcome = await catalog.revokeKeyByPrefix(account, prefix);
          if (outcome === 'none') throw new CommandFailed(`${account} has no key in use with the prefix ${prefix}`);
          if (outcome === 'several')
            throw new CommandFailed(
              `${account} has several keys in use with the prefix ${prefix}: revoke by the key itself, or on /account`,
            );
        }
        run.io.stdout('revoked\n');
      }),
  },
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
    settings: importSettings,
    summary: "replace a scraper's data atomically",
    about: "Replaces a scraper's data in one step: requests already running finish on the old data, later ones read the new.",
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
  {
    name: 'serve',
    args: [],
    flags: ['demo', 'print-config'],
    settings: allSettings.map((s) => s.key).filter((k): k is CommandSetting => !(storeSettings as readonly string[]).includes(k)),
    summary: 'run the HTTP service (SIGTERM stops it gracefully)',
    about:
      'Runs the HTTP service. SIGTERM or SIGINT stops it gracefully: it finishes the requests in flight, records their downloads, then exits 0. ' +
      'Each setting is a flag, else its environment variable, else its default.',
    run: async (run) => {
      if (run.flags['print-config']) {
        run.io.stdout(describeSettings(run.resolved));
        return;
      }
      const { config } = run;
      mkdirSync(config.dataDir, { recursive: true });
      const store = await openStore(config);
      try {
        // Loaded only here: the HTTP service's modules would add about a third of a second to every other command.
        const { serve } = await import('./serve.js');
        await serve(config, store, { demo: run.flags.demo === true });
      } finally {
        await store.close();
      }
      // Everything is stopped, written and logged. Under load a stopped node on PostgreSQL was seen
      // to linger with no handle of its own left open; a stopped server must not outlive its stop.
      process.exit(0);
    },
  },
  ...remoteCommands,
  {
    name: 'completion',
    args: ['SHELL'],
    flags: [],
    settings: [],
    store: false,
    summary: 'print a completion script for bash or zsh',
    about:
      "Prints a script that completes siphon's commands and options in bash or zsh (SHELL): `source <(siphon completion bash)` in ~/.bashrc, or `source <(siphon completion zsh)` in ~/.zshrc after compinit.",
    run: async (run) => {
      const shell = run.args[0]!;
      if (!(completionShells as readonly string[]).includes(shell))
        throw new UsageError(`completion takes bash or zsh, not ${JSON.stringify(shell)}`, 'completion');
      const valueFlags = [
        ...Object.entries(commandFlags as Record<string, FlagDoc>)
          .filter(([, flag]) => flag.type === 'string')
          .map(([name]) => name),
        ...allSettings.map((s) => s.flag),
      ];
      const completed = commands.map((c) => ({ name: c.name, flags: [...flagsOf(c)] }));
      run.io.stdout(completionScript(shell as CompletionShell, completed, valueFlags));
    },
  },
];

/** The flags `command` takes by name: its own, its settings', the store's. */
export function flagsOf(command: Command): Set<string> {
  return new Set([...command.flags, ...settingsOf(command).map((key) => settings[key].flag)]);
}

/** The settings `command` reads: its own, and the store's unless it has none. */
export function settingsOf(command: Command): (keyof Config)[] {
  return [...(command.store === false ? [] : storeSettings), ...command.settings];
}

/** The command named by the first words of `positionals`, if any. */
export function findCommand(positionals: readonly string[]): Command | undefined {
  const two = positionals.slice(0, 2).join(' ');
  return commands.find((c) => c.name === two) ?? commands.find((c) => c.name === positionals[0]);
}
