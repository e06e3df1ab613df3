import { defaultValue, envName, settings, type Setting } from '../config/settings.js';
import { commandFlags, commands, type Command, type CommandFlag, type FlagDoc } from './commands.js';

const flagDoc = (name: CommandFlag): FlagDoc => commandFlags[name];

/** Text cut into lines of at most `width` characters, between words. */
function wrap(text: string, width = 100): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/** Two columns, the right one wrapped under itself so that lines stay within 100 characters. */
function indent(rows: readonly [string, string][]): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  const hang = `\n${' '.repeat(width + 4)}`;
  return rows
    .map(([left, right]) => `  ${left.padEnd(width)}  ${wrap(right, Math.max(40, 100 - width - 4)).replaceAll('\n', hang)}\n`)
    .join('');
}

/** The commands that read no store, as the overview names them: `query, download and completion`. */
function storeless(): string {
  const names = commands.filter((c) => c.store === false).map((c) => c.name);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
}

/** `siphon help`: every command in one line each. */
export function overview(): string {
  return (
    'Usage: siphon [--data-dir DIR] <command> [arguments] [options]\n\nCommands:\n' +
    indent([
      ...commands.map((c): [string, string] => [[c.name, ...c.args].join(' '), c.summary]),
      ['help [COMMAND]', "this list, or a command's usage and options"],
    ]) +
    `\n${wrap(
      `Every command takes --help, and all but ${storeless()} take --data-dir DIR (else $${envName(settings.dataDir)}, else ./data) ` +
        `and --database-url URL (else $${envName(settings.databaseUrl)}, else siphon.db in the data folder).`,
    )}\n` +
    "Run 'siphon help COMMAND' (or 'siphon COMMAND --help') for a command's options; 'siphon help serve' lists\n" +
    "serve's settings, each a flag and a SIPHON_* environment variable. 'siphon --version' prints the version.\n"
  );
}

const flagWords = (name: string, metavar?: string) => `--${name}${metavar ? ` ${metavar}` : ''}`;

/** A setting's line: its doc, variable and default, in the flag's unit. */
function settingRow(setting: Setting): [string, string] {
  const shown = setting.defaultDoc ?? setting.show(defaultValue(setting.key) as never);
  return [flagWords(setting.flag, setting.metavar), `${setting.doc} ($${envName(setting)}; default ${shown})`];
}

/** `siphon help COMMAND`: its usage line, what it does, and each of its options. */
export function commandHelp(command: Command): string {
  const own = command.flags.map((name) => {
    const flag = flagDoc(name);
    const words = `${flagWords(name, flag.metavar)}${flag.multiple ? '...' : ''}`;
    return command.required?.includes(name) ? words : `[${words}]`;
  });
  const commandSettings = command.settings.map((key) => settings[key] as Setting);
  const usage = [
    'Usage: siphon',
    command.name,
    ...command.args,
    ...own,
    ...(commandSettings.length > 8 ? ['[SETTINGS]'] : commandSettings.map((s) => `[${flagWords(s.flag, s.metavar)}]`)),
  ].join(' ');
  const options = indent([
    ...command.flags.map((name): [string, string] => {
      const flag = flagDoc(name);
      return [`${flag.short ? `-${flag.short}, ` : ''}${flagWords(name, flag.metavar)}`, flag.doc];
    }),
    ...commandSettings.map(settingRow),
    ...(command.store === false ? [] : [settingRow(settings.dataDir as Setting), settingRow(settings.databaseUrl as Setting)]),
    ['-h, --help', 'print this help'],
  ]);
  return `${usage}\n\n${wrap(command.about)}\n\n${commandSettings.length > 8 ? 'Options and settings' : 'Options'}:\n${options}`;
}
