import path from 'node:path';

/** Everything the service can be configured with. Built once at start-up from flags and environment. */
export interface Config {
  dataDir: string;
  host: string;
  port: number;
  /** Execution time a query may use. Time spent waiting for a slow client does not count. */
  queryTimeoutMs: number;
  /** A client that reads nothing for this long while a response waits on it is dropped; so is a publish whose body stalls this long. */
  clientIdleTimeoutMs: number;
  /** Query processes: each runs one query at a time. */
  queryProcesses: number;
  /** Requests waiting for a free query process beyond this many get 503. */
  maxQueuedQueries: number;
  /** Address-space cap of each query process, so one query cannot take the machine's memory. */
  queryMemoryMb: number;
  /** Longest SQL text accepted. */
  maxQueryChars: number;
  /** Largest database accepted by a publish over HTTP (PUT …/data.sqlite); larger bodies get 413. */
  maxPublishBytes: number;
  logLevel: string;
  /**
   * Where clients reach the service (`https://data.example.org`), for the absolute URLs in Atom feeds.
   * Unset: taken from each request's protocol and Host header.
   */
  publicUrl?: string;
}

export const defaults = {
  host: '127.0.0.1',
  port: 3000,
  queryTimeoutMs: 10_000,
  clientIdleTimeoutMs: 60_000,
  // Measured on this 2-core machine: 4 processes reach ~88% of in-process throughput (notes, section 5).
  queryProcesses: 4,
  maxQueuedQueries: 200,
  // Address space, not resident memory: an idle query process already maps ~730 MB (with
  // MALLOC_ARENA_MAX=2, see pool.ts). 1536 MB leaves ~800 MB for SQLite and the result being encoded;
  // a query needing more fails with a 400 instead of starving the machine.
  queryMemoryMb: 1536,
  // Real queries are a few hundred characters; 100k leaves room for generated IN (...) lists.
  maxQueryChars: 100_000,
  // A publish needs twice this on disk for a moment (the upload and its imported copy).
  maxPublishBytes: 512 * 1024 * 1024,
  logLevel: 'info',
} as const;

/** The data folder: --data-dir, else SIPHON_DATA_DIR, else ./data. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flag ?? env.SIPHON_DATA_DIR ?? 'data');
}

/**
 * A public URL as the base of absolute links: an http(s) URL without credentials, query or fragment,
 * returned without its trailing slash; undefined when the text is not one.
 */
export function publicBaseUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const ok = (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !/[?#]/.test(url.href);
  return ok ? url.href.replace(/\/+$/, '') : undefined;
}

export function configWith(overrides: Partial<Config> & { dataDir: string }): Config {
  return { ...defaults, ...overrides };
}
