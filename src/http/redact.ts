/** Query-string parameters whose values are secrets. */
const secretParams = /([?&](?:key|api_key)=)[^&#]*/gi;

/** The URL with every key's value replaced, for logs. */
export function redactUrl(url: string): string {
  return url.replace(secretParams, '$1[redacted]');
}
