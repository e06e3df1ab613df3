/** A table view as its URL states it: parseView's reading, its refusals, and viewParams writing it back. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filterOps } from '../../src/browse/filters.js';
import { encodeToken, viewIdentity } from '../../src/browse/page-token.js';
import { parseView, viewParams, type TableView } from '../../src/browse/index.js';
import { SiphonError } from '../../src/errors.js';
import type { TableInfo } from '../../src/store/types.js';

const names = ['suburb', 'price', 'a__gt', 'a', 'b__gt', 'x.y/z "q"', 'Ünïcode 名前', '_size', 'key'];
const table: TableInfo = { name: 'sales', columns: names.map((name) => ({ name, type: '' })), rows: 10 };
const view = (query: string) => parseView(new URLSearchParams(query), table);
const refused = (query: string, code: string) =>
  assert.throws(
    () => view(query),
    (err: unknown) => err instanceof SiphonError && err.code === code && err.status < 500,
    query,
  );

test('every operator is read, as COL__OP=VALUE, and a plain COL=VALUE is exact', () => {
  for (const op of filterOps) {
    const value = op === 'date' ? '2024-05-01' : op === 'in' || op === 'notin' ? 'a,b' : 'v';
    const expected = ['isnull', 'notnull', 'isblank', 'notblank'].includes(op) ? '' : value;
    assert.deepEqual(view(`suburb__${op}=${value}`).filters, [{ column: 'suburb', op, value: expected }], op);
  }
  assert.deepEqual(view('suburb=Katoomba&price__gte=10').filters, [
    { column: 'suburb', op: 'exact', value: 'Katoomba' },
    { column: 'price', op: 'gte', value: '10' },
  ]);
});

test('a column named like a filter stays filterable: COL__OP means the operator when COL is a column', () => {
  // Both a and a__gt are columns: a__gt=5 is "a > 5", a__gt__exact=5 is the column a__gt.
  assert.deepEqual(view('a__gt=5').filters, [{ column: 'a', op: 'gt', value: '5' }]);
  assert.deepEqual(view('a__gt__exact=5').filters, [{ column: 'a__gt', op: 'exact', value: '5' }]);
  // No column b: b__gt=5 is the column b__gt.
  assert.deepEqual(view('b__gt=5').filters, [{ column: 'b__gt', op: 'exact', value: '5' }]);
  assert.deepEqual(view('b__gt__lt=5').filters, [{ column: 'b__gt', op: 'lt', value: '5' }]);
  // Any name: dots, slashes, quotes, spaces, non-Latin letters.
  assert.deepEqual(
    view(
      new URLSearchParams([
        ['x.y/z "q"__contains', '%'],
        ['_sort_desc', 'Ünïcode 名前'],
      ]).toString(),
    ).filters,
    [{ column: 'x.y/z "q"', op: 'contains', value: '%' }],
  );
  // A column named like a parameter of the view: only as NAME__exact.
  assert.deepEqual(view('_size__exact=3&_size=5'), { ...view('_size=5'), filters: [{ column: '_size', op: 'exact', value: '3' }] });
});

test('sort, columns, sizes, search, facets and count are read in URL order, with their defaults', () => {
  const v = view('_sort=price&_sort_desc=suburb&_sort=a&_nocol=key&_facet=suburb&_facet=price&_facet_size=5&_size=max&_count=all');
  assert.deepEqual(v.sort, [
    { column: 'price', desc: false },
    { column: 'suburb', desc: true },
    { column: 'a', desc: false },
  ]);
  assert.deepEqual(v.columns, names.slice(0, -1));
  assert.deepEqual([v.size, v.facets, v.facetSize, v.countAll], [1000, ['suburb', 'price'], 5, true]);
  const d = view('');
  assert.deepEqual(d, { sort: [], filters: [], columns: names, size: 100, facets: [], facetSize: 30 });
  assert.deepEqual(view('_col=price&_col=suburb').columns, ['suburb', 'price'], "the table's order");
  // Other parameters starting with _ (Datasette's _shape, _extra…) are no columns: ignored.
  assert.deepEqual(view('_shape=array&_extra=count&_nocount=1'), d);
  // A record from a parsed query string works too, its values in order.
  assert.deepEqual(
    parseView({ _sort: ['price', 'a'], suburb: 'K' }, table).sort.map((s) => s.column),
    ['price', 'a'],
  );
});

test('hostile or wrong names and values are refused as domain errors, never reaching SQL', () => {
  refused('_sort=price;drop table sales', 'SIPHON_ERR_VIEW_COLUMN');
  refused('_sort_desc="price"', 'SIPHON_ERR_VIEW_COLUMN');
  refused('_col=nope', 'SIPHON_ERR_VIEW_COLUMN');
  refused('_facet=rowid', 'SIPHON_ERR_VIEW_COLUMN');
  refused('nope=1', 'SIPHON_ERR_VIEW_COLUMN');
  refused('price__gt) or 1=1 --=1', 'SIPHON_ERR_VIEW_OPERATOR');
  refused('"price" or 1=1 --=1', 'SIPHON_ERR_VIEW_COLUMN');
  refused('price__near=1', 'SIPHON_ERR_VIEW_OPERATOR');
  refused('price__GT=1', 'SIPHON_ERR_VIEW_OPERATOR');
  for (const size of ['0', '1001', '-1', '1.5', 'ten', '', '99999999999']) refused(`_size=${size}`, 'SIPHON_ERR_VIEW_VALUE');
  refused('_facet_size=101', 'SIPHON_ERR_VIEW_VALUE');
  refused('_count=some', 'SIPHON_ERR_VIEW_VALUE');
  refused('price__date=yesterday', 'SIPHON_ERR_VIEW_VALUE');
  refused('price__in=[1,{"a":2}]', 'SIPHON_ERR_VIEW_VALUE');
  refused('price__in=[1,', 'SIPHON_ERR_VIEW_VALUE');
  refused(`price__in=${Array.from({ length: 501 }, (_, i) => i).join(',')}`, 'SIPHON_ERR_VIEW_VALUE');
  const wide: TableInfo = { name: 'wide', columns: Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, type: '' })), rows: 0 };
  const many = (parameter: string, n: number) => Array.from({ length: n }, (_, i) => `${parameter}=c${i}`).join('&');
  assert.equal(parseView(new URLSearchParams(many('_sort', 10)), wide).sort.length, 10);
  assert.throws(() => parseView(new URLSearchParams(many('_sort', 11)), wide), { code: 'SIPHON_ERR_VIEW_VALUE' });
  assert.throws(() => parseView(new URLSearchParams(many('_facet', 11)), wide), { code: 'SIPHON_ERR_VIEW_VALUE' });
  refused(Array.from({ length: 51 }, () => 'price__gt=1').join('&'), 'SIPHON_ERR_VIEW_VALUE');
  refused(names.map((n) => `_nocol=${encodeURIComponent(n)}`).join('&'), 'SIPHON_ERR_VIEW_VALUE');
  refused('_search=x', 'SIPHON_ERR_VIEW_SEARCH');
  assert.equal(parseView(new URLSearchParams('_search=x'), { ...table, fts: { table: 'sales_fts' } }).search, 'x');
});

test('in and notin take a JSON array or comma-separated values', () => {
  assert.deepEqual(view('price__in=1,2').filters[0]!.value, '1,2');
  assert.deepEqual(view('price__notin=["a,b",3]').filters[0]!.value, '["a,b",3]');
});

test('viewParams writes a view back to parameters that parseView reads to the same view', () => {
  const views = [
    '_sort=price&_sort_desc=suburb&suburb=K&a__gt=5&a__gt__exact=x&b__gt=1&_size__exact=3&key=k&_nocol=key&_facet=suburb&_facet_size=5&_size=20&_count=all',
    '_col=price&_col=suburb&_search=hi&price__isnull=1&price__in=["x",1]',
    '',
  ];
  const searchable = { ...table, fts: { table: 'f' } };
  for (const query of views) {
    const v = parseView(new URLSearchParams(query), searchable);
    assert.deepEqual(parseView(viewParams(v, searchable), searchable), v, query);
  }
  assert.deepEqual(viewParams(view('suburb=K&_sort=price'), table), [
    ['_sort', 'price'],
    ['suburb', 'K'],
  ]);
});

test('a _next token is refused, with the first page of the view, when altered or given for another view', () => {
  const base: TableView = view('_sort=price&suburb=K');
  const token = encodeToken({ version: 3, position: { kind: 'keyset', rowid: '42', nulls: [false] } }, viewIdentity(table.name, base));
  assert.equal(view(`_sort=price&suburb=K&_next=${token}`).next, token);
  const firstPageOf = (query: string) => {
    try {
      view(query);
    } catch (err) {
      assert.ok(err instanceof SiphonError && err.code === 'SIPHON_ERR_PAGE_TOKEN_INVALID' && err.status === 400, String(err));
      return (err as SiphonError & { firstPage: [string, string][] }).firstPage;
    }
    assert.fail(`not refused: ${query}`);
  };
  assert.deepEqual(firstPageOf(`_sort=price&suburb=L&_next=${token}`), [
    ['_sort', 'price'],
    ['suburb', 'L'],
  ]);
  firstPageOf(`_sort_desc=price&suburb=K&_next=${token}`);
  const [payload, sum] = token.split('.');
  const forged = Buffer.from(JSON.stringify([3, '43', '0'])).toString('base64url');
  firstPageOf(`_sort=price&suburb=K&_next=${forged}.${sum}`);
  firstPageOf(`_sort=price&suburb=K&_next=${payload}.${sum!.slice(1)}x`);
  firstPageOf(`_sort=price&suburb=K&_next=garbage`);
  // The checksum is no secret: a token made to pass it with nonsense inside is refused all the same.
  assert.ok(payload);
});
