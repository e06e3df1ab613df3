import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UsageError } from './args.js';
import { CommandFailed } from './command-failed.js';
import type { Command, CommandRun, FlagDoc } from './commands.js';
import { askData, bodyOf, cutShort, remoteOf, type Remote } from './remote.js';
import { saveResumable } from './resumable-download.js';
import { drawTable } from './rows-table.js';
import { byteSize } from '../utils/byte-size.js';
import { saveBody } from './save-download.js';

/** The flags of query and download. */
export const remoteFlags = {
  server: { type: 'string', metavar: 'URL', doc: 'the Siphon to ask (else $SIPHON_SERVER, else http://127.0.0.1:3000)' },
  key: {
    type: 'string',
    metavar: 'KEY',
    doc: 'the API key to ask with (else $SIPHON_KEY, which keeps it out of ps and shell history), sent in the X-API-Key header',
  },
  format: {
    type: 'string',
    metavar: 'FORMAT',
    doc: 'csv, json or ndjson (query: csv when stdout is not a terminal, a table when it is); download also takes sqlite, its default without --query',
  },
  output: {
    type: 'string',
    short: 'o',
    metavar: 'FILE',
    doc: 'the file to save to (default: the name the server gives, in the current folder; with --resume, OWNER-SCRAPER.sqlite there)',
  },
  query: {
    type: 'string',
    metavar: 'SQL',
    doc: "download this query's rows (csv unless --format says otherwise) instead of the SQLite file",
  },
  param: {
    type: 'string',
    short: 'p',
    pair: true,
    multiple: true,
    metavar: 'NAME VALUE',
    doc: "the value of the SQL's :NAME parameter (the leading colon may be left out), always bound as text, never put into the SQL; repeatable",
  },
  resume: {
    type: 'boolean',
    doc: 'the SQLite file only: continue what an interrupted download --resume to the same file kept, and keep what this one gets if it is interrupted',
  },
} satisfies Record<string, FlagDoc>;

const queryFormats = ['csv', 'json', 'ndjson'];
const downloadFormats = ['sqlite', ...queryFormats];

/** The -p NAME VALUE pairs as the data API takes them: `:NAME=VALUE`. A name given twice, or empty, is a mistake. */
function namedValues(run: CommandRun, command: string): Record<string, string> {
  const words = (run.flags.param as string[] | undefined) ?? [];
  const values: Record<string, string> = {};
  for (let i = 0; i < words.length; i += 2) {
    const name = words[i]!.replace(/^:/, '');
    if (name === '') throw new UsageError('-p needs a parameter name, such as -p town Leura for :town', command);
    if (`:${name}` in values) throw new UsageError(`-p ${name} is given twice`, command);
    values[`:${name}`] = words[i + 1]!;
  }
  return values;
}

/** The --format asked for, checked against those the command takes. */
function formatOf(run: CommandRun, command: string, formats: readonly string[], otherwise: string): string {
  const format = (run.flags.format as string | undefined) ?? otherwise;
  if (!formats.includes(format)) throw new UsageError(`--format must be ${formats.join(', ')}, not ${JSON.stringify(format)}`, command);
  return format;
}

async function query(run: CommandRun): Promise<void> {
  const { io } = run;
  const remote = remoteOf(run, 'query');
  const table = run.flags.format === undefined && io.output.isTTY === true;
  const format = table ? 'csv' : formatOf(run, 'query', queryFormats, 'csv');
  const response = await askData(remote, format, { query: run.args[1]!, ...namedValues(run, 'query') });
  try {
    // Piped through as it comes, at the pace stdout takes it: a result of any size holds no more memory.
    if (table) await drawTable(bodyOf(response), io.stdout);
    else await pipeline(bodyOf(response), io.output, { end: false });
  } catch (err) {
    throw cutShort(err);
  }
}

/** The file name the server gives with dl=1 (its plain `filename`: ASCII letters, digits, `.`, `_` and `-` only). */
function servedName(response: Response): string | undefined {
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  return name && !/^\.+$/.test(name) ? path.basename(name) : undefined;
}

/** The name a download is saved as when neither -o nor the server gives one (and a resumable one's, which needs it before asking): OWNER-SCRAPER.FORMAT. */
const ownName = (run: CommandRun, format: string) => `${run.args[0]!.replace('/', '-').replace(/[^A-Za-z0-9._-]/g, '_')}.${format}`;

/** Saves what the server answers to the file -o names, else to the name the server gives. */
async function saveAnswer(run: CommandRun, remote: Remote, format: string, params: Record<string, string>, signal: AbortSignal) {
  const response = await askData(remote, format, params, signal);
  const name = (run.flags.output as string | undefined) ?? servedName(response) ?? ownName(run, format);
  return { name, bytes: await saveBody(run.io, response, path.resolve(run.io.cwd, name), signal), resumedFrom: 0 };
}

