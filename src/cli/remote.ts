import { Readable } from 'node:stream';
import { UsageError } from './args.js';
import { CommandFailed } from './command-failed.js';
import type { CommandRun } from './commands.js';

/** A running Siphon as `query` and `download` reach it: its address, and the key they ask with. */
export interface Remote {
  /** The base URL, without a trailing slash. */
  base: string;
  key: string;
  /** The scraper's path: `/owner/name`, each part URL-encoded. */
  scraper: string;
}

export const defaultServer = 'http://127.0.0.1:3000';

/** A flag's text, else a variable's (an empty one counts as unset). */
const flagOrEnv = (flag: unknown, value: string | undefined) => (typeof flag === 'string' ? flag : value || undefined);

/** The server, key and scraper a remote command names; every mistake found before anything is sent. */
export function remoteOf(run: CommandRun, command: string): Remote {
  const server = flagOrEnv(run.flags.server, run.io.env.SIPHON_SERVER) ?? defaultServer;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`--server must be an http or https URL such as ${defaultServer}, not ${JSON.stringify(server)}`, command);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--server must be an http or https URL such as ${defaultServer}, not ${JSON.stringify(server)}`, command);
  const key = flagOrEnv(run.flags.key, run.io.env.SIPHON_KEY);
  if (key === undefined) throw new UsageError(`${command} needs an API key: set $SIPHON_KEY (or give --key KEY)`, command);
  // A key given as an argument shows in ps for as long as the process runs: the title replaces the arguments.
  if (typeof run.flags.key === 'string') process.title = `siphon ${command}`;
  const parts = run.args[0]!.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1])
    throw new UsageError(`name the scraper as OWNER/SCRAPER, not ${JSON.stringify(run.args[0])}`, command);
  return { base: url.href.replace(/\/+$/, ''), key, scraper: `/${parts.map(encodeURIComponent).join('/')}` };
}

/** The server as errors name it: never a user or password its URL may hold. */
const shown = (remote: Remote) => {
  const url = new URL(remote.base);
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
};

/** Why a request got no answer, in a few words: Node's code for the common cases. */
function unreachable(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is Siphon running there?)',
    ENOTFOUND: 'no such host',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
  };
  return (cause?.code && words[cause.code]) ?? cause?.message ?? (err as Error).message;
}

/**
 * Asks the data API for `format` of the scraper, with `params` and the key in X-API-Key only: a
 * query in a POST body (no URL limit, and out of proxies' logs), the SQLite file in a GET (the one
 * method a byte range is defined for; its only parameter is `dl`), with `headers` (a `Range`).
 * Answers the response when it is a success, or a 416 to a `Range`; an error answer is told in one
 * line with its SIPHON_ERR_* code, never the key.
 */
export async function askData(
  remote: Remote,
  format: string,
  params: Record<string, string>,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<Response> {
  // A database file is sent as it is, with its length (for the time left); compressed, it would come without.
  const coding: Record<string, string> = format === 'sqlite' ? { 'Accept-Encoding': 'identity' } : {};
  const url = `${remote.base}${remote.scraper}/data.${format}`;
  const body = new URLSearchParams(params);
  const byPost = params.query !== undefined;
  let response: Response;
  try {
    response = await fetch(byPost ? url : `${url}?${body}`, {
      method: byPost ? 'POST' : 'GET',
      headers: {
        'X-API-Key': remote.key,
        ...(byPost ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        ...coding,
        ...headers,
      },
      body: byPost ? body : undefined,
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new CommandFailed(`cannot reach Siphon at ${shown(remote)}: ${unreachable(err)}`);
  }
  if (response.ok || (response.status === 416 && headers.Range !== undefined)) return response;
  const text = await response.text().catch(() => '');
  let message: string;
  try {
    message = String((JSON.parse(text) as { error: unknown }).error);
  } catch {
    message = `${shown(remote)} answered HTTP ${response.status}, not as Siphon does`;
  }
  const code = response.headers.get('siphon-error-code') ?? `HTTP ${response.status}`;
  throw new CommandFailed(`${code}: ${message.replaceAll(remote.key, '(key)')}`);
}

/** The response's body as a Node stream; a body cut short fails it with a message saying so. */
export function bodyOf(response: Response): Readable {
  if (!response.body) return Readable.from([]);
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
}

/** An error met while reading an answer, as the one line a person is told. */
export function cutShort(err: unknown): CommandFailed {
  if (err instanceof CommandFailed) return err;
  return new CommandFailed(`the answer was cut short (${unreachable(err)}): the server stopped or the query failed part way`);
}
