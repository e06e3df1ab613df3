/** What a publish records of each table and view: kind, row count (views capped), full-text index. */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { describeTables, ftsContentTable, viewRowsCap } from '../../src/scrapers/describe-tables.js';

test('tables and views are listed with their kind, counts and full-text index', () => {
  const db = new Database(':memory:');
  db.exec(`create table docs (title text, body text);
    insert into docs values ('a', 'hello world'), ('b', 'bye');
    create virtual table docs_fts using fts5(title, body, content="docs");
    create virtual table "own fts" using fts4(x);
    create table w (k text primary key, v) without rowid;
    create view "a view" as select * from docs where title = 'a';
    create view big as with recursive c(x) as (select 1 union all select x + 1 from c limit ${viewRowsCap + 5}) select x from c;`);
  const tables = new Map(describeTables(db).map((t) => [t.name, t]));
  assert.deepEqual(tables.get('docs'), {
    name: 'docs',
    columns: [
      { name: 'title', type: 'TEXT' },
      { name: 'body', type: 'TEXT' },
    ],
    rows: 2,
    fts: { table: 'docs_fts' },
  });
  assert.equal(tables.get('docs_fts')!.fts, undefined, 'an external-content index is searched through its table');
  assert.deepEqual(tables.get('own fts')!.fts, { table: 'own fts' });
  assert.equal(tables.get('w')!.kind, 'without-rowid');
  assert.deepEqual({ ...tables.get('a view'), columns: [] }, { name: 'a view', columns: [], rows: 1, kind: 'view' });
  assert.deepEqual([tables.get('big')!.rows, tables.get('big')!.rowsCapped], [viewRowsCap, true]);
  db.close();
});

test("an FTS table's content table is read in each of SQLite's quotings", () => {
  const of = (sql: string) => ftsContentTable({ name: 'f', type: 'table', sql });
  assert.deepEqual(of('CREATE VIRTUAL TABLE f USING fts5(a, content="my ""t""")'), { table: 'my "t"' });
  assert.deepEqual(of("create virtual table f using FTS4(a, content='it''s')"), { table: "it's" });
  assert.deepEqual(of('create virtual table f using fts5(a, content=[x y])'), { table: 'x y' });
  assert.deepEqual(of('create virtual table f using fts5(a, content=`b``c`)'), { table: 'b`c' });
  assert.deepEqual(of('create virtual table f using fts5(a, content=plain, content_rowid=id)'), { table: 'plain', rowid: 'id' });
  assert.equal(of("create virtual table f using fts5(a, content='')"), undefined, 'contentless');
  assert.deepEqual(of('create virtual table f using fts3(a)'), { table: 'f' });
  assert.equal(of('create virtual table f using rtree(id, a, b)'), undefined);
  assert.equal(of('create table f (content)'), undefined);
});
