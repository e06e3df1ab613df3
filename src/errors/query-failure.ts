import { queryErrors } from './query.js';
import { rateLimitErrors } from './rate-limits.js';
import { serviceErrors } from './service.js';
import type { SiphonError } from './siphon-error.js';

/**
 * Why a query did not complete, in the query engine's own terms (it knows nothing of HTTP); the HTTP
 * layer answers it with `errorForQuery`. `internal` is our fault and is logged with its stack.
 */
export type QueryFailure =
  | { kind: 'sql'; message: string }
  | { kind: 'not-read' }
  | { kind: 'columns'; missing: string[] }
  | { kind: 'timeout'; seconds: number }
  /**
   * Out of memory or temporary disk, or the process was killed from outside. `tempDisk`: stopped by
   * the watch on its temporary files (pool/temp-disk.ts), past the cap of `capMb` a query, or into
   * the room kept free on the data disk.
   */
  | { kind: 'resources'; tempDisk?: { capMb: number } | 'reserve' }
  | { kind: 'internal'; message: string; stack?: string }
  | { kind: 'busy' }
  | { kind: 'key-busy'; running: number; waiting: number }
  | { kind: 'queue-timeout'; seconds: number }
  | { kind: 'closing' };

export class QueryFailed extends Error {
  constructor(readonly failure: QueryFailure) {
    super('message' in failure ? failure.message : failure.kind);
    this.name = 'QueryFailed';
    if (failure.kind === 'internal' && failure.stack) this.stack = failure.stack;
  }
}

/** The answer a client gets for a query that failed. */
export function errorForQuery(failure: QueryFailure): SiphonError {
  switch (failure.kind) {
    case 'sql':
      return queryErrors.sql(failure.message);
    case 'not-read':
      return queryErrors.queryNotRead();
    // A format that needs columns answers their absence with its own error (formats/index.ts).
    case 'columns':
      return serviceErrors.internal();
    case 'timeout':
      return queryErrors.queryTimeout(failure.seconds);
    case 'resources':
      if (failure.tempDisk === 'reserve') return queryErrors.queryDiskReserve();
      return failure.tempDisk ? queryErrors.queryTempDisk(failure.tempDisk.capMb) : queryErrors.queryProcessDied();
    case 'internal':
      return serviceErrors.internal();
    case 'busy':
      return serviceErrors.busy();
    case 'key-busy':
      return rateLimitErrors.keyBusy(failure.running, failure.waiting);
    case 'queue-timeout':
      return serviceErrors.queueTimeout(failure.seconds);
    case 'closing':
      return serviceErrors.unavailable();
  }
}
