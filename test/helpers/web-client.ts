import assert from 'node:assert/strict';

/**
 * A browser's part in the site's forms, without a browser: keeps the cookies the server sets, reads
 * a page's CSRF token, and posts forms (redirects are not followed, so their answers can be read).
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, as sent. */
  readonly setCookies: string[] = [];

  /** `headers` go with every request (an `X-Forwarded-For`, to come from another address through a trusted proxy). */
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1)];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string): Promise<Response> {
    return this.keep(
      await fetch(`${this.base}${path}`, {
        headers: { ...this.headers, cookie: this.cookieHeader(), accept: 'text/html' },
        redirect: 'manual',
      }),
    );
  }

  /** The CSRF token of the page at `path` (its first form's). */
  async token(path: string): Promise<string> {
    const page = await (await this.get(path)).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(token, `${path} has a CSRF token`);
    return token;
  }

  async post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.keep(
      await fetch(`${this.base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams(fields),
        headers: { ...this.headers, cookie: this.cookieHeader(), accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
  }

  /** Logs in through the form; returns the answer to the POST. */
  async logIn(name: string, password: string): Promise<Response> {
    return this.post('/login', { _csrf: await this.token('/login'), name, password });
  }
}
