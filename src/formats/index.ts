import { errors, QueryFailed, type SiphonError } from '../errors.js';
import { atomFeed } from './atom-feed.js';
import { atomColumns, atomEncoder } from './atom.js';
import { csvEncoder, type CsvOptions } from './csv.js';
import type { Format, FormatParam, RowFormat } from './format.js';
import { jsonEncoder, ndjsonEncoder } from './json.js';
import { callbackParam, jsonpScript } from './jsonp.js';

export type { Format, RowFormat } from './format.js';
export { isValidCallback, jsonpContentType } from './jsonp.js';

/** A parameter that is `1` (yes) or `0` (no, as when it is absent). */
function flagParam(invalid: () => SiphonError): FormatParam {
  return { valid: (value) => value === '0' || value === '1', invalid };
}

/**
 * `dl=1` asks for any format's body as a named file (`Content-Disposition: attachment`); without
 * it, the headers are those morph.io's clients expect. Every format takes it.
 */
const downloadParam = { name: 'dl', ...flagParam(errors.downloadInvalid) } as const;

/** `page_size` and `next`: a page of the query's rows, on a format that is `pageable` (http/query-pages.ts). */
const pageParamNames = ['page_size', 'next'];

/** csv's `excel=1`: a file Excel opens right (csv.ts). */
const excelParam = flagParam(errors.excelInvalid);

/**
 * The formats a scraper's data can be fetched in, keyed by the extension in `data.<format>`.
 * A `rows` format runs the query and encodes its rows; a `file` format sends the database file.
 * Adding a format is one file (its encoder and what it takes from a call) plus one entry here:
 * nothing else in the server names a format.
 */
const list: Format[] = [
  rowFormat({
    kind: 'rows',
    name: 'json',
    rangeable: true,
    pageable: true,
    contentType: 'application/json; charset=utf-8',
    encoder: jsonEncoder,
    params: { callback: callbackParam },
    script: jsonpScript,
    options: ({ params }) => (params.callback === undefined ? {} : { callback: params.callback }),
  }),
  rowFormat({
    kind: 'rows',
    name: 'csv',
    rangeable: true,
    pageable: true,
    contentType: 'text/csv; charset=utf-8',
    attachment: 'csv',
    encoder: csvEncoder,
    params: { excel: excelParam },
    // Plain CSV's options stay `{}`, so its ETag is what it was before `excel` existed.
    options: ({ params }): CsvOptions => (params.excel === '1' ? { excel: true } : {}),
  }),
  rowFormat({
    kind: 'rows',
    name: 'ndjson',
    rangeable: true,
    pageable: true,
    contentType: 'application/x-ndjson; charset=utf-8',
    encoder: ndjsonEncoder,
    options: () => ({}),
  }),
  { kind: 'file', name: 'sqlite', contentType: 'application/vnd.sqlite3', attachment: 'sqlite' },
  rowFormat({
    kind: 'rows',
    name: 'atom',
    contentType: 'application/atom+xml; charset=utf-8',
    encoder: atomEncoder,
    options: atomFeed,
    requiredColumns: { names: atomColumns, missing: errors.atomColumns },
  }),
];

/** Checks that a format's options are what its encoder takes; the list holds them as opaque. */
function rowFormat<O>(format: RowFormat<O>): RowFormat {
  return format;
}

export const formatNames: readonly string[] = list.map((f) => f.name);
/** The formats of rows, which any query is served in (a saved query's data URLs); not a whole file's. */
export const rowFormatNames: readonly string[] = list.flatMap((f) => (f.kind === 'rows' ? [f.name] : []));

/** Every name a call is recorded under (downloadName): the formats', and their scripts' (`jsonp`). */
export const downloadNames: readonly string[] = [
  ...formatNames,
  ...list.flatMap((f) => (f.kind === 'rows' && f.script ? [f.script.name] : [])),
];

/**
 * The request parameters the formats take besides `key` and `query` (`dl`, a JSONP callback, csv's `excel`), for the
 * parts of the server that read parameters before a format is known: a POST's JSON body, and the
 * log's list of parameters known to hold no secret.
 */
export const formatParamNames: readonly string[] = [
  downloadParam.name,
  ...pageParamNames,
  ...new Set(list.flatMap((f) => (f.kind === 'rows' ? Object.keys(f.params ?? {}) : []))),
];

/**
 * `version`, which every data call takes whatever its format (a kept data version: http/pinned-version.ts),
 * named here beside the formats' own for the same readers: a POST's body, a next page's link, the log.
 */
export const versionParamName = 'version';

export function findFormat(name: string): Format | undefined {
  return list.find((f) => f.name === name);
}

type ParamReader = (name: string) => string | undefined;

/**
 * The function a call's body and errors are handed to: its format takes one (JSONP) and the call
 * names a valid one. Known before anything is checked, so every error after it reaches the script.
 */
export function scriptCallback(format: Format | undefined, param: ParamReader): string | undefined {
  if (format?.kind !== 'rows' || !format.script) return undefined;
  const value = param(format.script.param);
  return value !== undefined && format.params?.[format.script.param]?.valid(value) ? value : undefined;
}

/** The csv options a call asks for (`excel`), for CSV written outside the query processes; throws the client's error for a value not 0 or 1. */
export function csvOptionsOf(param: ParamReader): CsvOptions {
  const value = param('excel');
  if (value !== undefined && !excelParam.valid(value)) throw excelParam.invalid();
  return value === '1' ? { excel: true } : {};
}

/** Whether the call asks for its body as a named file (`dl=1`); throws the client's error for a value not 0 or 1. */
export function asksDownload(param: ParamReader): boolean {
  const value = param(downloadParam.name);
  if (value !== undefined && !downloadParam.valid(value)) throw downloadParam.invalid();
  return value === '1';
}

/** The parameters a format declares, those given; throws the error of the first one not valid. */
export function formatParams(format: RowFormat, param: ParamReader): Record<string, string> {
  const given: Record<string, string> = {};
  for (const [name, declared] of Object.entries(format.params ?? {})) {
    const value = param(name);
    if (value === undefined) continue;
    if (!declared.valid(value)) throw declared.invalid();
    given[name] = value;
  }
  return given;
}

/** The body's content type: a script's when the call named a callback. */
export function bodyContentType(format: Format, callback: string | undefined): string {
  return callback !== undefined && format.kind === 'rows' && format.script ? format.script.contentType : format.contentType;
}

/** The extension of the file a call's body is saved as: a script's when the call named a callback. */
export function fileExtension(format: Format, callback: string | undefined): string {
  if (format.kind === 'file') return format.attachment;
  return callback !== undefined && format.script ? format.script.extension : format.name;
}

/** The format a call is recorded under in downloads: a script's own name when the call named a callback. */
export function downloadName(format: Format, callback: string | undefined): string {
  return callback !== undefined && format.kind === 'rows' && format.script ? format.script.name : format.name;
}

/** A query's failure as the client's error of the format it was for: its own, for columns it needs that the query lacks. */
export function queryFailureFor(format: RowFormat, err: Error): Error {
  if (!(err instanceof QueryFailed) || err.failure.kind !== 'columns') return err;
  return format.requiredColumns?.missing(err.failure.missing) ?? err;
}
