import { isIP } from 'node:net';
import path from 'node:path';
import { defaults, maxKeptDays, maxKeptVersions, maxQueueTimeoutMs, type Config } from '../config.js';

/** Why a value was refused, finishing "<setting> must be …". */
class Refused extends Error {}

/**
 * One setting of `serve`: the Config field it sets, its flag (`--query-timeout`; its environment
 * variable is derived from it: `SIPHON_QUERY_TIMEOUT`), the unit it is given in, how the text given
 * becomes the field's value (throwing `Refused` with what it must be), how the value is shown in that
 * unit, and one line of documentation. Usage, `--print-config` and docs/cli.md's table come from here.
 */
export interface Setting<K extends keyof Config = keyof Config> {
  key: K;
  flag: string;
  /** What the flag's value is (`SECONDS`), in the usage text. */
  metavar: string;
  /** The unit as a word, for docs/cli.md's table. */
  unit: string;
  doc: string;
  /** Other variables read when the setting's own is unset, in order. */
  fallbackEnv?: readonly string[];
  /** The default as documented, when it depends on the machine or is not a value. */
  defaultDoc?: string;
  /** A secret: an invalid value is not repeated in the error (`show` hides it too). */
  secret?: true;
  /** `cwd`: what a relative folder is relative to (the command's working folder). */
  parse(text: string, cwd: string): Config[K];
  show(value: Config[K]): string;
}

/** Node's timers cannot wait longer (2^31 − 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimerSeconds = Math.floor((2 ** 31 - 1) / 1000);

type NumberKey = { [K in keyof Config]-?: Config[K] extends number ? K : never }[keyof Config];

/**
 * A number given in `unit` and kept as `factor` times it. `zeroOff`: 0 is allowed and turns the limit
 * off. A count is whole; seconds and megabytes may be fractions, but not so small that they round to 0.
 */
