/**
 * A scraper's saved queries in its OpenAPI document (src/openapi/saved-query-operations.ts): each
 * public one its own operations, each `:named` parameter a required one, answered by the real
 * server as documented; private ones never; the ETag following saves, edits and removals; the
 * document of a scraper with the most saved queries, each with the most parameters, bounded.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { maxSavedQueries, maxTitleChars } from '../src/scrapers/saved-queries.js';
import { maxDescriptionChars } from '../src/limits/web-forms.js';
import { maxNamedValues } from '../src/sql/named-params.js';
import { makeDb } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';

type Operation = {
  operationId: string;
  summary: string;
  description: string;
  parameters?: ({ $ref: string } | { name: string; in: string; required?: boolean; schema: { type: string } })[];
  responses: Record<string, { $ref: string }>;
  requestBody?: { content: Record<string, { schema: { required: string[] } }> };
};
type Doc = {
  paths: Record<string, { parameters: { name: string; schema: { enum?: string[] } }[]; get?: Operation; post?: Operation }>;
  components: { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; parameters?: Record<string, unknown> };
};

let server: TestServer;
let alice: string;
let bob: string;
/** Each query gives the columns an Atom feed needs, so every row format answers it. */
const byTown = `select town as title, town as content, 'https://example.org/' || id as link, '2026-01-02T03:04:05Z' as date
  from t where town = :town and n >= :min order by id`;
const everyTown = `select 'All' as title, count(*) as content, 'https://example.org/' as link, '2026-01-02T03:04:05Z' as date from t`;

const save = (scraper: string, name: string, sql: string, more: { title?: string; description?: string; isPrivate?: boolean } = {}) =>
  server.catalog.saveQuery(
    scraper,
    { name, sql, title: more.title ?? '', description: more.description ?? '', isPrivate: more.isPrivate ?? false },
    server.config.maxQueryChars,
  );

before(async () => {
  server = await startServer();
  alice = (await server.catalog.addUser('alice')).key;
  bob = (await server.catalog.addUser('bob')).key;
  const db = makeDb(
    server.dataDir,
    'towns.sqlite',
    `create table t (id integer primary key, town text, n integer);
     insert into t values (1, 'Leura', 1), (2, 'Leura', 5), (3, 'Katoomba', 9);`,
  );
  await server.catalog.addScraper('alice/towns', db, { isPrivate: false, description: '' });
  await server.catalog.addScraper('alice/many', db, { isPrivate: false, description: '' });
  await save('alice/towns', 'by-town', byTown, { title: 'Towns by name', description: 'Rows of one town, from a count on.' });
  await save('alice/towns', 'every-town', everyTown);
  await save('alice/towns', 'mine', 'select count(*) as n from t', { isPrivate: true });
});
after(() => server.close());

async function getDoc(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; doc: Doc }> {
  const res = await fetch(`${server.base}${path}`, { headers });
  return { res, doc: (res.status === 200 ? await res.json() : undefined) as Doc };
}

const queryPaths = (doc: Doc) => Object.keys(doc.paths).filter((p) => p.includes('/queries/'));
/** A `$ref`'s target in the document (`#/components/<section>/<name>`), which must exist. */
function resolve<T>(doc: Doc, ref: { $ref: string }): T {
  const [, , section, name] = ref.$ref.split('/') as [string, string, keyof Doc['components'], string];
  const target = (doc.components[section] as Record<string, T> | undefined)?.[name];
  assert.ok(target, ref.$ref);
  return target;
}

