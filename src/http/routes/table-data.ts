import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import { browseTable, fetchRow, parseView } from '../../browse/index.js';
import type { TwinFormat } from '../../browse/twin-formats.js';
import type { BrowsePage } from '../../browse/types.js';
import type { Config } from '../../config.js';
import { PendingDownload } from '../../downloads/pending-download.js';
import type { DownloadRecorder } from '../../downloads/recorder.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import { errors, type SiphonError } from '../../errors.js';
import type { QueryPool } from '../../pool/pool.js';
import type { ApiKey, Scraper, Store, TableInfo } from '../../store/types.js';
import { rowPath, tableNameOf, tablePath, twinOwnParams, viewHref, withParams } from '../../views/table-paths.js';
import { admitApiCall, type ApiCall } from '../api-call.js';
import { whileClientWaits } from '../client-waits.js';
import { negotiateCoding, setCoding } from '../compression.js';
import { compressorFor } from '../../pool/compressors.js';
import { publicOrigin } from '../public-origin.js';
import { paramPairs } from '../../utils/query-string.js';
import { noteRequest } from '../request-log.js';
import { asSiphonError, answerError } from '../send-error.js';
import { csvBody, jsonBody, rowJsonBody, rowIdPattern } from '../table-twins.js';
import { contentDisposition, tableFileName } from '../attachment.js';
import { asksDownload, csvOptionsOf } from '../../formats/index.js';

interface TwinRoute {
  Params: { owner: string; scraper: string; table: string; rowid?: string };
}

/** What a twin answers: its body and type, and the facts its download is recorded with. */
interface TwinAnswer {
  body: string;
  type: string;
  rows: number;
  headers: OutgoingHttpHeaders;
}

/**
 * The table pages' twins for programs: `…/tables/{table}.json`, `.csv` and `…/{rowid}.json`. They
 * are API calls, as `data.{format}` is: a key (the `key` parameter, `X-API-Key` or `Authorization:
 * Bearer`), the key's rate limit, its lane of the API pool's fair queue, and a download recorded
 * for every call that gets past the rate limit (format `table.json`, `table.csv` or `row.json`; its
 * query the view's path and canonical parameters).
 */
