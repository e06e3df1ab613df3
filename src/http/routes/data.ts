import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { DownloadRecorder } from '../../downloads/recorder.js';
import { errors } from '../../errors.js';
import { findFormat, scriptCallback, versionParamName } from '../../formats/index.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { RequestLimits } from '../../limits/request-size.js';
import type { QueryPool } from '../../pool/pool.js';
import type { Store } from '../../store/types.js';
import type { Params } from '../../utils/query-string.js';
import { admitApiCall } from '../api-call.js';
import { dataCalls } from '../data-call.js';
import { readQueryBody } from '../query-body.js';
import { requestQuery, savedQuery, type CallQuery } from '../query-source.js';
import { loggedWhenDone } from '../request-log.js';
import { sendError } from '../send-error.js';
import { settleUnreadBody } from '../unread-body.js';
import { singleParam } from './params.js';

interface DataRoute {
  /** `name`: a saved query's, on its data URLs. */
  Params: { owner: string; scraper: string; format?: string; name?: string };
  Querystring: Params;
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
  const { config, limits, bodyFailure } = deps;
  const bodyLimits = {
    maxBytes: limits.maxBodyBytes,
    idleMs: config.clientIdleTimeoutMs,
    tooLarge: () => errors.bodyTooLarge(limits.maxBodyBytes),
  };
  const answerDataCall = dataCalls(deps);

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
  async function admit(
    request: FastifyRequest<DataRoute>,
    reply: FastifyReply,
    param: (name: string) => string | undefined,
    callback: string | undefined,
  ) {
    try {
      return await admitApiCall(request, reply, { key: param('key'), version: param(versionParamName) }, deps);
    } catch (err) {
      sendError(reply, err, callback);
      return undefined;
    }
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
    const call = await admit(request, reply, param, callback);
    if (!call) return;
    // A saved query's lookup is a step of the call: refused, it is answered and recorded as the later steps are.
    let asked: CallQuery = { sql: null, given: query };
    let refusal: unknown;
    const { name } = request.params;
    try {
      asked = name === undefined ? requestQuery(query, format) : await savedQuery(deps.store, call, name, query, format);
    } catch (err) {
      refusal = err;
    }
    const { sql, given } = asked;
    await answerDataCall(request, reply, { call, format, formatName, param, given, callback, sql, recordedQuery: sql, startedAt, refusal });
  }

  for (const method of ['GET', 'POST'] as const) {
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data.:format', handler: loggedWhenDone(handle) });
    // Without an extension: answered as an unknown format, with the list of formats there are.
    app.route<DataRoute>({ method, url: '/:owner/:scraper/data', handler: loggedWhenDone(handle) });
    // A saved query's data URLs: the same call, its SQL the saved one's.
    app.route<DataRoute>({ method, url: '/:owner/:scraper/queries/:name.:format', handler: loggedWhenDone(handle) });
  }
}
