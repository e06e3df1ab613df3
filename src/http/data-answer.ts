import type { FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import { asksDownload, bodyContentType, fileExtension, formatNames, formatParams, type Format, type RowFormat } from '../formats/index.js';
import type { ContentCoding } from '../pool/compressors.js';
import type { QueryJob, QueryParam } from '../pool/protocol.js';
import { checkSql } from '../sql/check-sql.js';
import { boundValues, givenValues } from '../sql/named-params.js';
import type { Params } from '../utils/query-string.js';
import type { Scraper } from '../store/types.js';
import { rateLimitHeaders, type ApiCall } from './api-call.js';
import { negotiateCoding, setCoding } from './compression.js';
import { contentDisposition, queryFileName, scraperFileName } from './attachment.js';
import { asksRange } from './byte-range.js';
import { addValidators } from './conditional.js';
import { formatCall } from './format-call.js';
import { pagedSql, queryPageOf, type QueryPage } from './query-pages.js';

/** What a data call will answer, known before anything runs: its format, its query's job (none for a file), coding and headers. */
export interface DataAnswer {
  format: Format;
  job: QueryJob | undefined;
  coding: ContentCoding;
  headers: OutgoingHttpHeaders;
  /** The page of the query's rows it holds (`page_size`); none for all of them. */
  page: QueryPage | undefined;
}

/**
 * A data answer's headers, built in one object: this runs for every call, 304s included. Written on
 * the raw response, they carry the request's id themselves (request-log.ts).
 */
function responseHeaders(
  requestId: string,
  format: Format,
  call: ApiCall,
  callback: string | undefined,
  disposition: string | undefined,
  fileSize?: number,
): OutgoingHttpHeaders {
  // Copied, then added to: a literal starting with a spread and going on with named headers took
  // V8's slow path and left the object in dictionary mode, ~3 µs of every call.
  const headers: OutgoingHttpHeaders = Object.assign({}, call.cors);
  headers['content-type'] = bodyContentType(format, callback);
  // The key is in the URL: shared caches must not keep the response; browsers revalidate.
  headers['cache-control'] = 'private, no-cache';
  headers['x-content-type-options'] = 'nosniff';
  // Lets nginx and similar proxies stream rather than buffer whole results.
  headers['x-accel-buffering'] = 'no';
  headers['x-request-id'] = requestId;
  if (disposition !== undefined) headers['content-disposition'] = disposition;
  if (fileSize !== undefined) headers['content-length'] = fileSize;
  if (call.rate) Object.assign(headers, rateLimitHeaders(call.rate));
  return headers;
}

/** What a call from the pages adds to what its parameters say (routes/page-downloads.ts); the data API's own calls have none. */
export interface CallExtras {
  /** Values bound to the SQL's `?` parameters, in order: a table view's filters. */
  params?: QueryParam[];
  /** The file's name with `dl=1` instead of one made from the SQL. */
  fileName?: string;
}

/**
 * The `Content-Disposition` of a call: with `dl=1`, its file's readable name (the table's for a
 * whole-table query, a hash of the SQL for any other); without, csv and sqlite's as morph.io sent it.
 */
function dispositionOf(
  call: ApiCall,
  format: Format,
  callback: string | undefined,
  sql: string | null,
  download: boolean,
  fileName?: string,
) {
  const { scraper } = call;
  if (!download) return format.attachment ? contentDisposition(scraperFileName(scraper, format.attachment), true) : undefined;
  if (fileName !== undefined) return contentDisposition(fileName);
  const extension = fileExtension(format, callback);
  return contentDisposition(format.kind === 'file' ? scraperFileName(scraper, extension) : queryFileName(scraper, sql ?? '', extension));
}

/**
 * A query's job: steps 8 and 9 of the data API's lifecycle, the format's own parameters (400), the
 * SQL and its `:named` values (400) and the page asked for (400, 409), the job's SQL cut to it.
 */
function queryJob(
  request: FastifyRequest,
  config: Config,
  scraper: Scraper,
  format: RowFormat,
  param: (name: string) => string | undefined,
  sql: string | null,
  given: Params,
  bound: QueryParam[] | undefined,
): { job: QueryJob; page: QueryPage | undefined; sql: string } {
  const params = formatParams(format, param);
  const checkedSql = checkSql(sql ?? undefined, config.maxQueryChars);
  const values = boundValues(checkedSql, givenValues(given), config.maxQueryChars);
  const page = format.pageable ? queryPageOf(param, scraper, checkedSql, values) : undefined;
  const options = format.options(formatCall(request, config, scraper, checkedSql, params, values));
  const job: QueryJob = {
    scraperId: scraper.id,
    file: scraper.data.file,
    sql: page ? pagedSql(checkedSql, page) : checkedSql,
    format: format.name,
    options,
  };
  // Only when there are some: a job with values is never split over two processes.
  if (values) job.params = values;
  else if (bound !== undefined && bound.length > 0) job.params = bound;
  return { job, page, sql: checkedSql };
}

/**
 * Steps 7–9 of the data API's lifecycle (docs/design.md): the format (404), `dl` and the format's
 * own parameters (400) and the SQL with its `:named` values from the call's parameters, `given`
 * (400; a file takes none); then the answer's coding and headers, its validators from what shapes the
 * body (the job, or a file's format), known before anything runs.
 */
export function planDataAnswer(
  request: FastifyRequest,
  config: Config,
  call: ApiCall,
  format: Format | undefined,
  param: (name: string) => string | undefined,
  callback: string | undefined,
  sql: string | null,
  given: Params,
  extras: CallExtras = {},
): DataAnswer {
  if (!format) throw errors.formatUnknown(formatNames);
  const { scraper } = call;
  const download = asksDownload(param);
  const query = format.kind === 'rows' ? queryJob(request, config, scraper, format, param, sql, given, extras.params) : undefined;
  // A file takes no query, and so no values: any it is given is unused (400).
  if (!query) boundValues('', givenValues(given), Infinity);
  const job = query?.job;
  // A range is of the file's own bytes: a call asking for one gets them as they are, ranged or whole.
  const coding = !query && asksRange(request) ? 'identity' : negotiateCoding(request.headers);
  const disposition = dispositionOf(call, format, callback, query?.sql ?? null, download, extras.fileName);
  const headers = responseHeaders(request.id, format, call, callback, disposition, job ? undefined : scraper.data.sizeBytes);
  setCoding(headers, coding);
  addValidators(headers, scraper, job ?? { format: format.name, fileBytes: true }, coding);
  if (!job) headers['accept-ranges'] = 'bytes';
  return { format, job, coding, headers, page: query?.page };
}
