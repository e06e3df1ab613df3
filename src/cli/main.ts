import Database from 'better-sqlite3';
import { configWith } from '../config.js';
import { allSettings, resolveSettings, SettingInvalid } from '../config/settings.js';
import { SiphonError } from '../errors.js';
import { PoolStartError } from '../pool/pool.js';
import { SqliteBuildError } from '../sql/sqlite-build.js';
import { StoreUnavailable } from '../store/open.js';
import { readArgs, UsageError, type FlagSpec } from './args.js';
import { CommandFailed } from './command-failed.js';
import { commandFlags, findCommand, flagsOf, settingsOf, type Command, type CommandFlag, type FlagDoc } from './commands.js';
import { processIo, type CliIo } from './io.js';
import { commandHelp, overview } from './usage.js';
import { siphonVersion } from '../version.js';

/** Every flag any command takes: its own flags, the settings (all given as text) and --version. */
const knownFlags: Record<string, FlagSpec> = {
  ...commandFlags,
  ...Object.fromEntries(allSettings.map((s) => [s.flag, { type: 'string' } as const])),
  version: { type: 'boolean' },
};

const unknownCommand = (words: readonly string[]) => new UsageError(`unknown command: ${words.slice(0, 2).join(' ')}`);

/** The command `help` is asked about: its words and no more. */
function commandNamed(words: readonly string[]): Command {
  const command = findCommand(words);
  if (!command || command.name.split(' ').length < words.length) throw unknownCommand(words);
  return command;
}

async function run(argv: string[], io: CliIo): Promise<void> {
  const { flags, positionals } = readArgs(argv, knownFlags);
  if (positionals.length === 0) {
    if (flags.version) io.stdout(`siphon ${siphonVersion()}\n`);
    else if (flags.help || Object.keys(flags).length === 0) io.stdout(overview());
    else throw new UsageError('no command given');
    return;
  }
  if (positionals[0] === 'help') {
    io.stdout(positionals.length === 1 ? overview() : commandHelp(commandNamed(positionals.slice(1))));
    return;
  }
  const command = findCommand(positionals);
  if (!command) throw unknownCommand(positionals);
  if (flags.help) {
    io.stdout(commandHelp(command));
    return;
  }

  // Every mistake is found before anything is created.
  const takes = flagsOf(command);
  for (const flag of Object.keys(flags)) {
    if (!takes.has(flag)) throw new UsageError(`${command.name} does not take --${flag}`, command.name);
  }
  const args = positionals.slice(command.name.split(' ').length);
  const optional = command.args.filter((a) => a.startsWith('[')).length;
  if (args.length > command.args.length || args.length < command.args.length - optional) {
    const takesWhat =
      command.args.length === 0 ? 'no arguments' : command.args.length === 1 ? 'one argument' : `${command.args.length} arguments`;
    throw new UsageError(
      `${command.name} takes ${optional > 0 ? 'at most ' : ''}${takesWhat}${command.args.length > 0 ? ` (${command.args.join(' ')})` : ''}`,
      command.name,
    );
  }
  for (const flag of command.required ?? []) {
    if (flags[flag] === undefined)
      throw new UsageError(`${command.name} needs --${flag} ${(commandFlags[flag] as FlagDoc).metavar ?? ''}`.trimEnd(), command.name);
  }
  const settingTexts = Object.fromEntries(Object.entries(flags).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  const resolved = resolveSettings(settingsOf(command), settingTexts, io.env, io.cwd);
  await command.run({
    args,
    flags: flags as Partial<Record<CommandFlag, string | boolean | string[]>>,
    config: configWith(resolved.values),
    resolved,
    io,
  });
}

/** Errors that are told in one line: mistakes of the caller, and conditions of the machine said in Node's words. */
function oneLine(err: unknown): string | undefined {
  if (err instanceof UsageError) {
    return `${err.message}\nRun 'siphon help${err.command ? ` ${err.command}` : ''}' for usage.`;
  }
  if (
    err instanceof SettingInvalid ||
    err instanceof CommandFailed ||
    err instanceof SiphonError ||
    err instanceof PoolStartError ||
    err instanceof SqliteBuildError
  )
    return err.message;
  // siphon.db busy, read-only, damaged or on a full disk.
  if (err instanceof Database.SqliteError) return `SQLite: ${err.code}: ${err.message}`;
  // PostgreSQL refused a connection or a statement: its own message says why (never the URL, which may hold a password).
  if (err instanceof StoreUnavailable) return err.message;
  // listen EADDRINUSE and the like: the system's own message says it.
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string') return err.message;
  return undefined;
}

/** Runs the command `argv` names; resolves with its exit status, having said why on stderr when it is 1. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    await run(argv, io);
    return 0;
  } catch (err) {
    io.stderr(`siphon: ${oneLine(err) ?? (err instanceof Error ? err.stack : String(err))}\n`);
    return 1;
  }
}

/** `bin/siphon`: the command of this process's arguments, on its own streams. */
export async function runProcess(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), processIo());
}
