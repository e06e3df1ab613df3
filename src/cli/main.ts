import { parseArgs, type ParseArgsConfig } from 'node:util';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { configWith, defaults, maxQueueTimeoutMs, publicBaseUrl, resolveDataDir, type Config } from '../config.js';
import { SiphonError } from '../errors.js';
import { PoolStartError } from '../pool/pool.js';
import { SqliteBuildError } from '../sql/sqlite-build.js';
import { Catalog } from '../scrapers/catalog.js';
import { importerWithLimits } from '../scrapers/import-process.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { formatKeyList } from './key-list.js';
import { serve } from './serve.js';

const usage = `Usage: siphon [--data-dir DIR] <command>

  user add NAME [--label TEXT]            create an account; prints its first API key
  key create NAME [--read-only] [--origin ORIGIN]... [--label TEXT]
                                          print a further key for account NAME; with --origin
                                          (https://maps.example.org) it is read-only and works
                                          from web pages of those origins only
  key list NAME                           the account's keys: prefix, label, read-only, origins,
                                          created, last used, revoked (never the keys)
  key revoke KEY                          revoke a key at once
  scraper add OWNER/NAME --db FILE [--private] [--description TEXT] [--import-timeout SECONDS]
                                          register a scraper with a copy of an SQLite file
  scraper publish OWNER/NAME --db FILE [--import-timeout SECONDS]
                                          replace a scraper's data atomically
  serve [--port N] [--host ADDR] [--demo] [--public-url URL] [LIMIT FLAGS]
                                          run the HTTP service (SIGTERM stops it gracefully)

Limit flags of serve (README "Limits" says what each bounds):
  --query-timeout SECONDS  --max-response-seconds SECONDS  --queue-timeout SECONDS
  --import-timeout SECONDS  --query-processes N  --long-queries N  --queue-limit N
  --key-concurrency N  --key-queue N  --rate-limit PER_MINUTE (0: off)  --max-pending-downloads N
  --max-publish-mb N  --query-memory-mb N  --query-temp-mb N  --spool-response-mb N  --spool-total-mb N

The data folder is --data-dir, else $SIPHON_DATA_DIR, else ./data. serve also reads $PORT
and $SIPHON_PUBLIC_URL (the address clients use, for absolute URLs in Atom feeds).
`;

class UsageError extends Error {}

type LimitKey = { [K in keyof Config]-?: Config[K] extends number ? K : never }[keyof Config];

/**
 * serve's flags that set a limit: the Config field each sets, the unit it is given in, and the
 * factor to the field's unit. `zeroOff`: 0 is allowed and turns the limit off. `max`: the largest
 * value allowed, in the flag's unit.
 */
const limitFlags = {
  'query-timeout': { key: 'queryTimeoutMs', unit: 'seconds', factor: 1000 },
  'max-response-seconds': { key: 'maxResponseMs', unit: 'seconds', factor: 1000 },
  'queue-timeout': { key: 'queueTimeoutMs', unit: 'seconds', factor: 1000, max: maxQueueTimeoutMs / 1000 },
  'import-timeout': { key: 'importTimeoutMs', unit: 'seconds', factor: 1000 },
  'query-processes': { key: 'queryProcesses', unit: 'count', factor: 1 },
  'long-queries': { key: 'longQueries', unit: 'count', factor: 1 },
  'queue-limit': { key: 'queueLimit', unit: 'count', factor: 1 },
  'key-concurrency': { key: 'keyConcurrency', unit: 'count', factor: 1 },
  'key-queue': { key: 'keyQueue', unit: 'count', factor: 1 },
  'max-pending-downloads': { key: 'maxPendingDownloads', unit: 'count', factor: 1 },
  'rate-limit': { key: 'rateLimitPerMinute', unit: 'count', factor: 1, zeroOff: true },
  'max-publish-mb': { key: 'maxPublishBytes', unit: 'megabytes', factor: 2 ** 20 },
  'query-memory-mb': { key: 'queryMemoryMb', unit: 'megabytes', factor: 1 },
  'query-temp-mb': { key: 'queryTempMb', unit: 'megabytes', factor: 1 },
  'spool-response-mb': { key: 'spoolResponseMb', unit: 'megabytes', factor: 1 },
  'spool-total-mb': { key: 'spoolTotalMb', unit: 'megabytes', factor: 1 },
} satisfies Record<string, { key: LimitKey; unit: 'seconds' | 'count' | 'megabytes'; factor: number; zeroOff?: true; max?: number }>;

/** The limits given on the command line, checked (a count is a whole number; 0 only where it turns a limit off). */
function limitsFrom(values: Partial<Record<keyof typeof limitFlags, string>>): Partial<Config> {
  const limits: Partial<Record<LimitKey, number>> = {};
  for (const [flag, spec] of Object.entries(limitFlags) as [keyof typeof limitFlags, (typeof limitFlags)[keyof typeof limitFlags]][]) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = Number(text);
    const zeroOff = 'zeroOff' in spec && spec.zeroOff;
    const max = 'max' in spec ? spec.max : Infinity;
    const ok = text.trim() !== '' && Number.isFinite(n) && (n > 0 || (zeroOff && n === 0)) && n <= max && (spec.unit !== 'count' || Number.isInteger(n));
    if (!ok) {
      const what = spec.unit === 'count' ? `a whole number${zeroOff ? ' (0 turns it off)' : ' above 0'}` : `a positive number of ${spec.unit}`;
      throw new UsageError(`--${flag} must be ${what}${max < Infinity ? ` up to ${max}` : ''}, not ${JSON.stringify(text)}`);
    }
    limits[spec.key] = Math.round(n * spec.factor);
  }
  return limits;
}

