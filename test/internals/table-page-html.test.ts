import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrowsePage, Cell, TableView } from '../../src/browse/types.js';
import type { Scraper, TableInfo } from '../../src/store/types.js';
import { tableCell, webAddress, wholeValue } from '../../src/views/cell-html.js';
import { rowPage } from '../../src/views/row-page.js';
import { tablePage } from '../../src/views/table-page.js';

const hostile = `<script>alert("x")</script>'"&`;
const table: TableInfo = {
  name: `t ${hostile}`,
  columns: [
    { name: `c ${hostile}`, type: 'text' },
    { name: 'n', type: 'integer' },
  ],
  rows: 3,
};
const scraper: Scraper = {
  id: 1,
  owner: { id: 1, name: 'alice' },
  name: 'planning',
  description: '',
  isPrivate: false,
  keep: { versions: null, days: null },
  data: { file: '/x', version: 1, tables: [table], sizeBytes: 1, updatedAt: '2026-11-28T00:00:00.000Z' },
};
const text = (t: string): Cell => ({ kind: 'text', text: t });
const view: TableView = {
  sort: [{ column: 'n', desc: true }],
  filters: [{ column: `c ${hostile}`, op: 'contains', value: hostile }],
  columns: [`c ${hostile}`, 'n'],
  size: 100,
  facets: [`c ${hostile}`],
  facetSize: 30,
};
const page: BrowsePage = {
  columns: [`c ${hostile}`, 'n'],
  rows: [
    { rowid: '1', cells: [text(hostile), { kind: 'number', text: '9007199254740993' }] },
    { rowid: '2', cells: [text('javascript:alert(1)'), { kind: 'null' }] },
    { rowid: '3', cells: [text('x'.repeat(5000)), { kind: 'number', text: '1.0' }] },
  ],
  count: 10_000,
  countTruncated: true,
  next: 'token/with?odd&chars',
  description: `more than 10,000 rows where c ${hostile} contains ${hostile}`,
  facets: {
    [`c ${hostile}`]: {
      values: [
        { value: text(hostile), count: 2, selected: true },
        { value: { kind: 'null' }, count: 1, selected: false },
      ],
      truncated: false,
      timedOut: false,
    },
  },
  suggestedFacets: ['n'],
  timedOut: false,
};

/** The page's markup with every escaped form of the hostile text taken out: nothing of it may remain raw. */
function assertNoRawMarkup(markup: string): void {
  assert.ok(!markup.includes('<script>alert'), 'a raw <script> from the data');
  assert.ok(!/href="javascript:/i.test(markup), 'a javascript: link');
  assert.ok(!markup.includes(`"x")</script>`), 'raw quotes from the data');
}

test('a table page escapes table, column and cell text everywhere: text, attributes and links', () => {
  const markup = tablePage({ scraper, table, view, page, maxCellChars: 1000 }).text;
  assertNoRawMarkup(markup);
  assert.ok(markup.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;'));
  // Values are links only when they are http(s) addresses.
  assert.ok(markup.includes('javascript:alert(1)') && !markup.includes('href="javascript'));
  // Numbers keep their exact text; NULL is said.
  assert.ok(markup.includes('9007199254740993') && markup.includes('<td class="null">null</td>'));
  // A long value is cut, says so and links to its row page.
  assert.ok(!markup.includes('x'.repeat(1001)) && markup.includes('x'.repeat(1000)));
  assert.match(markup, /href="\/alice\/planning\/tables\/t\+~3Cscript~3E[^"]*\/3">the whole value/);
  // Count: a lower bound with a "count all" link; next page, its link in the head too; the twins.
  assert.match(markup, /class="count-all" href="[^"]*_count=all/);
  assert.match(markup, /<a rel="next" href="[^"]*_next=token%2Fwith%3Fodd%26chars/);
  assert.match(markup, /<link rel="next" href="/);
  assert.match(markup, /<link rel="alternate" type="application\/json" href="\/alice\/planning\/tables\/[^"]*\.json\?/);
  assert.match(markup, /<link rel="alternate" type="text\/csv" href="\/alice\/planning\/tables\/[^"]*\.csv\?/);
  // The selected facet value is marked; the suggested facet is a link.
  assert.match(markup, /<li class="selected"><a href="[^"]*" title="Remove this filter" aria-current="true">/);
  assert.match(markup, />n<\/a><\/p>/);
});

test('a page whose query ran out of time says so and offers narrower views; an empty one says nothing matched', () => {
  const late = tablePage({ scraper, table, view, page: { ...page, rows: [], timedOut: true }, maxCellChars: 1000 }).text;
  assert.match(late, /took longer than the time limit/);
  assert.match(late, /_size=10/);
  const empty = tablePage({ scraper, table, view, page: { ...page, rows: [], next: null }, maxCellChars: 1000 }).text;
  assert.match(empty, /No rows match this view/);
});

test('a facet that ran out of time says so in words', () => {
  const facets = { [`c ${hostile}`]: { values: [], truncated: false, timedOut: true } };
  const markup = tablePage({ scraper, table, view, page: { ...page, facets }, maxCellChars: 1000 }).text;
  assert.match(markup, /This facet did not finish within the page's time for facets/);
});

test('cells: web addresses are links for http and https only; cut text without a row page says where it was cut', () => {
  assert.equal(webAddress('https://example.org/a?b=1'), 'https://example.org/a?b=1');
  for (const value of ['javascript:alert(1)', 'JAVASCRIPT://x', 'data:text/html,x', 'http://', 'ftp://x', 'see https://x', ' https://x']) {
    assert.equal(webAddress(value), undefined, value);
  }
  assert.match(tableCell(text('y'.repeat(50)), 10, undefined).text, /cut at 10 characters/);
  // Never half of a character made of two UTF-16 units.
  assert.equal(tableCell(text('😀'.repeat(10)), 3, undefined).text.includes('\ud83d<'), false);
  assert.equal(wholeValue({ kind: 'null' }).text, '<span class="null">null</span>');
  assert.match(wholeValue(text('https://example.org/"x')).text, /href="https:\/\/example.org\/%22x" rel="nofollow noopener noreferrer"/);
});

test('a row page shows every value whole, escaped, with its permanent link and JSON twin', () => {
  const long = 'z'.repeat(100_000);
  const markup = rowPage({
    scraper,
    table,
    rowid: '3',
    row: { columns: [`c ${hostile}`, 'n'], cells: [text(long), { kind: 'null' }] },
    origin: 'http://example.org',
    visitor: undefined,
  }).text;
  assertNoRawMarkup(markup);
  assert.ok(markup.includes(long));
  assert.match(markup, /Permanent link: <a href="\/alice\/planning\/tables\/[^"]*\/3">http:\/\/example.org\/alice/);
  assert.match(markup, /href="\/alice\/planning\/tables\/[^"]*\/3\.json">JSON/);
});
