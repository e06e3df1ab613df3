import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Config } from '../../config.js';
import type { DownloadRecorder } from '../../downloads/recorder.js';
import { errors, type SiphonError } from '../../errors.js';
import type { RateDecision, RateLimiter } from '../../limits/rate-limiter.js';
import {
  bodyContentType,
  downloadName,
  findFormat,
  formatNames,
  formatParams,
  queryFailureFor,
  scriptCallback,
  type Format,
} from '../../formats/index.js';
import type { QueryPool } from '../../pool/pool.js';
import { fileBody, queryBody, type CodedBody } from '../../pool/coded-body.js';
import type { QueryRun } from '../../pool/query-run.js';
import type { QueryJob } from '../../pool/protocol.js';
import { isoTime } from '../../iso-time.js';
import { checkSql } from '../../sql/check-sql.js';
import type { ApiKey, Scraper, Store } from '../../store/types.js';
import type { RequestLimits } from '../../limits/request-size.js';
import { authenticate } from '../authenticate.js';
import { formatCall } from '../format-call.js';
import { negotiateCoding, setCoding } from '../compression.js';
import { addValidators, isNotModified, notModifiedStatus, sendNotModified } from '../conditional.js';
import { keyCorsHeaders } from '../key-origin.js';
import { readQueryBody } from '../query-body.js';
import type { QueryTiming } from '../../log/request-line.js';
import { loggedWhenDone, noteRequest } from '../request-log.js';
import type { Params } from '../../utils/query-string.js';
import { answerError, asSiphonError, sendError } from '../send-error.js';
import { streamResponse, type StreamOutcome } from '../stream-response.js';
import { findScraperFor, singleParam } from './params.js';
import { settleUnreadBody } from '../unread-body.js';

interface DataRoute {
  Params: { owner: string; scraper: string; format?: string };
  Querystring: Params;
}

/** Status recorded for a response cut short after it started: nginx's "client closed request". */
const clientClosedStatus = 499;

/** How long a query waited and ran, once it has ended. */
function queryTiming(run: QueryRun): QueryTiming | undefined {
  const { queuedAt, startedAt, endedAt, outcome, ranges } = run.times;
  if (endedAt === undefined || outcome === undefined) return undefined;
  return { waitMs: (startedAt ?? endedAt) - queuedAt, runMs: startedAt === undefined ? undefined : endedAt - startedAt, outcome, ranges };
}

/**
 * A data answer's headers, built in one object: this runs for every call, 304s included. Written on
 * the raw response, they carry the request's id themselves (request-log.ts).
 */
function responseHeaders(
  requestId: string,
  format: Format,
  scraper: Scraper,
  callback: string | undefined,
  cors: OutgoingHttpHeaders,
  rate: RateDecision | undefined,
  fileSize?: number,
): OutgoingHttpHeaders {
  // Copied, then added to: a literal starting with a spread and going on with named headers took
  // V8's slow path and left an object in dictionary mode, ~3 µs of every call (BENCHMARKS.md, tenth round).
  const headers: OutgoingHttpHeaders = Object.assign({}, cors);
  headers['content-type'] = bodyContentType(format, callback);
  // The key is in the URL: shared caches must not keep the response; browsers revalidate.
  headers['cache-control'] = 'private, no-cache';
  headers['x-content-type-options'] = 'nosniff';
  // Lets nginx and similar proxies stream rather than buffer whole results.
  headers['x-accel-buffering'] = 'no';
  headers['x-request-id'] = requestId;
  if (format.attachment) {
    headers['content-disposition'] = `attachment; filename="${scraper.owner.name}-${scraper.name}.${format.attachment}"`;
  }
  if (fileSize !== undefined) headers['content-length'] = fileSize;
  if (rate) Object.assign(headers, rateLimitHeaders(rate));
  return headers;
}

/** The `RateLimit-*` headers (IETF draft) every data response of a key carries. */
export function rateLimitHeaders(decision: RateDecision | undefined): OutgoingHttpHeaders {
  if (!decision) return {};
  return {
    'ratelimit-limit': decision.limit,
    'ratelimit-remaining': decision.remaining,
    'ratelimit-reset': decision.resetSeconds,
  };
}

/**
 * GET|HEAD|POST /:owner/:scraper/data.:format — the data API. Steps in order, each failing with its
 * own status: a POST's body (415, 413, 400) → authenticate (401; 403 for a key used from a web
 * origin it is not for) → find the scraper, public or the key's account's own (404) → the key's rate limit (429, not a download)
 * → format (404) → the format's own parameters, such as a JSONP callback (400) → check the SQL
 * (400) → the format's options → 304 if the client's copy is current → queue it fairly and run it
 * in a query process (429/503 when the key or the service is too busy; 400 on SQL errors and the
 * limits) → stream, compressed if asked → record the download.
 * Every call that gets past the rate limit is a download, a 304 too, unless downloads cannot be
 * recorded: then it is refused (503) before anything runs. A POST is the same call with its
 * parameters in a body (for URLs too long for a proxy, and keys kept out of URLs), never a 304.
 */
