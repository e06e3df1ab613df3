import { mkdirSync } from 'node:fs';
import type { Config } from '../config.js';
import { allSettings, describeSettings, settings, type Resolved } from '../config/settings.js';
import { openStore } from '../store/open.js';
import type { FlagSpec } from './args.js';
import { UsageError } from './args.js';
import { completionScript, completionShells, type CompletionShell } from './completion.js';
import { remoteCommands, remoteFlags } from './remote-commands.js';
import { accountCommands } from './account-commands.js';
import { savedQueryCommands } from './saved-query-commands.js';
import { scraperCommands } from './scraper-commands.js';
import type { CliIo } from './io.js';

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
  description: {
    type: 'string',
    metavar: 'TEXT',
    doc: "the scraper's description, shown on its page and in its feeds (query save: the saved query's, on its page)",
  },
  title: { type: 'string', metavar: 'TEXT', doc: "the saved query's title, shown on its page and the scraper page (default: its name)" },
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
  versions: {
    type: 'string',
    metavar: 'N',
    doc: "how many data versions the scraper keeps, the current one included, or default (the operator's --keep-versions)",
  },
  days: { type: 'string', metavar: 'DAYS', doc: 'kept versions older than this many days are retired (0: no age limit), or default' },
  demo: { type: 'boolean', doc: 'first create the demo account and scraper if they are missing' },
  ...remoteFlags,
  'print-config': {
    type: 'boolean',
    doc: "print every setting's value and where it came from (flag, env or default), then exit without serving",
  },
} satisfies Record<string, FlagDoc>;

export type CommandFlag = keyof typeof commandFlags;
export type FlagValues = Partial<Record<CommandFlag, string | boolean | string[]>>;

/** The settings every command reads: where the store is. */
export const storeSettings = ['dataDir', 'databaseUrl'] as const;

export type CommandSetting = Exclude<keyof Config, (typeof storeSettings)[number]>;

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

/** Every command, in the order the list of commands shows them. */
export const commands: readonly Command[] = [
  ...accountCommands,
  ...scraperCommands,
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
  ...savedQueryCommands,
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
      const flags = Object.entries(commandFlags as Record<string, FlagDoc>);
      const valueFlags = [
        ...flags.filter(([, flag]) => flag.type === 'string' && !flag.pair).map(([name]) => name),
        ...allSettings.map((s) => s.flag),
      ];
      const pairFlags = flags
        .filter(([, flag]) => flag.pair)
        .flatMap(([name, flag]) => [`--${name}`, ...(flag.short ? [`-${flag.short}`] : [])]);
      const completed = commands.map((c) => ({ name: c.name, flags: [...flagsOf(c)] }));
      run.io.stdout(completionScript(shell as CompletionShell, completed, valueFlags, pairFlags));
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
