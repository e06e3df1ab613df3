/**
 * A scraper's OpenAPI document (src/openapi/scraper-document.ts): valid by a maintained OpenAPI 3.1
 * validator, its rows described as `PRAGMA table_xinfo` and SQLite's affinities say (checked on the
 * rows the API really returns), its ETag per data version, a private scraper's as hidden as the
 * scraper.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { generatedClient } from './helpers/generated-client.js';
import { startServer, type TestServer } from './helpers/server.js';

type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Record<string, unknown>> } };

/** Every declared type SQLite's affinity rules tell apart, none, generated columns (virtual and stored), and a view. */
const typesSql = `
  create table every_type (id integer primary key, i int not null, big bigint, t text not null, vc varchar(10), c clob,
    b blob, r real, d double, f float, n numeric, dec decimal(10,5), bool boolean, dt datetime, untyped,
    twice as (i * 2), shout text generated always as (t || '!') stored);
  insert into every_type (i, big, t, vc, c, b, r, d, f, n, dec, bool, dt, untyped)
    values ('12', '9007199254740993', 'a', 'v', 'c', x'0102', '1.5', 2, '3', '4', '2.5', 1, '2026-01-02T03:04:05Z', 'u'),
           (7, null, 'b', null, null, null, null, null, null, 'n/a', null, null, null, null);
  create table untyped_only (a, b);
  insert into untyped_only values (1, 'x'), (null, x'00');
  create view joined as select e.id, e.t, e.twice, u.b from every_type e, untyped_only u;`;

let server: TestServer;
let aliceKey: string;
let bobKey: string;
const sources = tempDir();
const typesDb = makeDb(sources, 'types.sqlite', typesSql);

before(async () => {
  server = await startServer();
  ({ key: aliceKey } = await server.catalog.addUser('alice'));
  ({ key: bobKey } = await server.catalog.addUser('bob'));
  await server.catalog.addScraper('alice/types', typesDb, { isPrivate: false, description: 'Every type' });
  await server.catalog.addScraper('alice/hidden', typesDb, { isPrivate: true, description: '' });
});
after(() => server.close());

async function getDoc(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; doc: Doc }> {
  const res = await fetch(`${server.base}${path}`, { headers });
  const text = await res.text();
  return { res, doc: (res.status === 200 ? JSON.parse(text) : JSON.parse(text || '{}')) as Doc };
}

