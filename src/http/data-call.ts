import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { PendingDownload } from '../downloads/pending-download.js';
import type { DownloadRecorder } from '../downloads/recorder.js';
import { errors } from '../errors.js';
import { downloadName, queryFailureFor, type Format } from '../formats/index.js';
import type { QueryTiming } from '../log/request-line.js';
import { fileBody, queryBody, type CodedBody } from '../pool/coded-body.js';
import type { QueryPool } from '../pool/pool.js';
import type { QueryRun } from '../pool/query-run.js';
import type { Params } from '../utils/query-string.js';
import type { ApiCall } from './api-call.js';
import { askedRange, partialContentStatus, setRange, type ByteRange } from './byte-range.js';
import { whileClientWaits } from './client-waits.js';
import { isNotModified, notModifiedStatus, sendNotModified } from './conditional.js';
import { planDataAnswer, type CallExtras, type DataAnswer } from './data-answer.js';
import { nextPageLink, type QueryPage } from './query-pages.js';
import { noteRequest } from './request-log.js';
import { answerError, asSiphonError } from './send-error.js';
import { streamResponse } from './stream-response.js';

type ParamReader = (name: string) => string | undefined;

/** A data call let in (api-call.ts): what it asks for, read from its parameters by whoever let it in. */
export interface DataAsk {
  call: ApiCall;
  /** Undefined when the name is no format's: a 404 listing them. */
  format: Format | undefined;
  /** As the format was named, recorded when it is no format's. */
  formatName: string;
  param: ParamReader;
  /** Its parameters as given, for the SQL's `:named` values; none for a call from the pages. */
  given: Params;
  callback: string | undefined;
  /** The query's SQL; null for a file, or when none was given (a 400). */
  sql: string | null;
  /** What the download is recorded as asking: the SQL (the data API's), or a page's download address. */
  recordedQuery: string | null;
  /** When the call came (performance.now()). */
  startedAt: number;
  extras?: CallExtras;
  /** A step before these refused the call (a saved query not found): answered, and recorded, as theirs are. */
  refusal?: unknown;
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
 * Steps 7–13 of the data API's lifecycle (docs/design.md), for a call already let in: the data
 * API's own (routes/data.ts) and the pages' download buttons' (routes/page-downloads.ts) alike, so a
 * button's file is the API's, byte for byte, bounded and recorded as it is.
 */
export function dataCalls(deps: { config: Config; pool: QueryPool; recorder: DownloadRecorder }) {
  const { config, pool, recorder } = deps;
  const streamLimits = { idleTimeoutMs: config.clientIdleTimeoutMs, maxResponseMs: config.maxResponseMs };

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
  async function linkNextPage(request: FastifyRequest, reply: FastifyReply, ask: DataAsk, answer: DataAnswer, page: QueryPage) {
    const client = whileClientWaits(reply);
    try {
      const link = await nextPageLink(
        request,
        deps,
        ask.call.scraper,
        ask.sql ?? '',
        page,
        ask.param,
        String(ask.call.key.id),
        client.signal,
      );
      if (link !== undefined) answer.headers.link = link;
    } finally {
      client.done();
    }
  }

  /** Step 11: the query queued fairly for the key's turn in a query process, or the file (or its range); its body in the answer's coding. */
  function bodyOf(call: ApiCall, answer: DataAnswer, range: ByteRange | undefined): CodedBody {
    return answer.job
      ? queryBody(pool, answer.job, String(call.key.id), answer.coding)
      : fileBody(call.scraper.data.file, answer.coding, range);
  }

  /**
   * After step 10, for a file: the range asked for (byte-range.ts), its answer's headers set. Only
   * what is answered from the file's first byte is a download: a range after it continues one, and
   * one past its end (416) asks for nothing; neither is counted again.
   */
  function rangeOf(request: FastifyRequest, call: ApiCall, answer: DataAnswer, download: PendingDownload): ByteRange | undefined {
    const size = call.scraper.data.sizeBytes;
    const range = answer.job ? undefined : askedRange(request, answer.headers, size);
    if (range === undefined) return undefined;
    if (range === 'unsatisfiable' || range.start > 0) download.notCounted();
    if (range === 'unsatisfiable') throw errors.rangeNotSatisfiable(size);
    setRange(answer.headers, range, size);
    return range;
  }

  /**
   * Steps 12 and 13: streams the body, its download recorded before its last bytes go, or once it
   * is cut short, with the status it ended with. Throws what failed it before its first byte.
   */
  async function stream(
    request: FastifyRequest,
    reply: FastifyReply,
    answer: DataAnswer,
    body: CodedBody,
    status: number,
    download: PendingDownload,
  ) {
    const outcome = await streamResponse(request, reply, body, status, answer.headers, streamLimits, (sent) =>
      download.record({ status, rows: body.rows(), bytes: body.bytes(sent) }),
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

  /** Answers the call: a 304, the body streamed, or its refusal (to its JSONP callback if it named one); its download recorded. */
  return async function answerDataCall(request: FastifyRequest, reply: FastifyReply, ask: DataAsk): Promise<void> {
    const { call, format, callback, sql } = ask;
    const recordedFormat = format ? downloadName(format, callback) : ask.formatName;
    const download = new PendingDownload(recorder, call, recordedFormat, ask.recordedQuery, ask.startedAt);
    let body: CodedBody | undefined;
    try {
      if (ask.refusal !== undefined) throw ask.refusal;
      const answer = planDataAnswer(request, config, call, format, ask.param, callback, sql, ask.given, ask.extras);
      // Awaited only for a 304, as every await is a turn of the microtask queue.
      if (notModified(request, answer)) return await answerNotModified(reply, answer, download);
      if (answer.page) await linkNextPage(request, reply, ask, answer, answer.page);
      const range = rangeOf(request, call, answer, download);
      body = bodyOf(call, answer, range);
      await stream(request, reply, answer, body, range ? partialContentStatus : 200, download);
    } catch (err) {
      const error = asSiphonError(err, reply);
      await download.record({ status: error.status });
      answerError(reply, error, callback);
    } finally {
      const { status, format: noted, rows, bytes } = download;
      noteRequest(request, { status, format: noted, rows, bytes, query: body?.run && queryTiming(body.run) });
    }
  };
}
