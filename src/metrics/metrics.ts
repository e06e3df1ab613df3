import { STATUS_CODES } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { twinFormats } from '../browse/twin-formats.js';
import { downloadNames } from '../formats/index.js';
import type { QueryTiming, RequestLine } from '../log/request-line.js';
import type { QueryPool } from '../pool/pool.js';
import { relayBuffers } from '../pool/relay-buffers.js';
import { errorReference } from '../views/error-reference.js';

/** What the metrics read when scraped, rather than being told of every change. */
export interface MetricSources {
  /** The data API's query processes, and the table previews'. */
  pools: { api: QueryPool; previews: QueryPool };
  downloads: () => { written: number; pending: number };
  logLinesDropped: () => number;
}

/** Seconds, from a quick lookup to past the default query time limit (10 s) and queue time limit (30 s). */
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const publishRoute = '/:owner/:scraper/data.sqlite';

/**
 * A label's value when it is one of `known`, else `other`. Every label takes a closed set of values
 * Siphon defines, so no request can add series (each one held for the life of the process): a format
 * is the URL's text until it is found in the registry, and `data.x1` … `data.x1000` would be a
 * thousand series.
 */
const within = (known: ReadonlySet<string>, value: string) => (known.has(value) ? value : 'other');

const knownFormats: ReadonlySet<string> = new Set<string>([...downloadNames, ...twinFormats]);
const knownCodes: ReadonlySet<string> = new Set(errorReference.map((e) => e.code));
/** HTTP's statuses as Node names them, and 499 for a client that left (nginx's). */
const knownStatuses: ReadonlySet<string> = new Set([...Object.keys(STATUS_CODES), '499']);

/**
 * The service's metrics in Prometheus's text format, in a registry of its own (two services in one
 * process count apart). Requests are counted from their log lines (request-log.ts), so the two
 * always agree; pools, queues and downloads are read when scraped. Labels take few values: routes
 * are the server's patterns, statuses HTTP's, codes and formats Siphon's own, anything else `other`.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'status'>;
  private readonly refused: Counter<'code'>;
  private readonly rateLimited: Counter;
  private readonly rows: Counter<'format'>;
  private readonly bytes: Counter<'format'>;
  private readonly publishes: Counter<'outcome'>;
  private readonly queryDuration: Histogram<'outcome'>;
  private readonly queueWait: Histogram<'outcome'>;
  /** The route patterns the server registered: the `route` label's values, with `none` and `other`. */
  private readonly routes = new Set<string>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'siphon_http_requests_total',
      help: 'Requests answered, by route pattern and status.',
      labelNames: ['route', 'status'],
      registers,
    });
    this.refused = new Counter({
      name: 'siphon_http_requests_refused_total',
      help: 'Requests refused, by SIPHON_ERR_* code.',
      labelNames: ['code'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'siphon_rate_limited_total',
      help: 'Data requests refused by the per-key rate limit (429).',
      registers,
    });
    this.rows = new Counter({
      name: 'siphon_rows_streamed_total',
      help: 'Rows sent by the data API, by format.',
      labelNames: ['format'],
      registers,
    });
    this.bytes = new Counter({
      name: 'siphon_bytes_streamed_total',
      help: 'Body bytes sent by the data API before compression, by format.',
      labelNames: ['format'],
      registers,
    });
    this.publishes = new Counter({
      name: 'siphon_publishes_total',
      help: 'Publishes over HTTP, by outcome (published or refused).',
      labelNames: ['outcome'],
      registers,
    });
    this.queryDuration = new Histogram({
      name: 'siphon_query_duration_seconds',
      help: 'Time data API queries held a query process, by outcome (ok, timeout, sql, resources, cancelled…).',
      labelNames: ['outcome'],
      buckets: secondsBuckets,
      registers,
    });
    this.queueWait = new Histogram({
      name: 'siphon_queue_wait_seconds',
      help: 'Time data API queries waited for a query process, by outcome.',
      labelNames: ['outcome'],
      buckets: secondsBuckets,
      registers,
    });
    const { pools } = sources;
    const perPool = (name: string, help: string, read: (stats: ReturnType<QueryPool['stats']>) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          for (const [pool, queryPool] of Object.entries(pools)) this.set({ pool }, read(queryPool.stats()));
        },
      });
    perPool('siphon_query_processes_ready', 'Query processes started and ready, by pool (api, previews).', (s) => s.ready);
    perPool('siphon_query_processes_busy', 'Query processes running a query, by pool.', (s) => s.busy);
    perPool('siphon_queue_length', 'Queries waiting for a query process, by pool.', (s) => s.waiting);
    perPool('siphon_queries_parked', 'Long queries frozen until another long one ends, by pool.', (s) => s.parked);
    /** A counter of something that counts itself: it goes up by what `read` went up by since the last scrape. */
    const countedBy = (name: string, help: string, read: () => number) => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const now = read();
          this.inc(now - seen);
          seen = now;
        },
      });
    };
    countedBy('siphon_downloads_recorded_total', 'Downloads written to the store.', () => sources.downloads().written);
    new Gauge({
      name: 'siphon_downloads_pending',
      help: 'Downloads waiting to be written.',
      registers,
      collect() {
        this.set(sources.downloads().pending);
      },
    });
    countedBy(
      'siphon_log_lines_dropped_total',
      'Log records dropped because stdout did not keep up (16 MB held at most).',
      sources.logLinesDropped,
    );
    countedBy(
      'siphon_relay_reads_total',
      "Reads of query processes' output (and of spooled output) into the server process's relay buffers.",
      () => relayBuffers.reads,
    );
    countedBy(
      'siphon_relay_buffers_allocated_total',
      'Relay buffers (64 KB) the server process made; the reads beyond these used one again.',
      () => relayBuffers.allocated,
    );
  }

  /** Adds a route's pattern to the `route` label's values (called as the server registers its routes). */
  knowRoute(pattern: string): void {
    this.routes.add(pattern);
  }

  /** Counts a request from its log line. */
  readonly requestDone = (line: RequestLine, query: QueryTiming | undefined): void => {
    this.requests.inc({
      route: line.route === null ? 'none' : within(this.routes, line.route),
      status: within(knownStatuses, String(line.status)),
    });
    if (line.code) this.refused.inc({ code: within(knownCodes, line.code) });
    if (line.code === 'SIPHON_ERR_RATE_LIMITED') this.rateLimited.inc();
    if (line.format !== undefined) {
      const format = within(knownFormats, line.format);
      this.rows.inc({ format }, line.rows ?? 0);
      this.bytes.inc({ format }, line.bytes ?? 0);
    }
    if (line.route === publishRoute && line.method === 'PUT')
      this.publishes.inc({ outcome: line.status === 200 ? 'published' : 'refused' });
    if (query) {
      // A query refused at the door (busy, key busy, closing) never waited.
      if (query.runMs !== undefined || query.outcome === 'queue-timeout' || query.outcome === 'cancelled') {
        this.queueWait.observe({ outcome: query.outcome }, query.waitMs / 1000);
      }
      if (query.runMs !== undefined) this.queryDuration.observe({ outcome: query.outcome }, query.runMs / 1000);
    }
  };

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
