/**
 * csv on awkward values: parsed with csv-parse (independent of the encoder that writes it)
 * and compared field by field with what SQLite itself returns for the same file.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { dataUrl } from './helpers/server.js';
import {
  allRows,
  fetchText,
  manyRowCount,
  manyRows,
  noRows,
  oddColumn,
  rowCount,
  startFormatsFixture,
  type FormatsFixture,
  type RefValue,
} from './formats-fixture.js';

let fx: FormatsFixture;
const url = (query: string) => dataUrl(fx.server.base, 'alice/awkward', 'csv', { key: fx.key, query });

before(async () => {
  fx = await startFormatsFixture();
});
after(() => fx.close());

/**
 * RFC 4180 parse with LF as the only record end: a record ended by CRLF would leave a CR in its last
 * field (or, after a quoted one, fail the parse), so a field-exact parse also shows the line ends are LF.
 */
function parseCsv(text: string): string[][] {
  return parse(text, { record_delimiter: '\n', relax_column_count: false, bom: false }) as string[][];
}

/** Compares one CSV field with the reference value: NULL empty, integers exact, BLOBs base64. */
function assertField(field: string, ref: RefValue, where: string): void {
  if (ref === null) assert.equal(field, '', where);
  else if (typeof ref === 'bigint') assert.equal(field, ref.toString(), where);
  else if (typeof ref === 'number') {
    // Every double reads back as itself, sign of -0.0 included, and stays a float literal (1.0).
    assert.ok(!/^-?\d+$/.test(field), `${where}: ${field} is written as an integer`);
    assert.ok(Object.is(Number(field), ref), `${where}: ${field} is not ${ref}`);
  } else if (typeof ref === 'string') assert.equal(field, ref, where);
  else assert.equal(field, ref.toString('base64'), where);
}

test('csv headers: text/csv, an attachment named owner-scraper.csv', async () => {
  const { res } = await fetchText(url(allRows));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(res.headers.get('content-disposition'), 'attachment; filename="alice-awkward.csv"');
});

test('csv holds every field SQLite returns, under a header row of the column names', async () => {
  const { text } = await fetchText(url(allRows));
  const ref = fx.reference(allRows);
  assert.ok(text.endsWith('\n') && !text.endsWith('\r\n'), 'the last record ends with LF too');
  const records = parseCsv(text);
  assert.equal(records.length, rowCount + 1);
  assert.deepEqual(records[0], ref.columns);
  ref.rows.forEach((row, i) => {
    const record = records[i + 1]!;
    assert.equal(record.length, ref.columns.length, `row ${i + 1} field count`);
    row.forEach((value, j) => assertField(record[j]!, value, `row ${i + 1} column ${JSON.stringify(ref.columns[j])}`));
  });
});

test('csv stays exact across batches and chunks of a large result', async () => {
  const ref = fx.reference(manyRows);
  const { text } = await fetchText(url(manyRows));
  const records = parseCsv(text);
  assert.equal(records.length, manyRowCount + 1);
  assert.deepEqual(records[0], ref.columns);
  ref.rows.forEach((row, i) => row.forEach((value, j) => assertField(records[i + 1]![j]!, value, `row ${i + 1} column ${j}`)));
});

test('csv writes quotes, separators, line breaks, NULL and empty values byte for byte', async () => {
  const { text } = await fetchText(url('select id, t, i, r, b from awkward where id in (1, 2, 3, 4, 5, 6, 12) order by id'));
  assert.equal(
    text,
    [
      'id,t,i,r,b',
      '1,"say ""hi""",0,0.1,AP8Q',
      '2,"a,b,c",9007199254740993,1e-300,""', // an empty BLOB is an empty value, not NULL
      '3,"cr\ronly",-9223372036854775808,1.7976931348623157e+308,', // a lone CR is quoted
      '4,"lf\nonly",9223372036854775807,Infinity,', // a lone LF is quoted
      '5,"crlf\r\nend",-1,-Infinity,',
      '6,"",,1.0,""', // empty string is "" while NULL is an empty field
      '12,,,,',
      '',
    ].join('\n'),
  );
});

test('csv keeps spaces, unicode, emoji and HTML characters as they are', async () => {
  const { text } = await fetchText(url('select t from awkward where id in (7, 8, 9, 10, 11) order by id'));
  const ref = fx.reference('select t from awkward where id in (7, 8, 9, 10, 11) order by id');
  // Nothing needs quoting here, and CSV is not HTML: no escaping, no trimming.
  assert.equal(text, ['t', ...ref.rows.map((r) => r[0] as string), ''].join('\n'));
  assert.ok(text.includes('  spaced  \n'));
});

test('csv quotes a column name holding a quote in the header row', async () => {
  const { text } = await fetchText(url(noRows));
  assert.equal(text, `id,t,i,r,b,n,"${oddColumn.replace(/"/g, '""')}"\n`);
});

test('csv for a query with no rows is the header row alone', async () => {
  const { res, text } = await fetchText(url('select id, t from awkward where 0'));
  assert.equal(res.status, 200);
  assert.equal(text, 'id,t\n');
});

test('csv of a duplicate-name query has both columns', async () => {
  const { text } = await fetchText(url('select 1 as a, 2 as a'));
  assert.equal(text, 'a,a\n1,2\n');
});