export function dataRoutes(
  app: FastifyInstance,
  deps: {
    config: Config;
    store: Store;
    pool: QueryPool;
    recorder: DownloadRecorder;
    rateLimiter?: RateLimiter;
    limits: RequestLimits;
    bodyFailure: (request: FastifyRequest) => AbortSignal;
  },
): void {
  const { config, store, pool, recorder, rateLimiter, limits, bodyFailure } = deps;
  const bodyLimits = {
    maxBytes: limits.maxBodyBytes,
    idleMs: config.clientIdleTimeoutMs,
    tooLarge: () => errors.bodyTooLarge(limits.maxBodyBytes),
  };

  /** A POST's parameters: the query string's and its body's, which win over them. */
  async function postParams(request: FastifyRequest<DataRoute>): Promise<Params> {
    return { ...request.query, ...(await readQueryBody(request, bodyLimits, bodyFailure(request))) };
  }

  async function handle(request: FastifyRequest<DataRoute>, reply: FastifyReply): Promise<void> {
    const startedAt = performance.now();
    const { owner, scraper: scraperName, format: formatName = '' } = request.params;
    let query: Params;
    try {
      // Awaited only when there is something to wait for: each await is a turn of the microtask queue.
      query = request.method === 'POST' ? await postParams(request) : request.query;
    } catch (err) {
      await settleUnreadBody(request, reply);
      sendError(reply, err);
      return;
    }
    const format = findFormat(formatName);
    const param = (name: string) => singleParam(query[name]);
    // A JSONP call's errors go to its callback from here on.
    const callback = scriptCallback(format, param);

    let key: ApiKey;
    let scraper: Scraper;
    let rate: RateDecision | undefined;
    let cors: OutgoingHttpHeaders;
    try {
      key = await authenticate(request.headers, singleParam(query.key), store);
      noteRequest(request, { keyId: key.id });
      cors = keyCorsHeaders(key, request.headers);
      void reply.headers(cors); // on every answer from here on, errors too
      // A private scraper is served to its owner's keys only.
      scraper = await findScraperFor(store, key.account.id, owner, scraperName);
      // Nothing is served that could not be recorded: a refused call is not a download.
      recorder.assertAccepting();
      rate = rateLimiter && (await rateLimiter.take(String(key.id)));
      if (rate && !rate.allowed) throw errors.rateLimited(rate.limit, rate.resetSeconds);
    } catch (err) {
      sendError(reply.headers(rateLimitHeaders(rate)), err, callback);
      return;
    }
    void reply.headers(rateLimitHeaders(rate));

    const sql = format?.kind === 'file' ? null : (singleParam(query.query) ?? null);
    let status = 200;
    let rows: number | null = null;
    let bytes = 0;
    let body: CodedBody | undefined;
    const download = format ? downloadName(format, callback) : formatName;
    let recorded = false;
    /**
     * Queues the download (into the spool, when there is one) once. Called before the last byte of
     * an answer is written, which waits for what it returns (the spool's write), so that a node
     * killed the moment after loses no download it answered; a response cut short is recorded
     * after, with the status it ended with.
     */
    const recordDownload = (): Promise<void> | undefined => {
      if (recorded) return undefined;
      recorded = true;
      return recorder.record({
        scraperId: scraper.id,
        accountId: key.account.id,
        keyId: key.id,
        at: isoTime(),
        format: download,
        query: sql,
        status,
        rows,
        bytes,
        durationMs: performance.now() - startedAt,
      });
    };
    try {
      if (!format) throw errors.formatUnknown(formatNames);
      let job: QueryJob | undefined;
      if (format.kind === 'rows') {
        const params = formatParams(format, param);
        const checkedSql = checkSql(sql ?? undefined, config.maxQueryChars);
        const options = format.options(formatCall(request, config, scraper, checkedSql, params));
        job = { scraperId: scraper.id, file: scraper.data.file, sql: checkedSql, format: format.name, options };
      }
      // Validators come from what shapes the body (the job, or a file's format), known before anything runs.
      const coding = negotiateCoding(request.headers);
      const headers = responseHeaders(request.id, format, scraper, callback, cors, rate, job ? undefined : scraper.data.sizeBytes);
      setCoding(headers, coding);
      addValidators(headers, scraper, job ?? { format: format.name }, coding);
      // RFC 9110 allows 304 for GET and HEAD only; a POST's conditional headers are ignored.
      if (request.method !== 'POST' && isNotModified(request.headers, headers)) {
        status = notModifiedStatus;
        await recordDownload();
        sendNotModified(reply, headers);
        return;
      }
      const coded = job ? queryBody(pool, job, String(key.id), coding) : fileBody(scraper.data.file, coding);
      body = coded;
      const outcome: StreamOutcome = await streamResponse(
        request,
        reply,
        coded,
        headers,
        { idleTimeoutMs: config.clientIdleTimeoutMs, maxResponseMs: config.maxResponseMs },
        (sent) => {
          bytes = coded.bytes(sent);
          rows = coded.rows();
          return recordDownload();
        },
      );
      if (outcome.kind === 'failed-before-start') throw format.kind === 'rows' ? queryFailureFor(format, outcome.error) : outcome.error;
      bytes = coded.bytes(outcome.bytes);
      rows = coded.rows();
      if (outcome.kind === 'cut') {
        const error = outcome.error
          ? asSiphonError(outcome.error, reply)
          : outcome.reason === 'client-gone'
            ? errors.clientClosed()
            : undefined;
        status = error?.status ?? clientClosedStatus;
        noteRequest(request, { cut: outcome.reason, code: error?.code });
      }
    } catch (err) {
      const error: SiphonError = asSiphonError(err, reply);
      status = error.status;
      await recordDownload();
      answerError(reply, error, callback);
    } finally {
      // A response cut short, recorded now that it has ended: nothing is left to wait for its line.
      void recordDownload();
      noteRequest(request, { status, format: download, rows, bytes, query: body?.run && queryTiming(body.run) });
    }
  }

  for (const method of ['GET', 'POST'] as const) {
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data.:format', handler: loggedWhenDone(handle) });
    // Without an extension: answered as an unknown format, with the list of formats there are.
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data', handler: loggedWhenDone(handle) });
  }
}
