import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { PendingDownload } from '../../downloads/pending-download.js';
import type { DownloadRecorder } from '../../downloads/recorder.js';
import { errors } from '../../errors.js';
import { downloadName, findFormat, queryFailureFor, scriptCallback } from '../../formats/index.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { RequestLimits } from '../../limits/request-size.js';
import type { QueryTiming } from '../../log/request-line.js';
import { fileBody, queryBody, type CodedBody } from '../../pool/coded-body.js';
import type { QueryPool } from '../../pool/pool.js';
import type { QueryRun } from '../../pool/query-run.js';
import type { Store } from '../../store/types.js';
import type { Params } from '../../utils/query-string.js';
import { admitApiCall, type ApiCall } from '../api-call.js';
import { isNotModified, notModifiedStatus, sendNotModified } from '../conditional.js';
import { planDataAnswer, type DataAnswer } from '../data-answer.js';
import { readQueryBody } from '../query-body.js';
import { nextPageLink, type QueryPage } from '../query-pages.js';
import { loggedWhenDone, noteRequest } from '../request-log.js';
import { answerError, asSiphonError, sendError } from '../send-error.js';
import { whileClientWaits } from '../client-waits.js';
import { streamResponse } from '../stream-response.js';
import { settleUnreadBody } from '../unread-body.js';
import { singleParam } from './params.js';

type ParamReader = (name: string) => string | undefined;

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
 * GET|HEAD|POST /:owner/:scraper/data.:format — the data API. `handle` is its lifecycle, one step a
 * call, each refused with its own status: the numbered list in docs/design.md ("The data API's
 * lifecycle"). A POST is the same call with its parameters in a body (for URLs too long for a
 * proxy, and keys kept out of URLs), never a 304.
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
  const { config, pool, recorder, limits, bodyFailure } = deps;
  const bodyLimits = {
    maxBytes: limits.maxBodyBytes,
    idleMs: config.clientIdleTimeoutMs,
    tooLarge: () => errors.bodyTooLarge(limits.maxBodyBytes),
  };
  const streamLimits = { idleTimeoutMs: config.clientIdleTimeoutMs, maxResponseMs: config.maxResponseMs };

  /** Step 1, for a POST: its parameters, the query string's and its body's, which win over them; none once refused. */
  async function postParams(request: FastifyRequest<DataRoute>, reply: FastifyReply): Promise<Params | undefined> {
    try {
      return { ...request.query, ...(await readQueryBody(request, bodyLimits, bodyFailure(request))) };
    } catch (err) {
      await settleUnreadBody(request, reply);
      sendError(reply, err);
      return undefined;
    }
  }

  /** Steps 2–6 (api-call.ts); none once refused, the refusal answered to the call's JSONP callback if it named one. */
  async function admit(request: FastifyRequest<DataRoute>, reply: FastifyReply, key: string | undefined, callback: string | undefined) {
    try {
      return await admitApiCall(request, reply, key, deps);
    } catch (err) {
      sendError(reply, err, callback);
      return undefined;
    }
  }

  /** Step 10: whether the client's copy is current. RFC 9110 allows a 304 for a GET or HEAD only. */
  function notModified(request: FastifyRequest, answer: DataAnswer): boolean {
    return request.method !== 'POST' && isNotModified(request.headers, answer.headers);
  }

  /** Step 10's answer, a download too. */
  async function answerNotModified(reply: FastifyReply, answer: DataAnswer, download: PendingDownload): Promise<void> {
    await download.record({ status: notModifiedStatus });
    sendNotModified(reply, answer.headers);
  }

  /**
   * Step 11, for a page of a query (`page_size`): whether rows follow it, asked in the key's lane,
   * and if so the next page's `Link`, known before the first byte.
   */
  async function linkNextPage(
    request: FastifyRequest,
    reply: FastifyReply,
    call: ApiCall,
    answer: DataAnswer,
    page: QueryPage,
    param: ParamReader,
    sql: string,
  ) {
    const client = whileClientWaits(reply);
    try {
      const link = await nextPageLink(request, deps, call.scraper, sql, page, param, String(call.key.id), client.signal);
      if (link !== undefined) answer.headers.link = link;
    } finally {
      client.done();
    }
  }

  /** Step 11: the query queued fairly for the key's turn in a query process, or the file; its body in the answer's coding. */
  function bodyOf(call: ApiCall, answer: DataAnswer): CodedBody {
    return answer.job ? queryBody(pool, answer.job, String(call.key.id), answer.coding) : fileBody(call.scraper.data.file, answer.coding);
  }

  /**
   * Steps 12 and 13: streams the body, its download recorded before its last bytes go, or once it
   * is cut short, with the status it ended with. Throws what failed it before its first byte.
   */
  async function stream(request: FastifyRequest, reply: FastifyReply, answer: DataAnswer, body: CodedBody, download: PendingDownload) {
    const outcome = await streamResponse(request, reply, body, answer.headers, streamLimits, (sent) =>
      download.record({ status: 200, rows: body.rows(), bytes: body.bytes(sent) }),
    );
    const { format } = answer;
    if (outcome.kind === 'failed-before-start') throw format.kind === 'rows' ? queryFailureFor(format, outcome.error) : outcome.error;
    if (outcome.kind === 'complete') return;
    const error = outcome.error
      ? asSiphonError(outcome.error, reply)
      : outcome.reason === 'client-gone'
        ? errors.clientClosed()
        : undefined;
    noteRequest(request, { cut: outcome.reason, code: error?.code });
    // Nothing is left to wait for the record: the response has ended.
    void download.record({ status: error?.status ?? clientClosedStatus, rows: body.rows(), bytes: body.bytes(outcome.bytes) });
  }

  async function handle(request: FastifyRequest<DataRoute>, reply: FastifyReply): Promise<void> {
    const startedAt = performance.now();
    // Awaited only when there is something to wait for: each await is a turn of the microtask queue.
    const query = request.method === 'POST' ? await postParams(request, reply) : request.query;
    if (!query) return;
    const formatName = request.params.format ?? '';
    const format = findFormat(formatName);
    const param = (name: string) => singleParam(query[name]);
    // A JSONP call's errors go to its callback from here on.
    const callback = scriptCallback(format, param);
    const call = await admit(request, reply, param('key'), callback);
    if (!call) return;
    const sql = format?.kind === 'file' ? null : (param('query') ?? null);
    const download = new PendingDownload(recorder, call, format ? downloadName(format, callback) : formatName, sql, startedAt);
    let body: CodedBody | undefined;
    try {
      const answer = planDataAnswer(request, config, call, format, param, callback, sql, query);
      // Awaited only for a 304, as every await is a turn of the microtask queue.
      if (notModified(request, answer)) return await answerNotModified(reply, answer, download);
      if (answer.page) await linkNextPage(request, reply, call, answer, answer.page, param, sql ?? '');
      body = bodyOf(call, answer);
      await stream(request, reply, answer, body, download);
    } catch (err) {
      const error = asSiphonError(err, reply);
      await download.record({ status: error.status });
      answerError(reply, error, callback);
    } finally {
      const { status, format: recordedFormat, rows, bytes } = download;
      noteRequest(request, { status, format: recordedFormat, rows, bytes, query: body?.run && queryTiming(body.run) });
    }
  }

  for (const method of ['GET', 'POST'] as const) {
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data.:format', handler: loggedWhenDone(handle) });
    // Without an extension: answered as an unknown format, with the list of formats there are.
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data', handler: loggedWhenDone(handle) });
  }
}
