/**
 * json and ndjson on awkward values, compared with what SQLite itself returns for the same file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'lossless-json';
import { dataUrl } from './helpers/server.js';
import {
  allRows,
  assertJsonRow,
  fetchText,
  manyRowCount,
  manyRows,
  noRows,
  rowCount,
  startFormatsFixture,
  type FormatsFixture,
} from './formats-fixture.js';

let fx: FormatsFixture;
const url = (format: string, query: string) => dataUrl(fx.server.base, 'alice/awkward', format, { key: fx.key, query });

before(async () => {
  fx = await startFormatsFixture();
});
after(() => fx.close());

/** The row texts of a json body, checking morph's framing `[\n` row (`\n,` row)* `\n]` on the way. */
function jsonRowTexts(body: string): string[] {
  assert.ok(body.startsWith('[\n') && body.endsWith('\n]'), 'body is framed as [\\n … \\n]');
  // Row objects hold no raw newline (JSON escapes it), so "\n," can only be the separator.
  return body.slice(2, -2).split('\n,');
}

test('json holds exactly the rows SQLite returns: exact integers, floats, NULL, base64 BLOBs, keys in column order', async () => {
  const { res, text } = await fetchText(url('json', allRows));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  const ref = fx.reference(allRows);
  const parsed = parse(text) as unknown[];
  assert.ok(Array.isArray(parsed));
  assert.equal(parsed.length, rowCount);
  parsed.forEach((row, i) => assertJsonRow(row, ref.columns, ref.rows[i]!, `row ${i + 1}`));

  // Each framed piece is one whole row object, in order.
  const pieces = jsonRowTexts(text);
  assert.equal(pieces.length, rowCount);
  pieces.forEach((piece, i) => assertJsonRow(parse(piece), ref.columns, ref.rows[i]!, `piece ${i + 1}`));
});

test('json writes big integers, infinities and escapes byte for byte', async () => {
  const { text } = await fetchText(url('json', 'select id, t, i, r, b from awkward where id in (4, 5, 10, 11) order by id'));
  // Infinite REAL as ±9e999 (SQLite's json functions do the same); 2^63-1 as written, not rounded.
  // `<`, `>`, `&`, U+2028 and U+2029 \u-escaped so the body can sit inside HTML or old JS parsers.
  assert.equal(
    text,
    [
      '[',
      '{"id":4,"t":"lf\\nonly","i":9223372036854775807,"r":9e999,"b":null}',
      ',{"id":5,"t":"crlf\\r\\nend","i":-1,"r":-9e999,"b":null}',
      ',{"id":10,"t":"\\u0026 \\u003c \\u003e ]]\\u003e \\u003c/script\\u003e","i":null,"r":null,"b":null}',
      ',{"id":11,"t":"line\\u2028sep\\u2029para","i":null,"r":null,"b":null}',
      ']',
    ].join('\n'),
  );
});

test('json never has a raw < > & U+2028 or U+2029, in values or in column names', async () => {
  const { text } = await fetchText(url('json', allRows));
  // The fixture holds all five in values and `<&>` in a column name, so each would show up unescaped.
  assert.ok(fx.reference(allRows).rows.some((r) => String(r[1]).includes('</script>')));
  assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
  assert.match(text, /"odd \\"name\\" é中 \\u003c\\u0026\\u003e":/);
});

test('json and ndjson stay exact across batches and chunks of a large result', async () => {
  const ref = fx.reference(manyRows);
  assert.equal(ref.rows.length, manyRowCount);
  const json = await fetchText(url('json', manyRows));
  assert.ok(json.bytes.length > 256 * 1024, 'large enough to span several chunks');
  const pieces = jsonRowTexts(json.text);
  assert.equal(pieces.length, manyRowCount);
  pieces.forEach((piece, i) => assertJsonRow(parse(piece), ref.columns, ref.rows[i]!, `row ${i + 1}`));
  const ndjson = await fetchText(url('ndjson', manyRows));
  assert.equal(ndjson.text, `${pieces.join('\n')}\n`);
});

test('json for a query with no rows is exactly [\\n\\n]', async () => {
  const { res, text } = await fetchText(url('json', noRows));
  assert.equal(res.status, 200);
  assert.equal(text, '[\n\n]');
});

test('json keeps both columns of a duplicate-name query, in order, as SQLite names them', async () => {
  const sql = 'select 1 as a, 2 as a';
  assert.deepEqual(fx.reference(sql).columns, ['a', 'a']);
  const { text } = await fetchText(url('json', sql));
  // Both values are sent; a JSON parser keeps the last one, as JSON.parse does.
  assert.equal(text, '[\n{"a":1,"a":2}\n]');
  assert.deepEqual(JSON.parse(text), [{ a: 2 }]);
});

test('ndjson is one json-format row object per line with a trailing newline', async () => {
  const { res, text } = await fetchText(url('ndjson', allRows));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
  assert.ok(text.endsWith('}\n'));
  const lines = text.slice(0, -1).split('\n');
  assert.equal(lines.length, rowCount);
  // Same bytes per row as the json format, and the same values as SQLite.
  const jsonPieces = jsonRowTexts((await fetchText(url('json', allRows))).text);
  assert.deepEqual(lines, jsonPieces);
  const ref = fx.reference(allRows);
  lines.forEach((line, i) => assertJsonRow(parse(line), ref.columns, ref.rows[i]!, `line ${i + 1}`));
  // U+2028/U+2029 would split a line for readers that treat them as line ends.
  assert.doesNotMatch(text, /[\u2028\u2029\r]/);
});

test('ndjson for a query with no rows is an empty body', async () => {
  const { res, bytes } = await fetchText(url('ndjson', noRows));
  assert.equal(res.status, 200);
  assert.equal(bytes.length, 0);
});

test('ndjson of a duplicate-name query writes both keys on one line', async () => {
  const { text } = await fetchText(url('ndjson', 'select 1 as a, 2 as a'));
  assert.equal(text, '{"a":1,"a":2}\n');
});
