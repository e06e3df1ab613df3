import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paramPairs } from '../../src/utils/query-string.js';
import { formParams } from '../../src/views/table-controls.js';
import { parseView } from '../../src/browse/index.js';
import type { Scraper, TableInfo } from '../../src/store/types.js';
import {
  databaseDownloadPath,
  downloadHref,
  isDownloadPath,
  rowPath,
  tableNameOf,
  tablePath,
  tableSegment,
} from '../../src/views/table-paths.js';
import { randomTexts } from '../helpers/random-text.js';

/** The segment as the router hands it over: percent-escapes decoded (find-my-way decodes `%2E` too). */
const routed = (segment: string) => decodeURIComponent(segment);

test('any table name round-trips through its path segment, which never holds a dot, a slash or a percent-escaped one', () => {
  const names = [
    'data',
    'a.b',
    'x.json',
    'x.csv',
    'a/b',
    '../etc',
    'two words',
    'a+b',
    'it\'s "quoted"',
    '~2E',
    '~',
    '',
    'café',
    'Дані',
    '数据',
    '😀 emoji',
    '%2E',
    '<script>alert(1)</script>',
    '?x=1#y',
    '\u0000\t\n',
    ...randomTexts(['.', '/', '~', '+', ' ', '%', '2E', 'a', 'é', '😀', '\ud800', '"', "'", '#', '?', '&'], 300, 8, 34),
  ];
  for (const name of names) {
    const segment = tableSegment(name);
    assert.ok(!/[./?#%]/.test(routed(segment)) || name === '', `${JSON.stringify(name)} → ${segment}`);
    assert.ok(!segment.includes('.') && !segment.includes('/'), segment);
    assert.equal(
      tableNameOf(routed(segment)),
      name.replace(/[\uD800-\uDFFF]/g, (c, i: number, s: string) => (isPaired(s, i) ? c : '\ufffd')),
    );
  }
  assert.equal(tableSegment('a.b/c d~'), 'a~2Eb~2Fc+d~7E');
  assert.equal(tableSegment('café'), 'caf%C3%A9');
  assert.equal(tableSegment(''), '~');
});

function isPaired(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c <= 0xdbff ? (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 : (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
}

test('a hand-typed name is read leniently: characters the encoding would escape stand for themselves', () => {
  assert.equal(tableNameOf('a.b'), 'a.b');
  assert.equal(tableNameOf('a~zz'), 'a~zz');
  assert.equal(tableNameOf('caf~C3~A9'), 'café');
});

test('table and row paths encode the owner, scraper, table and rowid, then the twin extension', () => {
  assert.equal(tablePath('alice', 'planning', 'x.json', '.json'), '/alice/planning/tables/x~2Ejson.json');
  assert.equal(rowPath('alice', 'planning', 'a b', '-12', '.json'), '/alice/planning/tables/a+b/-12.json');
});

test("the form's numbered fields become the view's canonical parameters, in the form's order", () => {
  const pairs = paramPairs(
    '/t?_search=&_filter_column_2=suburb&_filter_op_2=contains&_filter_value_2=Kat&_filter_column_1=date&_filter_op_1=gte&_filter_value_1=2026-01-01' +
      '&_filter_column_3=&_filter_op_3=exact&_filter_value_3=&_sort_column_1=date&_sort_dir_1=desc&_sort_column_2=n&_sort_dir_2=asc&_sort_column_3=' +
      '&_col=date&_col=suburb&_size=20&_facet=suburb&_facet=&_next=abc',
  );
  assert.deepEqual(formParams(pairs), [
    ['_col', 'date'],
    ['_col', 'suburb'],
    ['_size', '20'],
    ['_facet', 'suburb'],
    ['date__gte', '2026-01-01'],
    ['suburb__contains', 'Kat'],
    ['_sort_desc', 'date'],
    ['_sort', 'n'],
  ]);
  // Parameters that are not the form's are canonical already: no redirect.
  assert.equal(formParams(paramPairs('/t?suburb=Katoomba&_sort=date')), undefined);
});

test('pairs keep the order between names', () => {
  const pairs = paramPairs('/t?_sort=a&_sort_desc=b&_sort=c&2=x&caf%C3%A9=%E2%82%AC+1#frag');
  assert.deepEqual(pairs, [
    ['_sort', 'a'],
    ['_sort_desc', 'b'],
    ['_sort', 'c'],
    ['2', 'x'],
    ['café', '€ 1'],
  ]);
  assert.deepEqual(paramPairs('/t'), []);
});

test('a download of a view keeps its rows and columns, not its paging or facets, and escapes the names the download reads', () => {
  const scraper = { owner: { id: 1, name: 'alice' }, name: 'plans' } as Scraper;
  const table = { name: 'a.b', columns: ['excel', 'suburb', 'title'].map((name) => ({ name, type: 'text' })) } as TableInfo;
  const view = parseView(
    paramPairs('?excel=1&suburb__contains=Leu&_sort_desc=title&_nocol=title&_size=5&_facet=suburb&_facet_size=3&_count=all'),
    table,
  );
  const href = downloadHref(scraper, table, { ...view, next: 'a page token' }, 'csv', true);
  assert.equal(href, '/alice/plans/download/a~2Eb.csv?_sort_desc=title&excel__exact=1&suburb__contains=Leu&_nocol=title&excel=1');
  assert.ok(isDownloadPath(href));
  assert.equal(downloadHref(scraper, table, undefined, 'json'), '/alice/plans/download/a~2Eb.json');
  assert.equal(databaseDownloadPath(scraper), '/alice/plans/download.sqlite');
  for (const path of ['/alice/plans/download.sqlite', '/alice/plans/download/x.json?a=1']) assert.ok(isDownloadPath(path), path);
  for (const path of ['/alice/plans', '/alice/plans/download/x.xml', '/alice/plans/tables/x.csv', '/alice/download/x.csv']) {
    assert.ok(!isDownloadPath(path), path);
  }
});
