import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import { listFiles } from './cli.js';
import { makeDb, tempDir } from './fixture-db.js';
import { dataUrl } from './server.js';

/** Version k of a scraper's data: a table t of 100·k rows, every v equal to k; `padKb` adds that many KB of filler. */
export function versionDb(k: number, padKb = 0): string {
  const rows = (n: number) => `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${n})`;
  return makeDb(
    tempDir(),
    `v${k}.sqlite`,
    `create table t (v integer); ${rows(100 * k)} insert into t select ${k} from n;
    ${padKb ? `create table pad (b blob); ${rows(padKb)} insert into pad select randomblob(1000) from n;` : ''}`,
  );
}

/**
 * A sound database whose import never ends: the import counts the rows of every table, and counting
 * those of this FTS5 table reads its content, a view of an endless recursive CTE.
 */
export function endlessImportDb(): string {
  return makeDb(
    tempDir(),
    'endless.sqlite',
    `create table t (v integer); insert into t values (1);
    create view endless (rowid, body) as with recursive c(x) as (select 1 union all select x + 1 from c) select x, 'word' from c;
    create virtual table f using fts5(body, content = 'endless', content_rowid = 'rowid');`,
  );
}

/** The temporary files of publishes (uploads and imports) in a data folder, as paths relative to it. */
export function publishTempFiles(dataDir: string): string[] {
  return listFiles(dataDir).filter((f) => /(^|\/)\.(upload|incoming)-/.test(f));
}

/** What a reader sees now in a scraper made of versionDb() files: the rows of t and their version. */
export async function readVersion(base: string, scraper: string, key: string): Promise<{ n: number; v: number }> {
  const res = await fetch(dataUrl(base, scraper, 'json', { key, query: 'select count(*) as n, min(v) as v from t' }));
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return (JSON.parse(text) as { n: number; v: number }[])[0]!;
}

export function publishUrl(base: string, scraper: string, query = ''): string {
  return `${base}/${scraper}/data.sqlite${query}`;
}

/** A publish as curl --data-binary sends it: the whole body with its Content-Length. */
export function putBody(
  base: string,
  scraper: string,
  body: BodyInit,
  headers: Record<string, string>,
  query = '',
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(publishUrl(base, scraper, query), { method: 'PUT', body, headers, signal });
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A PUT through node:http, for bodies fetch cannot send: `send` writes the body. Once the server has
 * answered, the request is dropped, and errors are ignored: a server refusing a body may close the
 * connection on a client still sending it.
 */
function putRaw(
  url: string,
  headers: Record<string, string>,
  send: (req: http.ClientRequest, answered: () => boolean) => void,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method: 'PUT', headers }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => {
        body += s;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    send(req, () => answered);
  });
}

const chunked = { 'transfer-encoding': 'chunked' };

/** PUTs a file as a chunked body (no Content-Length), the way a streaming client sends it. */
export function putChunked(url: string, headers: Record<string, string>, file: string): Promise<RawAnswer> {
  return putRaw(url, { ...headers, ...chunked }, (req) => {
    createReadStream(file, { highWaterMark: 16 * 1024 }).pipe(req);
  });
}

/**
 * Sends `chunk` again and again as a chunked body, never ending the request, until the server
 * answers or `maxChunks` are sent. Only a server that refuses the body before its end can answer.
 */
export async function putUntilAnswered(
  url: string,
  headers: Record<string, string>,
  chunk: Buffer,
  maxChunks: number,
): Promise<RawAnswer & { chunksSent: number }> {
  let chunksSent = 0;
  const answer = await putRaw(url, { ...headers, ...chunked }, (req, answered) => {
    const pump = (): void => {
      while (!answered() && chunksSent < maxChunks) {
        chunksSent += 1;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  return { ...answer, chunksSent };
}

/** Sends only the headers, announcing a body of `contentLength` bytes that never comes. */
export function putHeadersOnly(url: string, headers: Record<string, string>, contentLength: number): Promise<RawAnswer> {
  return putRaw(url, { ...headers, 'content-length': String(contentLength) }, (req) => req.flushHeaders());
}

/**
 * Starts a chunked PUT and sends `chunk`. Then either sends nothing more until the server closes
 * the connection (`'stall'`: a client stalled; one the server has not closed within `stallMs`
 * fails), or drops the connection once the promise `then()` returns resolves (a client gone
 * mid-upload, once the server is receiving it).
 */
export async function putPartly(
  url: string,
  headers: Record<string, string>,
  chunk: Buffer,
  then: 'stall' | (() => Promise<void>),
  stallMs = 5000,
): Promise<void> {
  const req = http.request(url, { method: 'PUT', headers: { ...headers, ...chunked } });
  req.on('error', () => {}); // the connection is meant to end unfinished
  const closed = new Promise((resolve) => req.on('close', resolve));
  await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
  if (then !== 'stall') {
    await then();
    req.destroy();
    await closed;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'gave up'>((resolve) => {
    timer = setTimeout(() => resolve('gave up'), stallMs);
  });
  const outcome = await Promise.race([closed, gaveUp]);
  clearTimeout(timer);
  req.destroy();
  if (outcome === 'gave up') throw new Error(`the server kept a stalled upload open for ${stallMs} ms`);
}
