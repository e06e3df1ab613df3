import type { SiphonError } from '../errors.js';
import type { Encoder } from './encoder.js';

/**
 * What a row format can read of the call it answers, to build its encoder options. Built by the
 * route; nothing in it holds a key.
 */
export interface FormatCall {
  /** The parameters the format declared, as given (already checked); those not given are absent. */
  params: Readonly<Record<string, string>>;
  /** The query, already checked. */
  sql: string;
  /** The values bound to the query's `:named` parameters, by name without the colon; empty when it has none. */
  values: Readonly<Record<string, string>>;
  scraper: { owner: string; name: string; description: string; updatedAt: string };
  /** The service's public address (`https://host[:port]`); throws the client's error when it cannot be known. */
  publicBase(): string;
  /**
   * This call's URL on the public address, path and query as sent, keeping only the parameters
   * known to hold no secret, less those in `drop`. Undefined for a call whose parameters came in a
   * body (a POST): its URL does not say what it asked for.
   */
  publicUrl(drop: readonly string[]): string | undefined;
}

/**
 * A request parameter a format takes besides `key` and `query`. It must never hold a secret: it is
 * logged as sent, and may be echoed in the body (a JSONP callback is).
 */
export interface FormatParam {
  valid(value: string): boolean;
  /** The client's error for a value that is not valid. */
  invalid(): SiphonError;
}

/**
 * A parameter that makes the body a script handing the rows to the function it names (JSONP). The
 * response then has its own content type and is recorded under its own name, and errors are handed
 * to the function with a 200, because browsers do not run a script served with an error status.
 */
export interface ScriptParam {
  param: string;
  /** Downloads record the call under this name instead of the format's. */
  name: string;
  contentType: string;
  /** The extension of the file it is saved as (`dl=1`). */
  extension: string;
}

/**
 * A format whose body is the query's rows, encoded in the query process. `O` is its encoder
 * options: plain JSON data, as they travel to the query process in the job and are hashed into the
 * ETag with it, so they must hold everything that shapes the body and nothing else.
 */
export interface RowFormat<O = unknown> {
  kind: 'rows';
  name: string;
  contentType: string;
  /** Sent as an attachment with this file extension. */
  attachment?: string;
  /** The parameters it takes, checked in the data route before the SQL. */
  params?: Readonly<Record<string, FormatParam>>;
  script?: ScriptParam;
  /** Its encoder options for a call; may throw the client's error when it cannot be answered. */
  options(call: FormatCall): O;
  /**
   * Columns the query must return, checked in the query process before the first byte, and the
   * client's error (from errors.ts) naming those the query lacks.
   */
  requiredColumns?: { names: readonly string[]; missing(missing: readonly string[]): SiphonError };
  /**
   * Its body for a query can be made in consecutive ranges of the rows by separate encoders and
   * joined (src/pool/ranges.ts): the first range writes the head, the last the tail, and each
   * encoder is told whether rows came before its range. True only for a format with no state across
   * rows beyond what `rowsBefore` says; absent, a query in this format is never split.
   */
  rangeable?: true;
  /** Its body keeps its shape when the rows are a page of the query's (`page_size`). */
  pageable?: true;
  encoder(columns: readonly string[], options: O, rowsBefore?: boolean): Encoder;
}

/** A format whose body is the scraper's database file itself. */
export interface FileFormat {
  kind: 'file';
  name: string;
  contentType: string;
  attachment: string;
}

export type Format = RowFormat | FileFormat;
