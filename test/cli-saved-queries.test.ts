/**
 * `siphon query save|list|delete` on a data folder, and what a real server serves of it from its
 * next request: the saved query's data URL with its parameters by bare name, then a 404 once deleted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addUser, runCli, runCliOk } from './helpers/cli.js';
import { makeDb } from './helpers/fixture-db.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startServer();
  key = await addUser(server.dataDir, 'alice');
  const db = makeDb(
    server.dataDir,
    'towns.sqlite',
    "create table t (town text, n integer); insert into t values ('Leura', 1), ('Katoomba', 2);",
  );
  await runCliOk(['scraper', 'add', 'alice/towns', '--db', db], { dataDir: server.dataDir });
});
after(() => server.close());

const cli = (args: string[]) => runCli(['query', ...args], { dataDir: server.dataDir });
const saved = (params: Record<string, string>) =>
  fetch(`${server.base}/alice/towns/queries/by-town.csv?${new URLSearchParams({ key, ...params })}`);

test('a query saved on the command line is served by name with its parameters, listed, replaced and deleted', async () => {
  const save = await cli(['save', 'alice/towns', 'by-town', 'select n from t where town = :town', '--title', 'By town', '--private']);
  assert.equal(save.code, 0, save.stderr);
  assert.equal(save.stdout, 'saved alice/towns/queries/by-town (private), parameters :town\n');
  const res = await saved({ town: 'Katoomba' });
  assert.equal(await res.text(), 'n\n2\n');

  assert.equal((await cli(['list', 'alice/towns'])).stdout, 'by-town\tprivate\tBy town\t"select n from t where town = :town"\n');
  await runCliOk(['query', 'save', 'alice/towns', 'by-town', 'select n * 10 as n from t where town = :town'], { dataDir: server.dataDir });
  assert.equal(await (await saved({ town: 'Katoomba' })).text(), 'n\n20\n');

  const bad = await cli(['save', 'alice/towns', 'By Town', 'select 1']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^siphon: "By Town" is not a valid saved query name/);
  const reserved = await cli(['save', 'alice/towns', 'k', 'select :callback']);
  assert.match(reserved.stderr, /so none may be called :callback/);

  assert.equal((await cli(['delete', 'alice/towns', 'by-town'])).stdout, 'deleted alice/towns/queries/by-town\n');
  assert.equal((await saved({ town: 'Katoomba' })).status, 404);
  const again = await cli(['delete', 'alice/towns', 'by-town']);
  assert.equal(again.code, 1);
  assert.equal(again.stderr, 'siphon: Scraper alice/towns has no saved query named "by-town".\n');
  assert.equal((await cli(['list', 'alice/towns'])).stdout, 'no saved queries\n');
});