/** Saves the SQLite file with --resume: its name must be known before asking, to find what an earlier try kept. */
async function saveResumed(run: CommandRun, remote: Remote, signal: AbortSignal) {
  const name = (run.flags.output as string | undefined) ?? ownName(run, 'sqlite');
  return { name, ...(await saveResumable(run.io, remote, path.resolve(run.io.cwd, name), signal)) };
}

async function download(run: CommandRun): Promise<void> {
  const { io, flags } = run;
  const remote = remoteOf(run, 'download');
  const sql = flags.query as string | undefined;
  const format = formatOf(run, 'download', downloadFormats, sql === undefined ? 'sqlite' : 'csv');
  if (format === 'sqlite' && sql !== undefined)
    throw new UsageError('--query gives rows: download them as csv, json or ndjson', 'download');
  if (format !== 'sqlite' && sql === undefined)
    throw new UsageError(`--format ${format} needs --query SQL (the whole database is --format sqlite)`, 'download');
  if (flags.resume === true && format !== 'sqlite')
    throw new UsageError("--resume continues the SQLite file only: a query's rows are made anew at each call", 'download');
  const values = namedValues(run, 'download');
  if (sql === undefined && Object.keys(values).length > 0)
    throw new UsageError('-p gives a value to a parameter of --query SQL', 'download');
  const aborts = new AbortController();
  const abort = () => aborts.abort();
  process.once('SIGINT', abort).once('SIGTERM', abort);
  try {
    const params = { dl: '1', ...(sql === undefined ? {} : { query: sql }), ...values };
    const saved = await (
      flags.resume === true ? saveResumed(run, remote, aborts.signal) : saveAnswer(run, remote, format, params, aborts.signal)
    ).catch((err: unknown) => {
      throw aborts.signal.aborted && !(err instanceof CommandFailed) ? new CommandFailed('interrupted: nothing was saved') : err;
    });
    const continued = saved.resumedFrom > 0 ? `, continued from ${byteSize(saved.resumedFrom)}` : '';
    io.stdout(`saved ${saved.name} (${byteSize(saved.bytes)}${continued})\n`);
  } finally {
    process.off('SIGINT', abort).off('SIGTERM', abort);
  }
}

/** The commands that ask a running Siphon over HTTP, rather than working on its data folder. */
export const remoteCommands: readonly Command[] = [
  {
    name: 'query',
    args: ['OWNER/SCRAPER', 'SQL'],
    flags: ['server', 'key', 'format', 'param'],
    settings: [],
    store: false,
    summary: "run SQL on a running Siphon's scraper (-p NAME VALUE for its :NAME); rows to stdout",
    about:
      'Runs one SQL query on a scraper of a running Siphon (--server, else $SIPHON_SERVER, else http://127.0.0.1:3000) with an API key (--key, else $SIPHON_KEY; sent in the X-API-Key header, never shown). ' +
      "The SQL may name parameters, :town, each given its value by -p town Leura (sent as the data API's :town=Leura, and bound as text). " +
      'At a terminal the rows are drawn as a table (columns at most 40 characters wide) followed by how many there were; otherwise, or with --format, they are written as csv (the default), json or ndjson, streamed as the server sends them. ' +
      'An error is one line on stderr with its SIPHON_ERR_* code, and exit status 1.',
    run: query,
  },
  {
    name: 'download',
    args: ['OWNER/SCRAPER'],
    flags: ['server', 'key', 'format', 'output', 'query', 'param', 'resume'],
    settings: [],
    store: false,
    summary: "save a running Siphon's scraper (its SQLite file, or a query's rows) to a file",
    about:
      "Saves a scraper of a running Siphon to a file: its whole SQLite database by default, or with --query the query's rows (csv by default, or --format json or ndjson). " +
      'The file is the name the server gives (owner-scraper.sqlite, say) in the current folder unless -o says otherwise; it is written under a temporary name beside it and renamed when complete, ' +
      'so an interrupted download (the server gone, a body cut short, Ctrl-C) leaves no file under that name, and removes its temporary file. ' +
      'With --resume (the SQLite file only) the temporary file is kept instead, named after the data it holds, and the next download --resume to the same file (-o, else OWNER-SCRAPER.sqlite) continues it from where it stopped, or starts over when the data changed since; either way the file is whole when renamed. ' +
      'At a terminal a progress line on stderr shows the bytes, the rate and, when the size is known, the time left. Server and key as for query.',
    run: download,
  },
];
