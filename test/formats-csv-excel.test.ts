/**
 * CSV that Excel opens right: `excel=1` on `data.csv` and a table's `.csv` twin writes a UTF-8
 * byte-order mark, CRLF line ends, and text cells that start like a formula made inert; without it
 * the bytes are the plain CSV's, compared here byte for byte.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  const db = makeDb(
    server.dataDir,
    'cells.sqlite',
    `create table cells (id integer primary key, t text, n);
     insert into cells values
       (1, '=1+1', null), (2, '@SUM(A1)', null), (3, '-2+3', null), (4, '+cmd', null),
       (5, char(9) || 'tab', null), (6, char(13) || 'cr', null),
       (7, 'é', -5), (8, 'a "q", =x', -2.5), (9, '-5', null);`,
  );
  await server.catalog.addScraper('alice/cells', db, { isPrivate: false, description: '' });
});
after(() => server.close());

const wholeTable = 'select * from cells';
const url = (params: Record<string, string>) => dataUrl(server.base, 'alice/cells', 'csv', { key, query: wholeTable, ...params });
const twin = (params: string) => `${server.base}/alice/cells/tables/cells.csv?key=${key}${params}`;

/** The plain CSV of the table: LF line ends, no BOM, text as it is (quoted only for a comma, quote, CR or LF). */
const plain = [
  'id,t,n',
  '1,=1+1,',
  '2,@SUM(A1),',
  '3,-2+3,',
  '4,+cmd,',
  '5,\ttab,',
  '6,"\rcr",',
  '7,é,-5',
  '8,"a ""q"", =x",-2.5',
  '9,-5,',
  '',
].join('\n');

/**
 * The same for Excel: a BOM, CRLF, and each text cell starting with = + - @ tab or CR quoted with a
 * single quote before it; the INTEGER -5 and REAL -2.5 stay numbers, the TEXT '-5' does not.
 */
const excel = `\uFEFF${[
  'id,t,n',
  `1,"'=1+1",`,
  `2,"'@SUM(A1)",`,
  `3,"'-2+3",`,
  `4,"'+cmd",`,
  `5,"'\ttab",`,
  `6,"'\rcr",`,
  '7,é,-5',
  '8,"a ""q"", =x",-2.5',
  `9,"'-5",`,
  '',
].join('\r\n')}`;

async function bytesOf(target: string, headers: Record<string, string> = {}): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(target, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

test('without excel, or with excel=0, the CSV is byte for byte the plain one, under the same ETag', async () => {
  const none = await bytesOf(url({}));
  assert.equal(none.res.status, 200);
  assert.deepEqual(none.bytes, Buffer.from(plain, 'utf8'));
  const zero = await bytesOf(url({ excel: '0' }));
  assert.deepEqual(zero.bytes, none.bytes);
  assert.equal(zero.res.headers.get('etag'), none.res.headers.get('etag'));
});

test('excel=1: a BOM, CRLF line ends, formulas made inert, numbers left as numbers', async () => {
  const { res, bytes } = await bytesOf(url({ excel: '1' }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.deepEqual(bytes.subarray(0, 3), Buffer.from([0xef, 0xbb, 0xbf]));
  assert.deepEqual(bytes, Buffer.from(excel, 'utf8'));
  assert.doesNotMatch(bytes.toString('utf8'), /[^\r]\n/, 'every line ends in CRLF');
});

test('a column name that starts like a formula is made inert too', async () => {
  const { bytes } = await bytesOf(url({ excel: '1', query: `select 1 as "=h", '-x' as "b"` }));
  assert.equal(bytes.toString('utf8'), `\uFEFF"'=h",b\r\n1,"'-x"\r\n`);
});

test('a plain ETag never validates the Excel CSV', async () => {
  const plainTag = (await bytesOf(url({}))).res.headers.get('etag');
  const excelTag = (await bytesOf(url({ excel: '1' }))).res.headers.get('etag');
  assert.ok(plainTag && excelTag);
  assert.notEqual(excelTag, plainTag);
  const { res, bytes } = await bytesOf(url({ excel: '1' }), { 'if-none-match': plainTag });
  assert.equal(res.status, 200);
  assert.deepEqual(bytes, Buffer.from(excel, 'utf8'));
  assert.equal((await bytesOf(url({ excel: '1' }), { 'if-none-match': excelTag })).res.status, 304);
});

/** The raw body of a GET, as sent (not decompressed), and its Content-Encoding. */
function rawGet(target: string, coding: string): Promise<{ encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(target, { headers: { 'accept-encoding': coding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('the Excel CSV compresses with gzip and br to the same bytes', async () => {
  const gz = await rawGet(url({ excel: '1' }), 'gzip');
  assert.equal(gz.encoding, 'gzip');
  assert.deepEqual(zlib.gunzipSync(gz.body), Buffer.from(excel, 'utf8'));
  const br = await rawGet(url({ excel: '1' }), 'br');
  assert.equal(br.encoding, 'br');
  assert.deepEqual(zlib.brotliDecompressSync(br.body), Buffer.from(excel, 'utf8'));
});

test("a table's .csv twin writes the same bytes as the data API, plain and for Excel", async () => {
  assert.deepEqual((await bytesOf(twin(''))).bytes, Buffer.from(plain, 'utf8'));
  const { res, bytes } = await bytesOf(twin('&excel=1'));
  assert.equal(res.status, 200);
  assert.deepEqual(bytes, Buffer.from(excel, 'utf8'));
});

test('a large Excel CSV has one BOM, and CRLF after every record', async () => {
  const query = `with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000) select '=' || x as f, x from c`;
  const text = (await bytesOf(url({ excel: '1', query }))).bytes.toString('utf8');
  assert.equal(text.split('\uFEFF').length, 2);
  assert.ok(text.startsWith('\uFEFF'));
  const lines = text.slice(1).split('\r\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines.length, 20001);
  lines.slice(1).forEach((line, i) => assert.equal(line, `"'=${i + 1}",${i + 1}`));
});

test('an excel that is not 0 or 1 is a 400 in Siphon shape, on data.csv and the twin', async () => {
  for (const target of [url({ excel: 'yes' }), twin('&excel=2')]) {
    const res = await fetch(target);
    assert.equal(res.status, 400, target);
    assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_EXCEL_INVALID');
    assert.match(await res.text(), /excel must be 1/);
  }
});
