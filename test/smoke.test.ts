import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeDb } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  const db = makeDb(server.dataDir, 'src.sqlite', `create table data (title text); insert into data values ('Foo'), ('Bar');`);
  await server.catalog.addScraper('alice/a_scraper', db, { isPrivate: false, description: '' });
});
after(() => server.close());

test('json returns a bare array of row objects', async () => {
  const res = await fetch(dataUrl(server.base, 'alice/a_scraper', 'json', { key, query: 'select * from "data" order by title' }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(await res.json(), [{ title: 'Bar' }, { title: 'Foo' }]);
});
