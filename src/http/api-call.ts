import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { DownloadRecorder } from '../downloads/recorder.js';
import { errors } from '../errors.js';
import type { RateDecision, RateLimiter } from '../limits/rate-limiter.js';
import type { AccountStore, ApiKey, Scraper, ScraperStore } from '../store/types.js';
import { authenticate } from './authenticate.js';
import { admitOrigin } from './key-origin.js';
import { noteRequest } from './request-log.js';
import { pinVersion } from './pinned-version.js';
import { findScraperFor } from './routes/params.js';

/** An API call let in: its key, its scraper, its rate decision, and the CORS headers its answers carry. */
export interface ApiCall {
  key: ApiKey;
  scraper: Scraper;
  rate: RateDecision | undefined;
  cors: OutgoingHttpHeaders;
}

export interface ApiCallDeps {
  store: AccountStore & ScraperStore;
  recorder: DownloadRecorder;
  rateLimiter?: RateLimiter;
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
 * The first steps of every API call, the data API's and its twins' (docs/design.md, "The data API's
 * lifecycle", steps 2–6): authenticate (401), then the rest of admitKey. Each throws its refusal.
 */
export async function admitApiCall(
  request: FastifyRequest<{ Params: { owner: string; scraper: string } }>,
  reply: FastifyReply,
  params: { key: string | undefined; version: string | undefined },
  deps: ApiCallDeps,
): Promise<ApiCall> {
  return admitKey(request, reply, await authenticate(request.headers, params.key, deps.store), deps, params.version);
}

/**
 * Steps 3–6 for a key known to be good (authenticated, or the pages' own key of a signed-in
 * visitor: page-downloads.ts): the key's origin (403) → the scraper, public or the key's account's
 * own (404), at the data version `version=` names (400, 410: pinned-version.ts) → downloads can be recorded (503) → the key's rate limit (429). Each throws its refusal.
 * The reply carries what is learnt as it is: the CORS headers from the origin's step on (on errors
 * too), the rate limit's once it is taken.
 */
export async function admitKey(
  request: FastifyRequest<{ Params: { owner: string; scraper: string } }>,
  reply: FastifyReply,
  key: ApiKey,
  deps: ApiCallDeps,
  version?: string,
): Promise<ApiCall> {
  const cors = admitOrigin(key, request.headers);
  noteRequest(request, { keyId: key.id });
  void reply.headers(cors);
  // A private scraper is served to its owner's keys only.
  const found = await findScraperFor(deps.store, key.account.id, request.params.owner, request.params.scraper);
  const scraper = await pinVersion(deps.store, found, version, request.url);
  // Nothing is served that could not be recorded: a refused call is not a download.
  deps.recorder.assertAccepting();
  const rate = deps.rateLimiter && (await deps.rateLimiter.take(String(key.id)));
  void reply.headers(rateLimitHeaders(rate));
  if (rate && !rate.allowed) throw errors.rateLimited(rate.limit, rate.resetSeconds);
  return { key, scraper, rate, cors };
}