export function tableDataRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Store; pool: QueryPool; recorder: DownloadRecorder; rateLimiter?: RateLimiter },
): void {
  const { config, pool, recorder } = deps;

  /** The twin's parameters, its `key` taken out. */
  const withoutKey = (request: FastifyRequest) => paramPairs(request.url).filter(([name]) => name !== 'key');
  /** The twin's own parameters but its key, `dl` and `excel` (twinOwnParams). */
  const ownPairs = (request: FastifyRequest) => paramPairs(request.url).filter(([name]) => name !== 'key' && twinOwnParams.has(name));
  /** One of them; when repeated, the first one counts, as on the data API. */
  const ownParam = (request: FastifyRequest) => (name: string) => ownPairs(request).find(([n]) => n === name)?.[1];

  function absolute(request: FastifyRequest, path: string): string {
    return `${publicOrigin(request, config) ?? ''}${path}`;
  }

  /**
   * A table view's twin: `.csv` always an attachment named for the table, `.json` one with `dl=1`.
   * `dl` and `excel` are checked before the view (400), and carried into the next page's URL.
   */
  async function tableAnswer(request: FastifyRequest, scraper: Scraper, table: TableInfo, key: ApiKey, csv: boolean, signal: AbortSignal) {
    const param = ownParam(request);
    const download = asksDownload(param) || csv;
    const csvOptions = csv ? csvOptionsOf(param) : {};
    const view = parseView(
      paramPairs(request.url).filter(([name]) => !twinOwnParams.has(name)),
      table,
    );
    const page: BrowsePage = await browseTable(pool, scraper, table, view, String(key.id), signal);
    const nextUrl = page.next
      ? absolute(request, withParams(viewHref(scraper, table, { ...view, next: page.next }, csv ? '.csv' : '.json'), ownPairs(request)))
      : null;
    const headers: OutgoingHttpHeaders = nextUrl ? { link: `<${nextUrl}>; rel="next"` } : {};
    if (download) headers['content-disposition'] = contentDisposition(tableFileName(scraper, table.name, csv ? 'csv' : 'json'));
    if (csv) return { body: csvBody(page, csvOptions), type: 'text/csv; charset=utf-8', rows: page.rows.length, headers };
    return {
      body: jsonBody(scraper, table, view, page, nextUrl),
      type: 'application/json; charset=utf-8',
      rows: page.rows.length,
      headers,
    };
  }

  /** A row's twin: an attachment named `<owner>-<scraper>-<table>-<rowid>.json` with `dl=1`. */
  async function rowAnswer(request: FastifyRequest, scraper: Scraper, table: TableInfo, rowid: string, key: ApiKey, signal: AbortSignal) {
    const download = asksDownload(ownParam(request));
    const row = rowIdPattern.test(rowid) ? await fetchRow(pool, scraper, table, rowid, String(key.id), signal) : undefined;
    if (!row) throw errors.rowNotFound(table.name, rowid);
    const headers: OutgoingHttpHeaders = download
      ? { 'content-disposition': contentDisposition(tableFileName(scraper, `${table.name}-${rowid}`, 'json')) }
      : {};
    return { body: rowJsonBody(rowid, row), type: 'application/json; charset=utf-8', rows: 1, headers };
  }

  async function handle(request: FastifyRequest<TwinRoute>, reply: FastifyReply, format: TwinFormat) {
    const startedAt = performance.now();
    const { owner, scraper: scraperName, rowid } = request.params;
    let call: ApiCall;
    try {
      const pairs = paramPairs(request.url);
      const param = (name: string) => pairs.find(([given]) => given === name)?.[1];
      call = await admitApiCall(request, reply, { key: param('key'), version: param('version') }, deps);
    } catch (err) {
      answerError(reply, asSiphonError(err, reply));
      return;
    }
    const { key, scraper } = call;
    const tableName = tableNameOf(request.params.table);
    // What was asked for, without the key: the path and the parameters as sent.
    const extension = format === 'table.csv' ? '.csv' : '.json';
    const path =
      rowid === undefined ? tablePath(owner, scraperName, tableName, extension) : rowPath(owner, scraperName, tableName, rowid, extension);
    const download = new PendingDownload(recorder, call, format, withParams(path, withoutKey(request)), startedAt);
    const client = whileClientWaits(reply);
    let answer: TwinAnswer | undefined;
    let error: SiphonError | undefined;
    try {
      const table = scraper.data.tables.find((t) => t.name === tableName);
      if (!table) throw errors.tableNotFound(tableName);
      answer =
        rowid === undefined
          ? await tableAnswer(request, scraper, table, key, format === 'table.csv', client.signal)
          : await rowAnswer(request, scraper, table, rowid, key, client.signal);
    } catch (err) {
      error = asSiphonError(err, reply);
    } finally {
      client.done();
    }
    const body = answer?.body;
    // Recorded (into the spool) before the answer is sent, as the data API does: a node killed the
    // moment after loses no download it answered.
    await download.record({
      status: error?.status ?? 200,
      rows: answer?.rows ?? null,
      bytes: body === undefined ? 0 : Buffer.byteLength(body),
    });
    noteRequest(request, { status: download.status, format, rows: download.rows, bytes: download.bytes });
    if (!answer) return answerError(reply, error ?? errors.internal());
    return send(request, reply, call, answer);
  }

  /**
   * The answer, in the coding the client asked for, as the data API's: the CORS headers' `Vary`
   * kept, `Accept-Encoding` added. The reply is returned for the handler to return: a compressed
   * body is a stream, and an async handler that returns nothing while it streams is answered again,
   * empty, by Fastify.
   */
  function send(request: FastifyRequest, reply: FastifyReply, call: ApiCall, answer: TwinAnswer): FastifyReply {
    const headers: OutgoingHttpHeaders = Object.assign({}, call.cors, answer.headers);
    headers['content-type'] = answer.type;
    headers['cache-control'] = 'private, no-cache';
    headers['x-content-type-options'] = 'nosniff';
    const coding = negotiateCoding(request.headers);
    setCoding(headers, coding);
    const compressor = compressorFor(coding);
    compressor?.end(answer.body);
    return reply
      .code(200)
      .headers(headers)
      .send(compressor ?? answer.body);
  }

  app.get<TwinRoute>('/:owner/:scraper/tables/:table.json', (request, reply) => handle(request, reply, 'table.json'));
  app.get<TwinRoute>('/:owner/:scraper/tables/:table.csv', (request, reply) => handle(request, reply, 'table.csv'));
  app.get<TwinRoute>('/:owner/:scraper/tables/:table/:rowid.json', (request, reply) => handle(request, reply, 'row.json'));
}
