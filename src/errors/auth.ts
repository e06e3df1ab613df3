import { make } from './siphon-error.js';

/** Who is calling (401), and whether its key may do what it asks (403). */
export const authErrors = {
  // 401: who is calling
  keyMissing: () =>
    make(
      'SIPHON_ERR_KEY_MISSING',
      401,
      'API key is missing. Pass it as the key parameter, an X-API-Key header or an Authorization: Bearer header.',
    ),
  keyInvalid: () => make('SIPHON_ERR_KEY_INVALID', 401, 'API key is not valid. Check it, or create a new one.'),
  keyRevoked: () => make('SIPHON_ERR_KEY_REVOKED', 401, 'API key has been revoked. Create a new one.'),
  // 401: the operator's metrics (--metrics-token). The token is never echoed.
  metricsToken: () =>
    make('SIPHON_ERR_METRICS_TOKEN', 401, "The metrics need the operator's metrics token, sent as Authorization: Bearer <token>."),
  // 403: a key limited to some web sites (key create --origin), used from elsewhere or from nowhere said.
  // Only the request's own origin is echoed: never the key's list, never a Referer's path.
  keyOrigin: (sent: string | undefined) =>
    make(
      'SIPHON_ERR_KEY_ORIGIN',
      403,
      sent === undefined
        ? 'This API key can only be used from the web sites it was created for, and this request does not say where it comes from (no Origin or Referer header). Call from a page of one of those sites without hiding its Referer, or use a key made without --origin.'
        : `This API key can only be used from the web sites it was created for, not from ${JSON.stringify(sent.slice(0, 100))}.`,
    ),

  // 403: who may publish. Only the owner's keys, and never a key created read-only.
  keyReadOnly: () =>
    make(
      'SIPHON_ERR_KEY_READ_ONLY',
      403,
      'This API key is read-only: it can query data but never publish it. Use a key created without --read-only.',
    ),
  forbidden: (fullName: string) => make('SIPHON_ERR_FORBIDDEN', 403, `Only the owner's keys can publish data to ${fullName}.`),
} as const;
