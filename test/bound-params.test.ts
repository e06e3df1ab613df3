/**
 * A query job's bound values (the table pages' filters and paging): bound to the statement's `?`
 * parameters by the query process, always as data. Real query processes, a real data file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueryJob, QueryParam } from '../src/pool/protocol.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { readAll, startPool } from './helpers/query-pool.js';

const file = makeDb(
  tempDir(),
  'params.sqlite',
  `create table t (id integer primary key, name text, n);
   insert into t values (1, 'Katoomba', 10), (2, 'Leura', null), (9007199254740993, 'big', 2.5), (4, ''' or 1=1 --', 3);`,
);
const job = (sql: string, params?: QueryParam[]): QueryJob => ({ scraperId: 1, file, sql, format: 'json', options: {}, params });

test('values are bound to the statement in order, as data, and a job without them runs as before', async (t) => {
  const pool = startPool(1);
  t.after(() => pool.close());
  await pool.ready();
  const ask = (sql: string, params?: QueryParam[]) =>
    readAll(pool.run(job(sql, params), 'alice')).then((text) => JSON.parse(text) as unknown);

  assert.deepEqual(await ask('select id from t where name = ? or n = ? order by id', ['Leura', 10]), [{ id: 1 }, { id: 2 }]);
  assert.deepEqual(await ask('select id from t where n is ?', [null]), [{ id: 2 }]);
  // Beyond 2^53 as text: the integer primary key's affinity makes it the exact integer.
  assert.deepEqual(await ask('select name from t where id = ?', ['9007199254740993']), [{ name: 'big' }]);
  // A value that reads like SQL is a value.
  assert.deepEqual(await ask('select id from t where name = ?', ["' or 1=1 --"]), [{ id: 4 }]);
  assert.deepEqual(await ask('select id from t where name = ?', ['x" or 1=1 --']), []);
  assert.deepEqual(await ask('select count(*) as c from t'), [{ c: 4 }]);
  // The same statement, kept prepared, with other values.
  assert.deepEqual(await ask('select id from t where name = ? or n = ? order by id', ['Katoomba', 3]), [{ id: 1 }, { id: 4 }]);
  // Too few values: SQLite's refusal, the client's.
  await assert.rejects(ask('select id from t where name = ? and n = ?', ['Leura']), /Too few parameter values/);
});
