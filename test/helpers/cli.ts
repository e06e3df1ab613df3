import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { nodeFlags } from '../../src/cli/node-flags.js';
import { allSettings, envName } from '../../src/config/settings.js';
import { logRecords } from './log-lines.js';
import { onExit } from './on-exit.js';
import { collectOutput, runToEnd, type Ran } from './processes.js';
import { siphonBin } from './paths.js';

export type CliResult = Ran;

export interface CliOptions {
  /** Passed as the global --data-dir flag, before the command. */
  dataDir?: string;
  /** Added to the environment. Every setting's variable (and PORT) is removed first, so the caller's shell cannot leak in. */
  env?: Record<string, string>;
  cwd?: string;
  /** Piped to the command's stdin (closed at once when absent). */
  input?: string;
  /** Run by the real `bin/siphon` in a process of its own, as `serve` always is (see runCli). */
  ownProcess?: boolean;
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const setting of allSettings) {
    for (const name of [envName(setting), ...(setting.fallbackEnv ?? [])]) delete env[name];
  }
  return { ...env, ...extra };
}

function cliArgs(args: string[], dataDir: string | undefined): string[] {
  return [siphonBin, ...(dataDir === undefined ? [] : ['--data-dir', dataDir]), ...args];
}

/** Node's arguments to run `bin/siphon` with `args` in a process of its own, with the Node flags its first line names. */
const nodeArgs = (args: string[], dataDir: string | undefined) => [...nodeFlags, ...cliArgs(args, dataDir)];

/** Runs the real `bin/siphon` in a process of its own to completion and collects what it printed. */
function runCliProcess(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return runToEnd(process.execPath, nodeArgs(args, opts.dataDir), { cwd: opts.cwd, env: childEnv(opts.env), input: opts.input });
}

/** `serve`, unless it only prints (its help or its settings): it serves until stopped, then ends its process. */
const serves = (args: readonly string[]) => args[0] === 'serve' && !args.some((a) => /^--(help|print-config)(=|$)/.test(a));

/**
 * Runs a command as `bin/siphon` does, but in this process: the same `main()` with the same
 * arguments, environment (that of `opts`), working folder and stdin, its stdout and stderr collected
 * and its exit status returned. Each of the suite's ~300 commands would otherwise cost a Node start-up
 * (~0.1 s of CPU); the process itself is shown by the tests that ask for `ownProcess`. `serve` always
 * runs in a process of its own.
 */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  if (opts.ownProcess || serves(args)) return runCliProcess(args, opts);
  let stdout = '';
  let stderr = '';
  const decoder = new TextDecoder();
  const code = await main(cliArgs(args, opts.dataDir).slice(1), {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    output: new Writable({
      write(chunk: Buffer, _encoding, done) {
        stdout += decoder.decode(chunk, { stream: true });
        done();
      },
    }),
    stderrIsTTY: false,
    stdin: Readable.from(opts.input === undefined ? [] : [opts.input]),
    env: childEnv(opts.env),
    cwd: opts.cwd ?? process.cwd(),
  });
  return { code, signal: null, stdout, stderr };
}