describe("a scraper's document", () => {
  const ajv = new Ajv2020({ strict: false });

  test('is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator', async () => {
    const { res, doc } = await getDoc('/alice/types/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
  });

  test('each table and view: its columns as table_xinfo lists them, nullable unless NOT NULL, typed by affinity; the rows the API returns fit', async () => {
    const { doc } = await getDoc('/alice/types/openapi.json');
    const db = new Database(typesDb, { readonly: true });
    try {
      const names = db.prepare("select name from sqlite_schema where type in ('table', 'view') order by name").pluck().all() as string[];
      assert.deepEqual(names, ['every_type', 'joined', 'untyped_only']);
      for (const table of names) {
        const schema = doc.components.schemas[`Row_${table}`] as {
          properties: Record<string, { type?: string | string[]; description: string }>;
        };
        const info = db.prepare('select name, type, "notnull", pk, hidden from pragma_table_xinfo(?) where hidden != 1').all(table) as {
          name: string;
          type: string;
          notnull: number;
          pk: number;
          hidden: number;
        }[];
        assert.deepEqual(
          Object.keys(schema.properties),
          info.map((c) => c.name),
          table,
        );
        for (const column of info) {
          const type = schema.properties[column.name]!.type;
          const nullable = type === undefined || (Array.isArray(type) && type.includes('null'));
          const neverNull = column.notnull === 1 || (column.pk === 1 && column.type === 'INTEGER');
          assert.equal(nullable, !neverNull, `${table}.${column.name}`);
          assert.ok(
            schema.properties[column.name]!.description.includes(column.type === '' ? 'no declared type' : column.type),
            column.name,
          );
          if (column.hidden > 1) assert.match(schema.properties[column.name]!.description, /generated/);
        }
        // The rows the data API gives fit the schema, as a typed client would read them.
        const res = await fetch(`${server.base}/alice/types/data.json?${new URLSearchParams({ query: `select * from "${table}"` })}`, {
          headers: { 'x-api-key': aliceKey },
        });
        const rows = (await res.json()) as Record<string, unknown>[];
        assert.ok(rows.length > 0);
        const validate = ajv.compile(schema);
        for (const row of rows) assert.ok(validate(row), `${table}: ${JSON.stringify(row)} ${JSON.stringify(validate.errors)}`);
      }
    } finally {
      db.close();
    }
  });

  test('the types follow SQLite: INTEGER, REAL and TEXT affinities are one type, NUMERIC either, BLOB or none any', async () => {
    const { doc } = await getDoc('/alice/types/openapi.json');
    const props = (doc.components.schemas.Row_every_type as { properties: Record<string, { type?: unknown }> }).properties;
    const typeOf = (name: string) => props[name]!.type;
    assert.deepEqual(['i', 'big', 't', 'vc', 'c', 'r', 'd', 'f', 'n', 'dec', 'bool', 'dt', 'b', 'untyped'].map(typeOf), [
      'integer',
      ['integer', 'null'],
      'string',
      ['string', 'null'],
      ['string', 'null'],
      ['number', 'null'],
      ['number', 'null'],
      ['number', 'null'],
      ['number', 'string', 'null'],
      ['number', 'string', 'null'],
      ['number', 'string', 'null'],
      ['number', 'string', 'null'],
      undefined,
      undefined,
    ]);
    // A value of another type does not fit: the schema says something.
    assert.equal(ajv.compile(doc.components.schemas.Row_every_type!)({ id: 1, i: 'twelve' }), false);
  });

  test('an example query per table, and a view has no row twin', async () => {
    const { doc } = await getDoc('/alice/types/openapi.json');
    const get = doc.paths['/alice/types/data.{format}']!.get as {
      parameters: { name: string; examples?: Record<string, { value: string }> }[];
    };
    const examples = get.parameters.find((p) => p.name === 'query')!.examples!;
    assert.deepEqual(
      Object.values(examples).map((e) => e.value),
      ['select * from "every_type" limit 10', 'select * from "joined" limit 10', 'select * from "untyped_only" limit 10'],
    );
    for (const e of Object.values(examples)) {
      const res = await fetch(`${server.base}/alice/types/data.json?${new URLSearchParams({ query: e.value })}`, {
        headers: { 'x-api-key': aliceKey },
      });
      assert.equal(res.status, 200, e.value);
    }
    assert.ok(doc.paths['/alice/types/tables/every_type/{rowid}.json']);
    assert.ok(doc.paths['/alice/types/tables/joined.json']);
    assert.equal(doc.paths['/alice/types/tables/joined/{rowid}.json'], undefined);
  });

  test('its ETag is per data version: 304 while it is current, a new one after a publish', async () => {
    const first = await fetch(`${server.base}/alice/types/openapi.json`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"/);
    const again = await fetch(`${server.base}/alice/types/openapi.json`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    await server.catalog.publish('alice/types', makeDb(sources, 'types-2.sqlite', `${typesSql} create table added (x integer not null);`));
    const changed = await fetch(`${server.base}/alice/types/openapi.json`, { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    const doc = (await changed.json()) as Doc;
    assert.deepEqual((doc.components.schemas.Row_added as { properties: unknown }).properties, {
      x: { type: 'integer', description: 'SQLite: declared INTEGER, INTEGER affinity.' },
    });
  });

  test("a private scraper's is found only with its owner's key; to anyone else it is the unknown scraper's 404", async () => {
    const unknown = await fetch(`${server.base}/alice/no-such/openapi.json`);
    const unknownBody = await unknown.text();
    assert.equal(unknown.status, 404);
    for (const headers of [{}, { 'x-api-key': bobKey }] as Record<string, string>[]) {
      const res = await fetch(`${server.base}/alice/hidden/openapi.json`, { headers });
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('siphon-error-code'), 'SIPHON_ERR_SCRAPER_NOT_FOUND');
      assert.equal((await res.text()).replace('hidden', 'no-such'), unknownBody);
    }
    const own = await fetch(`${server.base}/alice/hidden/openapi.json`, { headers: { authorization: `Bearer ${aliceKey}` } });
    assert.equal(own.status, 200);
    assert.match(own.headers.get('cache-control')!, /private/);
    const bad = await fetch(`${server.base}/alice/types/openapi.json?key=sph_wrong`);
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('siphon-error-code'), 'SIPHON_ERR_KEY_INVALID');
  });

  test("/docs and the scraper page's Use the API link both documents", async () => {
    const page = await (await fetch(`${server.base}/alice/types`)).text();
    const useTheApi = page.slice(page.indexOf('id="api"'));
    assert.match(useTheApi, /href="\/alice\/types\/openapi.json"/);
    assert.match(useTheApi, /href="\/openapi.json"/);
    const docs = await (await fetch(`${server.base}/docs`)).text();
    assert.match(docs, /<h2 id="openapi-documents">/);
    assert.match(docs, /<code>\/openapi.json<\/code>/);
  });

  test('a client generated from it by openapi-typescript typechecks with openapi-fetch, and runs a query on the server', async () => {
    const { doc } = await getDoc('/alice/types/openapi.json');
    const { diagnostics, exports } = await generatedClient(
      doc,
      `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';
export const rows = (baseUrl: string, key: string) =>
  createClient<paths>({ baseUrl }).GET('/alice/types/data.{format}', {
    params: { path: { format: 'json' }, query: { query: 'select * from "untyped_only"' } },
    headers: { 'X-API-Key': key },
  });
// :named values as the document describes them: an object whose members are parameters of their own.
export const named = (baseUrl: string, key: string) =>
  createClient<paths>({ baseUrl, querySerializer: { object: { style: 'form', explode: true } } }).GET('/alice/types/data.{format}', {
    params: { path: { format: 'json' }, query: { query: 'select :word as word', ':named': { ':word': 'hello' } } },
    headers: { 'X-API-Key': key },
  });
// @ts-expect-error: sqlite, json… but no xml
export const wrong = () => createClient<paths>().GET('/alice/types/data.{format}', { params: { path: { format: 'xml' } } });
type Row = components['schemas']['Row_every_type'];
export const i = (row: Row): number => row.i;
// @ts-expect-error: t is TEXT NOT NULL, a string
export const t = (row: Row): number => row.t;
export const page = (key: string) =>
  createClient<paths>().GET('/alice/types/tables/untyped_only.json', { params: { query: { _size: 5 } }, headers: { 'X-API-Key': key } });
`,
    );
    assert.deepEqual(diagnostics, []);
    // The same program, run against the real server.
    const rows = exports.rows as (baseUrl: string, key: string) => Promise<{ data: unknown; response: Response }>;
    const { data, response } = await rows(server.base, aliceKey);
    assert.equal(response.status, 200);
    const db = new Database(typesDb, { readonly: true });
    const stored = db.prepare('select a, b from untyped_only').all() as { a: number | null; b: string | Buffer }[];
    db.close();
    const named = exports.named as typeof rows;
    assert.deepEqual((await named(server.base, aliceKey)).data, [{ word: 'hello' }]);
    // As the json format writes them: a BLOB as base64 text.
    assert.deepEqual(
      data,
      stored.map((r) => ({ a: r.a, b: Buffer.isBuffer(r.b) ? r.b.toString('base64') : r.b })),
    );
  });
});
