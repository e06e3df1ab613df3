import { keptCounters } from '../accounts/login-throttle.js';
import { maxPasswordChars, minPasswordChars } from '../accounts/passwords.js';
import { sessionSweepMs } from '../accounts/session-store.js';
import type { Config } from '../config.js';
import { settings } from '../config/settings.js';
import { maxPathSegmentChars, requestLimits } from '../limits/request-size.js';
import { maxDescriptionChars, maxFormBytes } from '../limits/web-forms.js';
import { finishGraceMs } from '../pool/slot.js';
import { count } from './text.js';

/** One bound a request meets: what it bounds, its value for a config, and how an operator sets it (Markdown). */
export interface LimitDoc {
  what: string;
  value(config: Config): string;
  /** The value as docs/api.md gives it, when the default depends on the machine. */
  defaultDoc?: string;
  setWith: string;
}

const flag = (key: keyof Config) => `\`--${settings[key].flag} ${settings[key].metavar}\``;
const seconds = (ms: number) => `${count(ms / 1000)} s`;
const bytes = (config: Config) => count(requestLimits(config.maxQueryChars).maxUrlBytes);
const spanUnits: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'h'],
  [60_000, 'min'],
];
/** A span set in seconds, also in its largest whole unit: `15 min (900 s)`, `7 days (604,800 s)`. */
const span = (ms: number) => {
  const [size, unit] = spanUnits.find(([size]) => ms >= size && ms % size === 0) ?? [];
  if (size === undefined) return seconds(ms);
  const n = ms / size;
  return `${count(n)} ${unit === 'day' && n !== 1 ? 'days' : unit} (${seconds(ms)})`;
};
/** The client's address: the TCP peer, or with `--trust-proxy` the one `X-Forwarded-For` gives. */
const address = "the client's address: the peer's, or with `--trust-proxy` the one `X-Forwarded-For` gives";