describe("a scraper's saved queries in its document", () => {
  test('each public one is its own operations, valid OpenAPI; a private one never, not even to its owner', async () => {
    for (const headers of [{}, { 'x-api-key': alice }] as Record<string, string>[]) {
      const { res, doc } = await getDoc('/alice/towns/openapi.json', headers);
      assert.equal(res.status, 200);
      assert.deepEqual(queryPaths(doc), ['/alice/towns/queries/by-town.{format}', '/alice/towns/queries/every-town.{format}']);
      const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
      assert.deepEqual(result.errors, undefined);
    }
    const { doc } = await getDoc('/alice/towns/openapi.json');
    const item = doc.paths['/alice/towns/queries/by-town.{format}']!;
    assert.deepEqual(item.parameters.find((p) => p.name === 'format')!.schema.enum, ['json', 'csv', 'ndjson', 'atom']);
    const get = item.get!;
    assert.equal(get.operationId, 'savedQuery_by_town');
    assert.equal(item.post!.operationId, 'savedQueryByPost_by_town');
    assert.equal(get.summary, 'Towns by name');
    assert.match(
      get.description,
      /^Rows of one town, from a count on\.\n\n.*known only when it runs.*\[its page\]\(\/alice\/towns\/queries\/by-town\)/s,
    );
    assert.equal((await fetch(`${server.base}/alice/towns/queries/by-town`)).status, 200);
    const named = get.parameters!.filter((p) => !('$ref' in p));
    assert.deepEqual(named, [
      { name: 'town', in: 'query', required: true, description: '`:town`, as text.', schema: { type: 'string' } },
      { name: 'min', in: 'query', required: true, description: '`:min`, as text.', schema: { type: 'string' } },
    ]);
    const shared = get.parameters!.filter((p) => '$ref' in p).map((p) => resolve<{ name: string }>(doc, p as { $ref: string }).name);
    assert.deepEqual(shared, ['version', 'dl', 'page_size', 'next', 'callback', 'excel']);
    assert.deepEqual(item.post!.requestBody!.content['application/x-www-form-urlencoded']!.schema.required, ['town', 'min']);
    for (const ref of Object.values(get.responses)) resolve(doc, ref);
    assert.equal(doc.paths['/alice/towns/queries/every-town.{format}']!.get!.summary, 'every-town');
    // The generic path is the service's document's: here each query is named.
    assert.equal(doc.paths['/alice/towns/queries/{name}.{format}'], undefined);
  });

  test('a query saved before `:version` was reserved is described without it: `version` once, the document valid', async () => {
    const db = makeDb(server.dataDir, 'old.sqlite', 'create table t (town text);');
    const scraper = await server.catalog.addScraper('alice/old', db, { isPrivate: false, description: '' });
    // Stored as the store takes it, past today's rules, as one saved before them was.
    const old = { name: 'old', title: '', description: '', sql: 'select * from t where town = :town or :version = 1', isPrivate: false };
    assert.ok(await server.store.saveQuery(scraper.id, old, maxSavedQueries));
    const { doc } = await getDoc('/alice/old/openapi.json');
    assert.deepEqual((await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0])).errors, undefined);
    const names = doc.paths['/alice/old/queries/old.{format}']!.get!.parameters!.map((p) =>
      '$ref' in p ? resolve<{ name: string }>(doc, p as { $ref: string }).name : p.name,
    );
    assert.deepEqual(
      names.filter((name) => name === 'version' || name === 'town'),
      ['version', 'town'],
    );
  });

  test('every operation is served as documented: each format by GET and by POST; a required parameter missing is a documented 400', async () => {
    const { doc } = await getDoc('/alice/towns/openapi.json');
    const ajv = new Ajv2020({ strict: false });
    const values: Record<string, Record<string, string>> = { 'by-town': { town: 'Leura', min: '2' }, 'every-town': {} };
    for (const path of queryPaths(doc)) {
      const item = doc.paths[path]!;
      const name = /queries\/(.*)\.\{format\}$/.exec(path)![1]!;
      for (const format of item.parameters.find((p) => p.name === 'format')!.schema.enum!) {
        const url = `${server.base}${path.replace('{format}', format)}`;
        const got = await fetch(`${url}?${new URLSearchParams(values[name])}`, { headers: { 'x-api-key': bob } });
        assert.equal(got.status, 200, `GET ${name}.${format}: ${await got.clone().text()}`);
        const posted = await fetch(url, { method: 'POST', headers: { 'x-api-key': bob }, body: new URLSearchParams(values[name]) });
        assert.equal(posted.status, 200, `POST ${name}.${format}`);
        // The same rows (an Atom feed's self link is the GET's URL, which a POST has none of).
        if (format !== 'atom') assert.equal(await posted.text(), await got.text());
      }
      const rows = await (
        await fetch(`${server.base}${path.replace('{format}', 'json')}?${new URLSearchParams(values[name])}&key=${bob}`)
      ).json();
      const ok = resolve<{ content: Record<string, { schema: unknown }> }>(doc, item.get!.responses['200']!);
      assert.ok(ajv.validate(ok.content['application/json']!.schema as object, rows), JSON.stringify(ajv.errors));
    }
    assert.deepEqual(await (await fetch(`${server.base}/alice/towns/queries/by-town.json?town=Leura&min=2&key=${bob}`)).json(), [
      { title: 'Leura', content: 'Leura', link: 'https://example.org/2', date: '2026-01-02T03:04:05Z' },
    ]);
    const missing = await fetch(`${server.base}/alice/towns/queries/by-town.json?town=Leura&key=${bob}`);
    assert.equal(missing.status, 400);
    const refused = resolve<{ description: string }>(doc, doc.paths['/alice/towns/queries/by-town.{format}']!.get!.responses['400']!);
    assert.ok(refused.description.includes(missing.headers.get('siphon-error-code')!));
  });

  test('its ETag follows the saved queries: a save, an edit and a removal each change it, a private one does not; no Last-Modified', async () => {
    const first = await fetch(`${server.base}/alice/towns/openapi.json`);
    const etag = first.headers.get('etag')!;
    assert.equal(first.headers.get('last-modified'), null);
    const conditional = (tag: string) => fetch(`${server.base}/alice/towns/openapi.json`, { headers: { 'if-none-match': tag } });
    assert.equal((await conditional(etag)).status, 304);
    // With no Last-Modified, a date is never enough for a 304.
    const byDate = await fetch(`${server.base}/alice/towns/openapi.json`, {
      headers: { 'if-modified-since': new Date(Date.now() + 864e5).toUTCString() },
    });
    assert.equal(byDate.status, 200);

    await save('alice/towns', 'newest', 'select :word as word', { title: 'Newest' });
    const saved = await conditional(etag);
    assert.equal(saved.status, 200);
    const savedDoc = (await saved.json()) as Doc;
    assert.equal(savedDoc.paths['/alice/towns/queries/newest.{format}']!.get!.summary, 'Newest');
    const savedTag = saved.headers.get('etag')!;
    assert.notEqual(savedTag, etag);

    await save('alice/towns', 'newest', 'select :word as word', { title: 'Newest, renamed' });
    const edited = await conditional(savedTag);
    assert.equal(edited.status, 200);
    assert.equal(((await edited.json()) as Doc).paths['/alice/towns/queries/newest.{format}']!.get!.summary, 'Newest, renamed');
    const editedTag = edited.headers.get('etag')!;

    await save('alice/towns', 'secret', 'select 1 as one', { isPrivate: true });
    assert.equal((await conditional(editedTag)).status, 304);

    await server.catalog.removeQuery('alice/towns', 'newest');
    const removed = await conditional(editedTag);
    assert.equal(removed.status, 200);
    assert.equal(((await removed.json()) as Doc).paths['/alice/towns/queries/newest.{format}'], undefined);
    // The same queries as at first: the same document, the same ETag.
    assert.equal(removed.headers.get('etag'), etag);
    await server.catalog.removeQuery('alice/towns', 'secret');
  });

  test(`bounded: ${maxSavedQueries} saved queries of ${maxNamedValues} parameters, the longest title and description, stay under 4 MB; one more parameter is not saved`, async () => {
    const selecting = (count: number) => `select ${Array.from({ length: count }, (_, i) => `:parameter_${i}`).join(', ')}`;
    await assert.rejects(
      save('alice/many', 'q', selecting(maxNamedValues + 1)),
      (err: unknown) => (err as { code?: string }).code === 'SIPHON_ERR_PARAMS_TOO_MANY',
    );
    for (let i = 0; i < maxSavedQueries; i++) {
      const name = `${'q'.repeat(60)}-${i}`;
      await save('alice/many', name, selecting(maxNamedValues), {
        title: 't'.repeat(maxTitleChars),
        description: 'd'.repeat(maxDescriptionChars),
      });
    }
    const res = await fetch(`${server.base}/alice/many/openapi.json`);
    const text = await res.text();
    assert.equal(res.status, 200);
    const doc = JSON.parse(text) as Doc;
    assert.equal(queryPaths(doc).length, maxSavedQueries);
    assert.equal(doc.paths[queryPaths(doc)[0]!]!.get!.parameters!.length, 6 + maxNamedValues);
    assert.ok(text.length < 4 * 1024 * 1024, `${text.length} bytes`);
  });
});
