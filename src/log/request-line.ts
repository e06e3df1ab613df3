/**
 * @module One request's log line: what its route learnt of it, and what the line holds. Written by
 * the HTTP layer (http/request-log.ts), counted by the metrics.
 */
import type { QueryOutcome } from '../pool/query-run.js';

/** What a route learnt about its request, for its log line and the metrics. */
export interface RequestFacts {
  /** The status answered: a JSONP error's is the one in its body; a response cut short, 499 or its error's. */
  status?: number;
  /** The `SIPHON_ERR_*` code of a refused request. */
  code?: string;
  /** The key's id (never the key). */
  keyId?: number;
  /** A data call's format, rows and bytes (before compression). */
  format?: string;
  rows?: number | null;
  bytes?: number;
  /** Why a response was cut short after it started. */
  cut?: string;
  /** How long the query waited for a query process and held one, and how it ended. */
  query?: QueryTiming;
  /** A publish's scraper and the data version it made. */
  scraper?: string;
  version?: number;
  /** A fault of ours: the line is logged at error level, with it. */
  err?: unknown;
}

export interface QueryTiming {
  waitMs: number;
  /** Undefined for a query that never got a process. */
  runMs?: number;
  outcome: QueryOutcome;
  /** Rowid ranges it was split into over two query processes, when it was. */
  ranges?: number;
}

/** One request as logged: one line, and what the metrics count. */
export interface RequestLine extends Omit<RequestFacts, 'err' | 'query' | 'status'> {
  /** Not logged for a request refused before it could be read. */
  method?: string;
  url?: string;
  /** The route's pattern (`/:owner/:scraper/data.:format`); null when none took it. */
  route: string | null;
  status: number;
  ip?: string;
  durationMs: number;
  queueMs?: number;
  queryMs?: number;
  ranges?: number;
  /** Node's parser's code, for a request it refused. */
  parserCode?: string;
}