/** Every bound a request can meet, in the order docs/api.md lists them; the flags are read from the settings. */
export const limitDocs: LimitDoc[] = [
  {
    what: 'Time one query may hold its query process: from its start until SQLite has produced its last row, including any wait on a full spool (below); not the time its client takes to read.',
    value: (c) => seconds(c.queryTimeoutMs),
    setWith: flag('queryTimeoutMs'),
  },
  {
    what: "Time a query whose client went away may still hold its query process, counted from the query's start: one that ends within it is let finish, its output dropped (starting a new process costs more); one still working then is stopped, its process killed and replaced. Its key's slot stays taken until its process is free.",
    value: () => `${count(finishGraceMs)} ms`,
    setWith: '—',
  },
  {
    what: 'Lifetime of one response, from its first byte: past it the body is cut short (as for any failure after the first byte), however fast or slow the client.',
    value: (c) => seconds(c.maxResponseMs),
    setWith: flag('maxResponseMs'),
  },
  {
    what: "A client that takes no bytes for this long while its response waits on it is dropped; so is one that sends no bytes of a publish's body for this long.",
    value: (c) => seconds(c.clientIdleTimeoutMs),
    setWith: flag('clientIdleTimeoutMs'),
  },
  {
    what: 'Query processes (each runs one query at a time)',
    value: (c) => count(c.queryProcesses),
    defaultDoc: '2 × cores + 2 (6 on 2 cores)',
    setWith: flag('queryProcesses'),
  },
  {
    what: 'Long queries (working over 1 s) running at once; one more turning long is paused until one ends',
    value: (c) => count(c.longQueries),
    defaultDoc: '2 × cores (4 on 2 cores)',
    setWith: flag('longQueries'),
  },
  {
    what: 'Queries of one key running at once; its further ones wait in its own queue',
    value: (c) => count(c.keyConcurrency),
    setWith: flag('keyConcurrency'),
  },
  { what: 'Queries of one key waiting; beyond this, 429', value: (c) => count(c.keyQueue), setWith: flag('keyQueue') },
  {
    what: "Queries waiting, all keys together; beyond this, 503 at once (a few more per process wait sent ahead to it, each holding its key's slot as if it ran, and one taken back waits first in line, past this limit)",
    value: (c) => count(c.queueLimit),
    setWith: flag('queueLimit'),
  },
  {
    what: 'Time a query may wait for a process; then 503 (at most 300 s, so that versions a queued query looked up are still on disk)',
    value: (c) => seconds(c.queueTimeoutMs),
    setWith: flag('queueTimeoutMs'),
  },
  {
    what: 'Data requests per key per minute (fixed one-minute windows; `0` turns it off); beyond, 429',
    value: (c) => (c.rateLimitPerMinute > 0 ? count(c.rateLimitPerMinute) : 'no limit'),
    setWith: flag('rateLimitPerMinute'),
  },
  {
    what: 'Table and row pages per visitor address per minute (fixed one-minute windows; `0` turns it off); beyond, 429',
    value: (c) => (c.pagesPerMinute > 0 ? count(c.pagesPerMinute) : 'no limit'),
    setWith: flag('pagesPerMinute'),
  },
  {
    what: 'Output a client has not read yet, kept on disk per response (the first 1 MB in memory)',
    value: (c) => `${count(c.spoolResponseMb)} MB`,
    setWith: flag('spoolResponseMb'),
  },
  {
    what: 'The same, all responses together; past either, the query process waits for its client, and that wait counts as query time',
    value: (c) => `${count(c.spoolTotalMb)} MB`,
    setWith: flag('spoolTotalMb'),
  },
  {
    what: 'Rows of each rowid range of a whole-table export (`select * from <table>` in json, csv or ndjson, in any coding) that a second query process runs while one is idle and no query waits; `0` never splits',
    value: (c) => (c.exportRangeRows > 0 ? count(c.exportRangeRows) : 'never split'),
    setWith: flag('exportRangeRows'),
  },
  {
    what: "Queries sent ahead to a query process still running another, to run right after it without the process going to sleep; each waits there 20 ms at most, then is taken back and queued again first of its key's; `0` sends none ahead",
    value: (c) => (c.queriesAhead > 0 ? count(c.queriesAhead) : 'none'),
    setWith: flag('queriesAhead'),
  },
  {
    what: 'Address space of each query process (`ulimit -v`); a query needing more fails with 400',
    value: (c) => `${count(c.queryMemoryMb)} MB`,
    setWith: flag('queryMemoryMb'),
  },
  {
    what: "Temporary disk of a query: its temporary files together (SQLite's sorts, groupings and temporary tables, in `<data>/tmp`), looked at while it runs, and each one (`ulimit -f`); a query needing more is stopped and fails with 400",
    value: (c) => `${count(c.queryTempMb)} MB`,
    setWith: flag('queryTempMb'),
  },
  {
    what: "Free space kept on the data disk: a query's temporary files that reach it stop the query (400), a publish that would take it is refused with 507 (`0` keeps none)",
    value: (c) => (c.diskReserveBytes > 0 ? `${count(c.diskReserveBytes / 1024 / 1024)} MB` : 'none'),
    setWith: `${flag('diskReserveBytes')} (also \`scraper add\`/\`publish --disk-reserve-mb MB\`)`,
  },
  {
    what: 'Length of the SQL text (the URL, header and POST body bounds below follow it)',
    value: (c) => `${count(c.maxQueryChars)} characters`,
    setWith: flag('maxQueryChars'),
  },
  {
    what: 'Length of a URL: any SQL up to the limit above fits, each character percent-encoded from 3 bytes of UTF-8; beyond, 414',
    value: (c) => `9 bytes a character of the SQL limit + 8 KB (${bytes(c)} bytes)`,
    setWith: `follows ${flag('maxQueryChars')}`,
  },
  {
    what: "A name in a URL's path (owner, scraper, `data.<format>`); beyond, 414",
    value: () => `${maxPathSegmentChars} characters`,
    setWith: '—',
  },
  {
    what: "Header fields; beyond, 431. Node's parser holds the request line and headers to the two bounds together, so each connection's unparsed head is bounded",
    value: (c) => `${count(requestLimits(c.maxQueryChars).maxHeaderFieldBytes / 1024)} KB`,
    setWith: '—',
  },
  {
    what: "A query's POST body; beyond, 413",
    value: (c) => `the URL's bound (${bytes(c)} bytes)`,
    setWith: `follows ${flag('maxQueryChars')}`,
  },
  {
    what: "Time for a request's headers to arrive (408), and for a POST's or publish's body to send its next byte (408)",
    value: (c) => `the client idle time (${seconds(c.clientIdleTimeoutMs)})`,
    setWith: flag('clientIdleTimeoutMs'),
  },
  {
    what: 'Size of a published database (the disk needs twice this free for a moment: the upload and its imported copy)',
    value: (c) => `${count(c.maxPublishBytes / 1024 / 1024)} MB`,
    setWith: flag('maxPublishBytes'),
  },
  {
    what: 'Time to import a published database (copy and check), over HTTP or with the CLI; a longer import is stopped and refused with 400',
    value: (c) => seconds(c.importTimeoutMs),
    setWith: `${flag('importTimeoutMs')} (also \`scraper add\`/\`publish --import-timeout SECONDS\`)`,
  },
  {
    what: 'Address space of the import process (`ulimit -v`); an import needing more is refused with 400',
    value: (c) => `the query processes' (${count(c.queryMemoryMb)} MB)`,
    setWith: flag('queryMemoryMb'),
  },
  {
    what: 'Wrong passwords for one account within the login window; beyond, sign-ins for it are refused with 429 until the window (from its first failure) ends, even with the right password',
    value: (c) => `${count(c.loginFailures)} per ${span(c.loginWindowMs)}`,
    setWith: `${flag('loginFailures')}, ${flag('loginWindowMs')}`,
  },
  {
    what: `Wrong passwords from one address within the login window, whatever the account (${address}); beyond, 429`,
    value: (c) => `${count(c.loginFailuresPerAddress)} per ${span(c.loginWindowMs)}`,
    setWith: flag('loginFailuresPerAddress'),
  },
  {
    what: `Sign-ups from one address within the login window (${address}), each counted once its fields are accepted, as it costs a password hash; beyond, 429 (\`0\` turns it off)`,
    value: (c) => (c.signupsPerAddress > 0 ? `${count(c.signupsPerAddress)} per ${span(c.loginWindowMs)}` : 'no limit'),
    setWith: flag('signupsPerAddress'),
  },
  {
    what: `Counters kept in memory for the three throttles above (the least recently counted are dropped beyond)`,
    value: () =>
      `${count(keptCounters)} accounts, ${count(keptCounters)} addresses with wrong passwords, ${count(keptCounters)} with sign-ups`,
    setWith: '—',
  },
  {
    what: `Lifetime of a web session from signing in (not extended by use); a session past it is refused at once and deleted within ${count(sessionSweepMs / 60_000)} minutes`,
    value: (c) => span(c.sessionLifetimeMs),
    setWith: flag('sessionLifetimeMs'),
  },
  {
    what: "A form body of the site's pages (sign-up, log in, keys, password, a scraper's settings, a saved query's form); beyond, 413",
    value: () => `${count(maxFormBytes / 1024)} KB`,
    setWith: '—',
  },
  {
    what: 'A password (sign-up, `/account`, `user passwd`); otherwise, 400',
    value: () => `${minPasswordChars} to ${maxPasswordChars} characters`,
    setWith: '—',
  },
  { what: "A scraper's description set on the web; beyond, 400", value: () => `${count(maxDescriptionChars)} characters`, setWith: '—' },
  {
    what: 'A database published from the web (`/{owner}/{scraper}/publish`): the same bound, checks and import limits as `PUT`',
    value: (c) => `the publish limit (${count(c.maxPublishBytes / 1024 / 1024)} MB)`,
    setWith: flag('maxPublishBytes'),
  },
  {
    what: 'Downloads waiting to be written (while the disk is full, say); beyond this, or beyond 20 million characters of their SQL, data calls are refused with 503',
    value: (c) => count(c.maxPendingDownloads),
    setWith: flag('maxPendingDownloads'),
  },
];