const options = {
  'data-dir': { type: 'string' },
  'read-only': { type: 'boolean' },
  origin: { type: 'string', multiple: true },
  label: { type: 'string' },
  db: { type: 'string' },
  private: { type: 'boolean' },
  description: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  ...Object.fromEntries(Object.keys(limitFlags).map((flag) => [flag, { type: 'string' }])) as
    Record<keyof typeof limitFlags, { type: 'string' }>,
  'public-url': { type: 'string' },
  demo: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

/** Which flags each command takes (besides --data-dir), and how many words it has after its name. */
const commands: Record<string, { flags: (keyof Values)[]; args: number }> = {
  'user add': { flags: ['label'], args: 1 },
  'key create': { flags: ['read-only', 'origin', 'label'], args: 1 },
  'key list': { flags: [], args: 1 },
  'key revoke': { flags: [], args: 1 },
  'scraper add': { flags: ['db', 'private', 'description', 'import-timeout'], args: 1 },
  'scraper publish': { flags: ['db', 'import-timeout'], args: 1 },
  serve: { flags: ['port', 'host', 'demo', 'public-url', ...Object.keys(limitFlags) as (keyof typeof limitFlags)[]], args: 0 },
};

/** The port: 0 to 65535 (0 picks a free one). */
function portFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`--port must be a port number from 0 to 65535, not ${JSON.stringify(text)}`);
  }
  return n;
}

function parse(argv: string[]): { command: string; args: string[]; values: Values } {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const two = positionals.slice(0, 2).join(' ');
  const command = commands[two] ? two : positionals[0] ?? '';
  const spec = commands[command];
  if (!spec) throw new UsageError(command ? `unknown command: ${positionals.slice(0, 2).join(' ')}` : 'no command given');
  const args = positionals.slice(command.split(' ').length);
  if (args.length !== spec.args) throw new UsageError(`${command} takes ${spec.args === 1 ? 'one argument' : 'no arguments'}`);
  for (const flag of Object.keys(values) as (keyof Values)[]) {
    if (flag !== 'data-dir' && flag !== 'help' && !spec.flags.includes(flag)) {
      throw new UsageError(`${command} does not take --${flag}`);
    }
  }
  return { command, args, values };
}

async function run(argv: string[]): Promise<void> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage);
    return;
  }
  const { command, args, values } = parse(argv);
  const dataDir = resolveDataDir(values['data-dir']);
  if ((command === 'scraper add' || command === 'scraper publish') && !values.db) {
    throw new UsageError(`${command} needs --db FILE`);
  }

  // Checked before anything is created, like every other usage error.
  const port = portFlag(command === 'serve' ? values.port ?? process.env.PORT : undefined);
  const limits = limitsFrom(values);
  const publicUrlText = command === 'serve' ? values['public-url'] ?? (process.env.SIPHON_PUBLIC_URL || undefined) : undefined;
  const publicUrl = publicUrlText === undefined ? undefined : publicBaseUrl(publicUrlText);
  if (publicUrlText !== undefined && publicUrl === undefined) {
    throw new UsageError(`--public-url (or $SIPHON_PUBLIC_URL) must be an http or https URL with no query, such as https://data.example.org, not ${JSON.stringify(publicUrlText)}`);
  }

  mkdirSync(dataDir, { recursive: true });
  const store = new SqliteStore(path.join(dataDir, 'siphon.db'));
  // Imported as the server imports: in a process of its own, under the same limits.
  const catalog = new Catalog(store, dataDir, importerWithLimits({
    timeoutMs: limits.importTimeoutMs ?? defaults.importTimeoutMs, memoryMb: defaults.queryMemoryMb,
  }));
  try {
    const arg = args[0]!;
    switch (command) {
      case 'user add':
        process.stdout.write(`${(await catalog.addUser(arg, { label: values.label })).key}\n`);
        break;
      case 'key create':
        process.stdout.write(`${await catalog.createKey(arg, { readOnly: values['read-only'], origins: values.origin, label: values.label })}\n`);
        break;
      case 'key list':
        process.stdout.write(formatKeyList(await catalog.listKeys(arg)));
        break;
      case 'key revoke':
        if (!(await catalog.revokeKey(arg))) throw new UsageError('no such key');
        process.stdout.write('revoked\n');
        break;
      case 'scraper add': {
        const s = await catalog.addScraper(arg, path.resolve(values.db!), {
          isPrivate: values.private ?? false, description: values.description ?? '',
        });
        process.stdout.write(`added ${s.owner.name}/${s.name} (${s.isPrivate ? 'private' : 'public'}): ${s.data.tables.map((t) => `${t.name} (${t.rows} rows)`).join(', ') || 'no tables'}\n`);
        break;
      }
      case 'scraper publish': {
        const s = await catalog.publish(arg, path.resolve(values.db!));
        process.stdout.write(`published ${s.owner.name}/${s.name}, data version ${s.data.version}\n`);
        break;
      }
      case 'serve':
        await serve(configWith({
          dataDir,
          host: values.host ?? defaults.host,
          port: port ?? defaults.port,
          ...limits,
          publicUrl,
        }), store, { demo: values.demo ?? false });
        return;
    }
  } finally {
    await store.close();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`siphon: ${err.message}\n\n${usage}`);
  } else if (err instanceof SiphonError || err instanceof PoolStartError || err instanceof SqliteBuildError || String((err as { code?: string }).code).startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`siphon: ${(err as Error).message}\n`);
  } else {
    process.stderr.write(`siphon: ${err instanceof Error ? err.stack : String(err)}\n`);
  }
  process.exitCode = 1;
});