/** Runs the CLI and fails with everything it printed unless it exits 0. */
export async function runCliOk(args: string[], opts: CliOptions = {}): Promise<string> {
  const r = await runCli(args, opts);
  if (r.code !== 0) throw new Error(`siphon ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Creates an account through the CLI and returns its first key (the one line `user add` prints). */
export async function addUser(dataDir: string, name: string): Promise<string> {
  return (await runCliOk(['user', 'add', name], { dataDir })).trim();
}

/** A port nobody listens on right now, for when the test must choose the port itself. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** http://host:port as the start-up record says. */
  base: string;
  port: number;
  banner: string;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited, with its exit code or the signal that killed it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The start-up record (or line, for a person) saying where the service is, in either log format: its message and the URL. */
function findBanner(stdout: string): { message: string; base: string } | undefined {
  const pretty = /^(Siphon is serving \S+ at (http:\/\/\S+))\r?$/m.exec(stdout);
  if (pretty) return { message: pretty[1]!, base: pretty[2]! };
  const record = logRecords(stdout).find((r) => String(r.msg).startsWith('Siphon is serving '));
  return record ? { message: String(record.msg), base: String(record.url) } : undefined;
}

/** `text` as one word of a POSIX shell's command line. */
const shellWord = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * Starts `bin/siphon serve` as a child process and waits for its banner, which is the only
 * reliable sign it is listening (and tells the port when it picked one itself). It runs two query
 * processes unless `--query-processes` or `SIPHON_QUERY_PROCESSES` says otherwise.
 * `terminal`: in a pseudo-terminal, as a person runs it (util-linux's `script`, its exit status
 * serve's): its stdout and stderr both read from the `child`'s stdout, its keyboard `child.stdin`
 * (Ctrl-C, `\x03`, sends SIGINT).
 */
export function startServe(args: string[], opts: CliOptions & { timeoutMs?: number; terminal?: boolean } = {}): Promise<ServeProcess> {
  // Two query processes unless the test says otherwise: the default (two per core, plus two) costs
  // a second of CPU at every start, with other test files running beside.
  const env = { SIPHON_QUERY_PROCESSES: '2', ...opts.env };
  const command = [process.execPath, ...nodeArgs(['serve', ...args], opts.dataDir)];
  const [program, programArgs] = opts.terminal
    ? // `exec`: serve is the terminal's process itself, not a child of the shell `script` starts
      // (the login shell, else /bin/sh, whose dash dies of the Ctrl-C's SIGINT beside serve: status 130).
      ['script', ['--quiet', '--return', '--command', `exec ${command.map(shellWord).join(' ')}`, '/dev/null']]
    : [command[0]!, command.slice(1)];
  const child = spawn(program, programArgs, {
    cwd: opts.cwd,
    env: childEnv(env),
    stdio: [opts.terminal ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  // A serve still running when the test file ends (a failed test, a file past its timeout) would
  // run on for ever, holding its port and query processes: SIGKILL, which its query processes notice too.
  onExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // A serve process logs every request to stdout: read as it comes.
  const { stdout, stderr } = collectOutput(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no banner in time. stdout: ${stdout()}\nstderr: ${stderr()}`));
    }, opts.timeoutMs ?? 60_000);
    const onData = () => {
      const banner = findBanner(stdout());
      if (!banner) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      const { base } = banner;
      resolve({
        child,
        base,
        port: Number(new URL(base).port),
        banner: banner.message,
        stdout,
        stderr,
        exited,
      });
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before its banner. stdout: ${stdout()}\nstderr: ${stderr()}`));
    });
  });
}

/** Every file (not folder) under `dir`, as paths relative to it; none when `dir` does not exist. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** Opens a data folder's siphon.db read-only, to check what Siphon recorded without changing it. */
export function openMeta(dataDir: string): Database.Database {
  return new Database(path.join(dataDir, 'siphon.db'), { readonly: true, fileMustExist: true });
}

export interface DownloadRow {
  id: number;
  scraper_id: number;
  account_id: number;
  key_id: number;
  at: string;
  format: string;
  query: string | null;
  status: number;
  rows: number | null;
  bytes: number;
  duration_ms: number;
}

export function readDownloads(dataDir: string): DownloadRow[] {
  const db = openMeta(dataDir);
  try {
    return db.prepare('select * from downloads order by id').all() as DownloadRow[];
  } finally {
    db.close();
  }
}

/** Row counts of the metadata tables, or all zero when siphon.db was never created. */
export function countRows(dataDir: string): { accounts: number; api_keys: number; scrapers: number; downloads: number } {
  if (!existsSync(path.join(dataDir, 'siphon.db'))) return { accounts: 0, api_keys: 0, scrapers: 0, downloads: 0 };
  const db = openMeta(dataDir);
  try {
    const n = (t: string) => db.prepare(`select count(*) from ${t}`).pluck().get() as number;
    return { accounts: n('accounts'), api_keys: n('api_keys'), scrapers: n('scrapers'), downloads: n('downloads') };
  } finally {
    db.close();
  }
}

/** Polls `check` until it holds; fails after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promise`, or a rejection naming `what` if it has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
    }),
  ]);
}
