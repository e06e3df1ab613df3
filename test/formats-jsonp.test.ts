/**
 * JSONP: the exact wrapper around the json body, that a JavaScript engine really runs it, that bad
 * callback names are refused without being echoed, and that failures still reach the callback.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import vm from 'node:vm';
import { dataUrl } from './helpers/server.js';
import { allRows, fetchText, startFormatsFixture, type FormatsFixture, type RefValue } from './formats-fixture.js';

let fx: FormatsFixture;
const url = (params: Record<string, string>) => dataUrl(fx.server.base, 'alice/awkward', 'json', { key: fx.key, ...params });

before(async () => {
  fx = await startFormatsFixture();
});
after(() => fx.close());

/** Runs a JSONP body in a fresh JS context where `my.cb_1$` and `cb` record what they are called with. */
function runJsonp(body: string): { name: string; arg: unknown }[] {
  const calls: { name: string; arg: unknown }[] = [];
  const record = (name: string) => (arg: unknown) => {
    // Copied into this realm so deepEqual compares values, not the other context's prototypes.
    calls.push({ name, arg: structuredClone(arg) });
  };
  vm.runInNewContext(body, { my: { cb_1$: record('my.cb_1$') }, cb: record('cb') });
  return calls;
}

/** What a JavaScript engine makes of a reference value written by the json format. */
function asJs(v: RefValue): unknown {
  if (typeof v === 'bigint') return Number(v); // the JS literal rounds exactly as Number(bigint) does
  if (Buffer.isBuffer(v)) return v.toString('base64');
  return v;
}

test('JSONP wraps exactly the json body as /**/cb([\\n…\\n]); with a script content type and nosniff', async () => {
  const json = await fetchText(url({ query: allRows }));
  const { res, text } = await fetchText(url({ query: allRows, callback: 'my.cb_1$' }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.ok(text.startsWith('/**/my.cb_1$([\n'), 'the leading comment guards against Rosetta Flash');
  assert.ok(text.endsWith('\n]);'));
  assert.equal(text.slice('/**/my.cb_1$('.length, -');'.length), json.text);
});

test('running the JSONP body calls the callback once with the rows SQLite returns', async () => {
  const { text } = await fetchText(url({ query: allRows, callback: 'my.cb_1$' }));
  const ref = fx.reference(allRows);
  const expected = ref.rows.map((row) => Object.fromEntries(ref.columns.map((c, i) => [c, asJs(row[i]!)])));
  const calls = runJsonp(text);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.name, 'my.cb_1$');
  assert.deepEqual(calls[0]!.arg, expected);
  // The awkward strings survive JS evaluation, not only JSON parsing (U+2028 used to end a JS string).
  const strings = (calls[0]!.arg as Record<string, unknown>[]).map((r) => r.t);
  assert.ok(strings.includes('line\u2028sep\u2029para'));
  assert.ok(strings.includes('& < > ]]> </script>'));
});

test('a callback of exactly 128 characters is accepted', async () => {
  const name = `a${'b'.repeat(127)}`;
  const { res, text } = await fetchText(url({ query: 'select 1 as x', callback: name }));
  assert.equal(res.status, 200);
  assert.equal(text, `/**/${name}([\n{"x":1}\n]);`);
});

for (const bad of ['alert(1)', '1abc', 'a..b', 'a'.repeat(129), 'a-b', '<script>', '', 'a.', '.a', 'é']) {
  test(`callback ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…(${bad.length})` : bad)} is refused with a 400 JSON error that does not echo it`, async () => {
    const { res, text } = await fetchText(url({ query: 'select 1', callback: bad }));
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = JSON.parse(text) as { error: unknown };
    assert.equal(typeof body.error, 'string');
    assert.match(body.error as string, /callback/);
    if (bad !== '') assert.ok(!text.includes(bad), 'the bad name must not be reflected');
  });
}

test('a JSONP query SQLite refuses answers 200 with the error passed to the callback', async () => {
  const { res, text } = await fetchText(url({ query: 'select * from no_such_table', callback: 'cb' }));
  assert.equal(res.status, 200, 'a browser does not run a script served with an error status');
  assert.equal(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
  assert.equal(text, '/**/cb({"error":"no such table: no_such_table","status":400});');
  assert.deepEqual(runJsonp(text), [{ name: 'cb', arg: { error: 'no such table: no_such_table', status: 400 } }]);
});

test('a JSONP query refused before SQLite (not a SELECT) passes status 400 to the callback', async () => {
  const { res, text } = await fetchText(url({ query: 'delete from awkward', callback: 'cb' }));
  assert.equal(res.status, 200);
  assert.match(text, /^\/\*\*\/cb\(\{"error":"(?:[^"\\]|\\.)+","status":400\}\);$/);
  const calls = runJsonp(text);
  assert.equal(calls.length, 1);
  assert.equal((calls[0]!.arg as { status: number }).status, 400);
});

test('a JSONP call with a bad key passes status 401 to the callback', async () => {
  const { res, text } = await fetchText(url({ query: allRows, callback: 'cb', key: 'not-a-key' }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
  assert.match(text, /^\/\*\*\/cb\(\{"error":"(?:[^"\\]|\\.)+","status":401\}\);$/);
  const calls = runJsonp(text);
  assert.equal(calls.length, 1);
  const arg = calls[0]!.arg as { error: string; status: number };
  assert.equal(arg.status, 401);
  assert.match(arg.error, /key/i);
});

test('a JSONP error that echoes the query escapes < > & U+2028 as the rows do', async () => {
  // SQLite's message repeats the table name from the URL, so the caller controls this text. The rows
  // are escaped so JSONP can sit in HTML and in pre-ES2019 engines (where a raw U+2028 ends a string
  // literal and the callback is never called); the error passed to the same callback must be too.
  const table = '</script><b>&\u2028';
  const { res, text } = await fetchText(url({ query: `select * from "${table}"`, callback: 'cb' }));
  assert.equal(res.status, 200);
  assert.deepEqual(runJsonp(text), [{ name: 'cb', arg: { error: `no such table: ${table}`, status: 400 } }]);
  assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
});
