/**
 * A request's text in a log field is shown, never acted on: the pretty form (read in terminals)
 * escapes the characters a terminal would take as commands (ESC sequences, C1 controls, bidirectional
 * overrides, line separators), wherever a request put them (a format in the path, an account name
 * in a log-in form, a URL); every record stays one line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from './helpers/app.js';
import { rawExchange } from './helpers/raw-http.js';
import { versionDb } from './helpers/upload.js';
import { WebClient } from './helpers/web-client.js';

/** What a terminal acts on, or that reorders or splits what it shows: never in a line, but as an escape. */
const actedOn = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/u;

const hostile = ['\u001b[31mred\u001b[0m', 'tag\u{e0041}', '\u001b]0;title\u0007', '\u009b31m', 'a\u202eb', 'a\u2028b', 'a\rb', 'a\u0085b'];

test('--log-format pretty: a field holding control characters from a request is escaped, each record one line', async () => {
  const server = await startApp({ logFormat: 'pretty' });
  try {
    const { key } = await server.catalog.addUser('alice');
    await server.catalog.addScraper('alice/plants', versionDb(1), { isPrivate: false, description: '' });
    for (const text of hostile) {
      const format = await fetch(`${server.base}/alice/plants/data.${encodeURIComponent(text)}?key=${key}`);
      assert.equal(format.status, 404);
      const client = new WebClient(server.base);
      const login = await client.post('/login', { _csrf: await client.token('/login'), name: text, password: 'not the password' });
      assert.equal(login.status, 401);
    }
    // Bytes above 0x7f in a request line, as Node's parser takes them (latin1: 0x9b is a C1 CSI).
    const port = Number(new URL(server.base).port);
    await rawExchange(port, Buffer.from('GET /x\x9b31m HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'latin1'));

    const lines = server.logs().trimEnd().split('\n');
    for (const line of lines) {
      assert.match(line, /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO |WARN |ERROR) | {4})/, line);
      assert.doesNotMatch(line, actedOn, JSON.stringify(line));
    }
    const logs = lines.join('\n');
    assert.match(logs, /format="\\u001b\[31mred\\u001b\[0m"/, 'an escape is shown as its JSON escape');
    assert.match(logs, /account="\\u009b31m"/, 'a C1 control is shown escaped');
    assert.match(logs, /account="a\\u202eb"/, 'a bidirectional override is shown escaped');
  } finally {
    await server.close();
  }
});
