import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { redactUrl } from '../log/redact.js';
import type { QueryTiming, RequestFacts, RequestLine } from '../log/request-line.js';

export type LineSink = (line: RequestLine, query: QueryTiming | undefined) => void;

/** Writes a request's line to the log, as `reqId`'s (the log's `requestLine`). */
export type LineWriter = (level: 'info' | 'warn', reqId: string, line: RequestLine) => void;

/** Where each request's line goes: the log, and what else counts requests (the metrics). */
export interface LineOutputs {
  write: LineWriter;
  sink: LineSink;
}

interface Entry {
  request: FastifyRequest;
  facts: RequestFacts;
  startedAt: number;
  reply: FastifyReply;
  outputs: LineOutputs;
  /** The route's handler still runs, and the line waits for its facts. */
  held: boolean;
  ended: boolean;
  written: boolean;
}

/**
 * Each request's entry is kept on the request itself, under a symbol. A WeakMap keyed by requests,
 * each short-lived, cost ~10 µs of CPU per request: V8's young collections treat every entry whose
 * key is young as an ephemeron to trace.
 */
const entryKey = Symbol('request line');
type Tracked = { [entryKey]?: Entry };
const entryOf = (request: object): Entry | undefined => (request as Tracked)[entryKey];

/** An incoming `X-Request-Id` taken as it is: short, plain, and not something that could be a key. */
const wellFormedId = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request's id: the client's or proxy's `X-Request-Id` when well formed, else a new UUID. */
export function requestId(headers: IncomingHttpHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && wellFormedId.test(sent) && !/sph_/i.test(sent) ? sent : randomUUID();
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The client's address; one that X-Forwarded-For made up (anything but an address) is not logged as sent. */
const loggedIp = (ip: string | undefined) => (ip === undefined || isIP(ip) ? ip : '[not an IP address]');

/** Adds what a route learnt to its request's line. */
export function noteRequest(request: object, facts: RequestFacts): void {
  const entry = entryOf(request);
  if (entry) Object.assign(entry.facts, facts);
}

/**
 * The route's handler as one whose request line is written once it has finished as well as its
 * response: a streamed response can end before the handler has counted its rows.
 */
export function loggedWhenDone<R extends object>(handler: (request: R, reply: FastifyReply) => Promise<void>) {
  return async (request: R, reply: FastifyReply): Promise<void> => {
    const entry = entryOf(request);
    if (entry) entry.held = true;
    try {
      await handler(request, reply);
    } finally {
      if (entry) {
        entry.held = false;
        if (entry.ended) write(entry);
      }
    }
  };
}

/**
 * Starts a request's line: `X-Request-Id` goes on its response, and the line is written once the
 * response has ended, by finishing or by its connection closing. Called first of all for each
 * request; again is harmless. The id is set on the reply, not on the raw response: a header set on
 * the raw response makes Node's `writeHead` take every other header one `setHeader` at a time
 * (~1 µs of a 304's CPU), so a response written raw (the data route's)
 * carries the id in its own headers.
 */
export function trackRequest(request: FastifyRequest, reply: FastifyReply, outputs: LineOutputs): void {
  if (entryOf(request)) return;
  void reply.header('x-request-id', request.id);
  const entry: Entry = { request, facts: {}, startedAt: performance.now(), reply, outputs, held: false, ended: false, written: false };
  (request as Tracked)[entryKey] = entry;
  reply.raw.once('close', () => {
    entry.ended = true;
    if (!entry.held) write(entry);
  });
}

function write(entry: Entry): void {
  const { request } = entry;
  if (entry.written) return;
  entry.written = true;
  const { facts } = entry;
  const { err, query } = facts;
  // Its duration is added last, after the facts, where the log has always had it.
  const line = {
    method: request.method,
    url: redactUrl(request.url),
    route: request.routeOptions.url ?? null,
    status: facts.status ?? entry.reply.statusCode,
  } as RequestLine;
  // The facts field by field, in the order they were noted: a literal with a rest and a spread made
  // an object V8 writes out the slow way, 40 % more of the line's CPU.
  for (const name in facts) {
    if (name !== 'err' && name !== 'query' && name !== 'status')
      (line as unknown as Record<string, unknown>)[name] = facts[name as keyof RequestFacts];
  }
  line.ip = loggedIp(request.ip);
  line.durationMs = round(performance.now() - entry.startedAt);
  if (query) {
    line.queueMs = round(query.waitMs);
    if (query.runMs !== undefined) line.queryMs = round(query.runMs);
    if (query.ranges !== undefined) line.ranges = query.ranges;
  }
  // A fault of ours goes through pino, for its error's serializer; every other line is written whole.
  if (err) request.log.error({ ...line, err }, 'request');
  else entry.outputs.write(line.cut ? 'warn' : 'info', request.id, line);
  entry.outputs.sink(line, query);
}

/**
 * The line of a request refused before the framework saw it (by Node's HTTP parser, say): it has
 * no route, and what could be read of it may not be logged (its URL could hold a key). Returns its id.
 */
export function logRefusedConnection(
  log: FastifyBaseLogger,
  sink: LineSink,
  headers: IncomingHttpHeaders | undefined,
  details: { status: number; code: string; parserCode?: string },
): string {
  const id = requestId(headers ?? {});
  const line: RequestLine = { route: null, durationMs: 0, ...details };
  log.info({ reqId: id, ...line }, 'request');
  sink(line, undefined);
  return id;
}