function numberSetting<K extends NumberKey>(
  key: K,
  flag: string,
  unit: 'seconds' | 'count' | 'megabytes',
  doc: string,
  opts: { factor?: number; max?: number; zeroOff?: true; defaultDoc?: string } = {},
): Setting<K> {
  const factor = opts.factor ?? 1;
  const max = opts.max ?? (unit === 'seconds' ? maxTimerSeconds : Number.MAX_SAFE_INTEGER);
  const what =
    unit === 'count'
      ? `a whole number${opts.zeroOff ? ' (0 turns it off)' : ' above 0'}`
      : `a positive number of ${unit}${opts.zeroOff ? ' (0 turns it off)' : ''}`;
  return {
    key,
    flag,
    doc,
    unit,
    defaultDoc: opts.defaultDoc,
    metavar: unit === 'count' ? 'N' : unit === 'seconds' ? 'SECONDS' : 'MB',
    parse(text) {
      const n = Number(text);
      const kept = Math.round(n * factor);
      const ok =
        text.trim() !== '' &&
        Number.isFinite(n) &&
        n <= max &&
        (unit !== 'count' || Number.isInteger(n)) &&
        (kept >= 1 || (opts.zeroOff === true && n === 0));
      if (!ok) throw new Refused(`${what}${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
      return kept as Config[K];
    },
    show: (value) => String((value as number) / factor),
  };
}

function textSetting<K extends 'host' | 'logLevel' | 'signup'>(
  key: K,
  flag: string,
  metavar: string,
  unit: string,
  doc: string,
  check: (text: string) => boolean,
  what: string,
): Setting<K> {
  return {
    key,
    flag,
    metavar,
    unit,
    doc,
    parse(text) {
      if (!check(text)) throw new Refused(what);
      return text as Config[K];
    },
    show: (value) => String(value),
  };
}

/**
 * A public URL as the base of absolute links: an http(s) URL without credentials, query or fragment,
 * returned without its trailing slash; undefined when the text is not one.
 */
function publicBaseUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const ok = (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !/[?#]/.test(url.href);
  return ok ? url.href.replace(/\/+$/, '') : undefined;
}

/** A port from 0 (a free one) to 65535, or Refused. */
function parsePort(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535) throw new Refused('a port number from 0 to 65535');
  return n;
}

/** proxy-addr's names for the loopback, link-local and private ranges (IPv4 and IPv6). */
const proxyRangeNames = ['loopback', 'linklocal', 'uniquelocal'];

/** An IP address, an address/prefix-length or address/netmask range, or one of proxy-addr's names. */
function isProxyAddress(text: string): boolean {
  if (proxyRangeNames.includes(text)) return true;
  const [address, range, ...rest] = text.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  const bits = Number(range);
  return (/^\d+$/.test(range) && bits <= (family === 4 ? 32 : 128)) || isIP(range) === family;
}

/** A database URL without its user and password, for --print-config. */
function showDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '[hidden]';
  }
}

/** pino's levels. */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Every setting, in the order usage, `--print-config` and docs/cli.md list them. tsc checks each Config field has one. */
export const settings: { [K in keyof Config]-?: Setting<K> } = {
  dataDir: {
    key: 'dataDir',
    flag: 'data-dir',
    metavar: 'DIR',
    unit: 'folder',
    defaultDoc: './data',
    doc: 'the data folder: accounts, keys, scrapers and their data (every command takes it)',
    parse(text, cwd) {
      if (text === '') throw new Refused('a folder');
      return path.resolve(cwd, text);
    },
    show: (value) => value,
  },
  databaseUrl: {
    key: 'databaseUrl',
    flag: 'database-url',
    metavar: 'URL',
    unit: 'URL',
    defaultDoc: 'none: siphon.db in the data folder',
    secret: true,
    doc: 'a PostgreSQL database (postgres://user:password@host:5432/db) for accounts, keys, scrapers, downloads and rate limits, shared by several nodes (every command takes it)',
    parse(text) {
      if (!/^postgres(ql)?:\/\/[^\s]+$/.test(text)) throw new Refused('a postgres:// or postgresql:// URL with no spaces');
      return text;
    },
    // The URL may carry a password: only its host and database are shown.
    show: (value) => (value === undefined ? 'none' : showDatabaseUrl(value)),
  },
  port: {
    key: 'port',
    flag: 'port',
    metavar: 'N',
    unit: 'port',
    fallbackEnv: ['PORT'],
    doc: 'the port to listen on (0 picks a free one, which the banner tells)',
    parse: parsePort,
    show: String,
  },
  host: textSetting(
    'host',
    'host',
    'ADDR',
    'address',
    'the address to listen on (0.0.0.0 or :: for every interface)',
    (text) => isIP(text) !== 0 || /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(text),
    'an IP address or a host name',
  ),
  publicUrl: {
    key: 'publicUrl',
    flag: 'public-url',
    metavar: 'URL',
    unit: 'URL',
    defaultDoc: "none: each request's protocol and Host",
    doc: 'where clients reach the service, the base of the absolute URLs in Atom feeds (http or https, a path allowed, no query)',
    parse(text) {
      const url = publicBaseUrl(text);
      if (url === undefined) throw new Refused('an http or https URL with no query, such as https://data.example.org');
      return url;
    },
    show: (value) => value ?? 'none',
  },
  trustProxy: {
    key: 'trustProxy',
    flag: 'trust-proxy',
    metavar: 'PROXIES',
    unit: 'addresses',
    doc: 'the proxies whose X-Forwarded-For gives the client address: addresses, CIDR ranges, loopback, linklocal, uniquelocal (comma-separated), true for any, false for none',
    parse(text) {
      if (text === 'true' || text === 'false') return text === 'true';
      const items = text.split(',').map((item) => item.trim());
      if (!items.every(isProxyAddress)) {
        throw new Refused('true, false, or addresses and ranges separated by commas, such as 127.0.0.1,10.0.0.0/8 or loopback');
      }
      return items.join(',');
    },
    show: String,
  },
  logLevel: textSetting(
    'logLevel',
    'log-level',
    'LEVEL',
    'level',
    `the least severe log lines written (${logLevels.join(', ')})`,
    (text) => logLevels.includes(text),
    `one of ${logLevels.join(', ')}`,
  ),
  logFormat: {
    key: 'logFormat',
    flag: 'log-format',
    metavar: 'FORMAT',
    unit: 'auto, json or pretty',
    doc: 'json: one JSON object a line; pretty: readable lines; auto: pretty when stdout is a terminal, else json',
    parse(text) {
      if (text !== 'auto' && text !== 'json' && text !== 'pretty') throw new Refused('auto, json or pretty');
      return text;
    },
    show: String,
  },
  metricsPort: {
    key: 'metricsPort',
    flag: 'metrics-port',
    metavar: 'N',
    unit: 'port',
    defaultDoc: 'none',
    doc: 'serve /metrics on this port of --host, a listener of its own (0 picks a free one, which the banner tells)',
    parse: parsePort,
    show: (value) => (value === undefined ? 'none' : String(value)),
  },
  metricsToken: {
    key: 'metricsToken',
    flag: 'metrics-token',
    metavar: 'TOKEN',
    unit: 'secret',
    defaultDoc: 'none',
    secret: true,
    doc: '/metrics asks for Authorization: Bearer TOKEN; without --metrics-port, /metrics is then on the public port',
    parse(text) {
      if (!/^[\x21-\x7e]{16,200}$/.test(text)) throw new Refused('16 to 200 visible ASCII characters, no spaces');
      return text;
    },
    show: (value) => (value === undefined ? 'none' : '[hidden]'),
  },
  queryTimeoutMs: numberSetting('queryTimeoutMs', 'query-timeout', 'seconds', 'time one query may hold its query process', {
    factor: 1000,
  }),
  maxResponseMs: numberSetting('maxResponseMs', 'max-response-seconds', 'seconds', 'lifetime of one response from its first byte', {
    factor: 1000,
  }),
  clientIdleTimeoutMs: numberSetting(
    'clientIdleTimeoutMs',
    'client-idle-timeout',
    'seconds',
    'a client sending or taking no bytes for this long is dropped (408 while its request arrives)',
    { factor: 1000 },
  ),
  queueTimeoutMs: numberSetting(
    'queueTimeoutMs',
    'queue-timeout',
    'seconds',
    'time a query may wait for a query process (503 after)',
    // Old data versions are kept for requests that waited this long (src/scrapers/versions.ts).
    { factor: 1000, max: maxQueueTimeoutMs / 1000 },
  ),
  importTimeoutMs: numberSetting('importTimeoutMs', 'import-timeout', 'seconds', 'time to import (copy and check) a published database', {
    factor: 1000,
  }),
  queryProcesses: numberSetting('queryProcesses', 'query-processes', 'count', 'query processes, each running one query at a time', {
    defaultDoc: '2 × cores + 2',
  }),
  longQueries: numberSetting('longQueries', 'long-queries', 'count', 'queries working over 1 s that may run at once', {
    defaultDoc: '2 × cores',
  }),
  keyConcurrency: numberSetting('keyConcurrency', 'key-concurrency', 'count', 'queries of one key running at once'),
  keyQueue: numberSetting('keyQueue', 'key-queue', 'count', 'queries of one key waiting (429 beyond)'),
  queueLimit: numberSetting('queueLimit', 'queue-limit', 'count', 'queries waiting, all keys together (503 beyond)'),
  rateLimitPerMinute: numberSetting(
    'rateLimitPerMinute',
    'rate-limit',
    'count',
    'data requests per key per minute (429 beyond; 0: no limit)',
    { zeroOff: true },
  ),
  pagesPerMinute: numberSetting(
    'pagesPerMinute',
    'pages-per-minute',
    'count',
    'table and row pages per visitor address per minute (429 beyond; 0: no limit)',
    { zeroOff: true },
  ),
  maxPendingDownloads: numberSetting(
    'maxPendingDownloads',
    'max-pending-downloads',
    'count',
    'downloads waiting to be written (503 beyond)',
  ),
  maxQueryChars: numberSetting(
    'maxQueryChars',
    'max-query-chars',
    'count',
    'length of the SQL text; URLs and POST bodies are bounded to fit it',
    // The URL bound is 9 bytes a character, held per connection by Node's parser: 1,000,000 is 9 MB.
    { max: 1_000_000 },
  ),
  maxPublishBytes: numberSetting(
    'maxPublishBytes',
    'max-publish-mb',
    'megabytes',
    'size of a published database (PUT and the web upload)',
    { factor: 2 ** 20 },
  ),
  queryMemoryMb: numberSetting('queryMemoryMb', 'query-memory-mb', 'megabytes', 'address space of each query process and of an import'),
  queryTempMb: numberSetting('queryTempMb', 'query-temp-mb', 'megabytes', "a query's temporary files (sorts, temporary tables) together"),
  diskReserveBytes: numberSetting(
    'diskReserveBytes',
    'disk-reserve-mb',
    'megabytes',
    "free space of the data disk that no query's temporary files and no publish may take (0: none)",
    { factor: 2 ** 20, zeroOff: true },
  ),
  spoolResponseMb: numberSetting('spoolResponseMb', 'spool-response-mb', 'megabytes', 'output a client has not read yet, per response'),
  spoolTotalMb: numberSetting('spoolTotalMb', 'spool-total-mb', 'megabytes', 'the same, all responses together'),
  exportRangeRows: numberSetting(
    'exportRangeRows',
    'export-range-rows',
    'count',
    'rows of each range of a whole-table export run by two query processes at once (0: never split)',
    { zeroOff: true },
  ),
  queriesAhead: numberSetting(
    'queriesAhead',
    'queries-ahead',
    'count',
    'queries sent ahead to a busy query process at most, to run right after its query (0: none is)',
    { zeroOff: true },
  ),
  signup: textSetting(
    'signup',
    'signup',
    'MODE',
    'word',
    'open: visitors may create accounts at /signup; closed: accounts and keys come from the operator',
    (text) => text === 'open' || text === 'closed',
    'open or closed',
  ),
  sessionLifetimeMs: numberSetting('sessionLifetimeMs', 'session-lifetime', 'seconds', 'a web session ends this long after signing in', {
    factor: 1000,
  }),
  loginFailures: numberSetting('loginFailures', 'login-failures', 'count', 'wrong passwords for one account per login window (429 beyond)'),
  loginFailuresPerAddress: numberSetting(
    'loginFailuresPerAddress',
    'login-failures-per-address',
    'count',
    'wrong passwords from one address per login window, any account (429 beyond)',
  ),
  loginWindowMs: numberSetting('loginWindowMs', 'login-window', 'seconds', 'the window in which wrong passwords and sign-ups are counted', {
    factor: 1000,
  }),
  signupsPerAddress: numberSetting(
    'signupsPerAddress',
    'signups-per-address',
    'count',
    'sign-ups from one address per login window (429 beyond; 0: no limit)',
    { zeroOff: true },
  ),
  keepVersions: numberSetting(
    'keepVersions',
    'keep-versions',
    'count',
    'data versions kept per scraper, the current one included, unless its owner chose fewer or more (up to --max-keep-versions)',
    {
      max: maxKeptVersions,
    },
  ),
  keepDays: numberSetting(
    'keepDays',
    'keep-days',
    'count',
    'kept versions older than this many days are retired, unless the owner chose otherwise (0: no age limit)',
    {
      zeroOff: true,
      max: maxKeptDays,
    },
  ),
  maxKeepVersions: numberSetting(
    'maxKeepVersions',
    'max-keep-versions',
    'count',
    "the most versions an owner may choose to keep; times --max-publish-mb, a scraper's most on disk",
    {
      max: maxKeptVersions,
    },
  ),
};

export const allSettings = Object.values(settings) as Setting[];

/** `--query-timeout` is also `SIPHON_QUERY_TIMEOUT`: one pattern for every setting. */
export function envName(setting: Setting): string {
  return `SIPHON_${setting.flag.toUpperCase().replace(/-/g, '_')}`;
}

/** The value a setting has when nothing sets it; the data folder's is relative to `cwd`. */
export function defaultValue<K extends keyof Config>(key: K, cwd = process.cwd()): Config[K] {
  if (key === 'dataDir') return path.resolve(cwd, 'data') as Config[K];
  return (defaults as Partial<Config>)[key] as Config[K];
}

export type Source = 'flag' | 'env' | 'default';

/** A value given for a setting that it cannot take: the message names the setting, where the value came from, its flag and its variable. */
export class SettingInvalid extends Error {
  constructor(setting: Setting, from: string, text: string, must: string) {
    const also = from.startsWith('--') ? `$${envName(setting)}` : `--${setting.flag} ${setting.metavar}`;
    super(
      `${from} must be ${must}, not ${setting.secret ? 'the value given' : JSON.stringify(text)} (the setting ${setting.flag}, also ${also})`,
    );
    this.name = 'SettingInvalid';
  }
}

export interface Resolved<K extends keyof Config> {
  values: Pick<Config, K>;
  sources: Record<K, Source>;
}

/**
 * The settings `keys`, each from its flag, else its environment variable (an empty one counts as
 * unset), else its default. `flags` holds the flags' texts by flag name. Every value is checked: the
 * first that is invalid throws SettingInvalid. This is the one place the environment is read.
 */
export function resolveSettings<K extends keyof Config>(
  keys: readonly K[],
  flags: Readonly<Record<string, string | undefined>>,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): Resolved<K> {
  const values = {} as Pick<Config, K>;
  const sources = {} as Record<K, Source>;
  for (const key of keys) {
    const setting = settings[key] as Setting;
    const flagText = flags[setting.flag];
    const envVar = [envName(setting), ...(setting.fallbackEnv ?? [])].find((name) => env[name]);
    const [from, text, source]: [string, string | undefined, Source] =
      flagText !== undefined
        ? [`--${setting.flag}`, flagText, 'flag']
        : [`$${envVar}`, envVar === undefined ? undefined : env[envVar], 'env'];
    if (text === undefined) {
      values[key] = defaultValue(key, cwd);
      sources[key] = 'default';
      continue;
    }
    try {
      values[key] = setting.parse(text, cwd) as Config[K];
    } catch (err) {
      if (err instanceof Refused) throw new SettingInvalid(setting, from, text, err.message);
      throw err;
    }
    sources[key] = source;
  }
  return { values, sources };
}

/** What `serve --print-config` prints: `name = value (source: flag|env|default)`, one a line, values in the flags' units. */
export function describeSettings<K extends keyof Config>(resolved: Resolved<K>): string {
  return (Object.keys(resolved.sources) as K[])
    .map((key) => {
      const setting = settings[key] as Setting<K>;
      return `${setting.flag} = ${setting.show(resolved.values[key])} (source: ${resolved.sources[key]})\n`;
    })
    .join('');
}
