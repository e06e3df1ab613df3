/**
 * The Atom tests' fixture: scraper rows holding awkward values, each with what its entry must be;
 * and checks for feeds, independent of Siphon's encoder: a strict XML 1.0 parse (saxes, which
 * reports every well-formedness error, forbidden characters included), RFC 4287's RELAX NG schema
 * with jing, and the two rules of that schema jing cannot check (they are Schematron annotations).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { SaxesParser } from 'saxes';
import { emoji, rtl } from './formats-fixture.js';
import { repoRoot } from './helpers/paths.js';

/** Marks an entry whose `date` cannot be read: its `updated` is the feed's (when the data last changed). */
export const fallback = 'fallback';

export interface FixtureRow {
  /** heading, suburb, body, url, lodged, as SQL. The feed's title is heading || suburb. */
  values: string;
  title: string;
  content: string;
  /** The entry's alternate link, if it has one. */
  link?: string;
  updated: string;
  /** `link`: the id is the link; `tag`: a tag: URI; `tag/2`: the second identical row's tag: URI. */
  id: 'link' | 'tag' | 'tag/2';
}

const duplicate = `'duplicate', '', 'same', 'data:text/html,<script>alert(1)</script>', 1709287200`;

export const rows: FixtureRow[] = [
  {
    values: `'& < > ]]>', ' Town', '</script><script>alert(1)</script> & more', 'https://example.org/a?x=1&y=2', '2024-03-01'`,
    title: '& < > ]]> Town',
    content: '</script><script>alert(1)</script> & more',
    link: 'https://example.org/a?x=1&y=2',
    updated: '2024-03-01T00:00:00Z',
    id: 'link',
  },
  {
    values: `'ctl' || char(1, 8, 11, 31) || 'end', '', 'tab' || char(9) || 'cr' || char(13) || 'crlf' || char(13, 10) || 'lf' || char(10) || 'nul' || char(0) || '.', 'https://example.org/b', '2024-03-01 10:00:00'`,
    title: 'ctl\uFFFD\uFFFD\uFFFD\uFFFDend',
    content: 'tab\tcr\rcrlf\r\nlf\nnul\uFFFD.',
    link: 'https://example.org/b',
    updated: '2024-03-01T10:00:00Z',
    id: 'link',
  },
  {
    values: `'${emoji}', ' ${rtl}', 'é 中文', 'https://例え.jp/パス?q=ü', '2024-03-01T10:00:00Z'`,
    title: `${emoji} ${rtl}`,
    content: 'é 中文',
    link: 'https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%C3%BC',
    updated: '2024-03-01T10:00:00Z',
    id: 'link',
  },
  { values: `'', '', '', '', '2024-03-01T10:00:00+10:00'`, title: '', content: '', updated: '2024-03-01T10:00:00+10:00', id: 'tag' },
  { values: 'null, null, null, null, null', title: '', content: '', updated: fallback, id: 'tag' },
  {
    values: `'relative', '', 'body', '/planning/123', '2024-03-01T10:00:00.123456Z'`,
    title: 'relative',
    content: 'body',
    updated: '2024-03-01T10:00:00.123456Z',
    id: 'tag',
  },
  {
    values: `'script link', '', 'x', 'javascript:alert(document.cookie)', 'yesterday'`,
    title: 'script link',
    content: 'x',
    updated: fallback,
    id: 'tag',
  },
  { values: duplicate, title: 'duplicate', content: 'same', updated: '2024-03-01T10:00:00Z', id: 'tag' },
  { values: duplicate, title: 'duplicate', content: 'same', updated: '2024-03-01T10:00:00Z', id: 'tag/2' },
  // The same link as the first row: it links there, but that id is taken.
  {
    values: `'real', '', 'x', 'https://example.org/a?x=1&y=2', 1709287200.5`,
    title: 'real',
    content: 'x',
    link: 'https://example.org/a?x=1&y=2',
    updated: '2024-03-01T10:00:00.500Z',
    id: 'tag',
  },
  {
    values: `'no such day', '', '', 'HTTPS://EXAMPLE.ORG/C', '2023-02-29'`,
    title: 'no such day',
    content: '',
    link: 'https://example.org/C',
    updated: fallback,
    id: 'link',
  },
  {
    values: `'lower case', '', '', 'ftp://example.org/file', '2024-03-01t10:00:00z'`,
    title: 'lower case',
    content: '',
    updated: '2024-03-01T10:00:00Z',
    id: 'tag',
  },
  {
    values: `'compact offset', '', '', ' https://example.org/d ', ' 2024-03-01 10:00:00.5+0530 '`,
    title: 'compact offset',
    content: '',
    link: 'https://example.org/d',
    updated: '2024-03-01T10:00:00.5+05:30',
    id: 'link',
  },
  // SQLite can hold U+FFFE, U+FFFF and surrogate code points (invalid UTF-8, read as U+FFFD).
  {
    values: `'nonchars' || char(65534, 65535), '', cast(x'eda080' as text) || 'x', 'not a url', '2024-03-01T10:00'`,
    title: 'nonchars\uFFFD\uFFFD',
    content: '\uFFFD\uFFFD\uFFFDx',
    updated: '2024-03-01T10:00:00Z',
    id: 'tag',
  },
  { values: `'blob date', '', '', null, x'00'`, title: 'blob date', content: '', updated: fallback, id: 'tag' },
  { values: `'digits as text', '', '', '', '1709287200'`, title: 'digits as text', content: '', updated: fallback, id: 'tag' },
  { values: `'far future', '', '', '', 99999999999999`, title: 'far future', content: '', updated: fallback, id: 'tag' },
  {
    values: `'offset too far', '', '', '', '2024-03-01T10:00:00+15:00'`,
    title: 'offset too far',
    content: '',
    updated: fallback,
    id: 'tag',
  },
  {
    values: `'leap day', '', '', '', '2024-02-29T23:59:59-00:00'`,
    title: 'leap day',
    content: '',
    updated: '2024-02-29T23:59:59-00:00',
    id: 'tag',
  },
  { values: `'leap second', '', '', '', '2016-12-31T23:59:60Z'`, title: 'leap second', content: '', updated: fallback, id: 'tag' },
];

export const description = 'Notices & "planning" <b>bold</b>\u0001 \u{1F3E0}';
export const feedQuery = 'select heading || suburb as title, body as content, url as link, lodged as date from notices order by id';
export const fixtureSql = `create table notices (id integer primary key, heading, suburb, body, url, lodged);
insert into notices (heading, suburb, body, url, lodged) values ${rows.map((r) => `(${r.values})`).join(',\n')};`;

export const atomNs = 'http://www.w3.org/2005/Atom';

export interface XmlElement {
  /** Local name; `ns` is its namespace URI. */
  name: string;
  ns: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (not its children's), exactly as a conforming parser reports it. */
  text: string;
}

/** Parses a document strictly (XML 1.0 with namespaces); throws at the first well-formedness error. */
export function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) if (a.prefix !== 'xmlns' && a.name !== 'xmlns') attributes[a.name] = a.value;
    const element: XmlElement = { name: tag.local, ns: tag.uri, attributes, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('text', (text) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  assert.ok(root, 'the document has a root element');
  return root;
}

export function child(parent: XmlElement, name: string): XmlElement | undefined {
  return parent.children.find((c) => c.ns === atomNs && c.name === name);
}

export function children(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c) => c.ns === atomNs && c.name === name);
}

/** RFC 3339 `date-time` (section 5.6): a full date, `T`, a full time, and `Z` or a numeric offset. */
export const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The Schematron rules of RFC 4287's schema, which jing skips as annotations. */
export function assertSchematronRules(feed: XmlElement): void {
  const entries = children(feed, 'entry');
  assert.ok(child(feed, 'author') || entries.every((e) => child(e, 'author')), 'the feed has an author, or every entry has');
  for (const entry of entries) {
    const alternate = children(entry, 'link').some((l) => (l.attributes.rel ?? 'alternate') === 'alternate');
    assert.ok(alternate || child(entry, 'content'), 'every entry has an alternate link or content');
  }
}

const schema = path.join(repoRoot, 'test', 'fixtures', 'atom.rnc');
const jingPath = ['/usr/bin/jing', '/usr/local/bin/jing'].find((p) => existsSync(p));
export const jingMissing = jingPath
  ? undefined
  : "jing is not installed (apt-get install jing): feeds are not validated against RFC 4287's schema";

/** The feeds assertValidAtom took, for assertQueuedFeedsValid, with the name of the test that fetched each. */
const queuedFeeds: { test: string; xml: string }[] = [];

/**
 * Takes a feed to validate against RFC 4287's schema with jing, which assertQueuedFeedsValid (run it
 * in the file's `after`) does for all of them at once: jing is a Java program, and starting it
 * for each feed cost the file 7 s of CPU. Without jing the check is skipped with a message, unless
 * SIPHON_REQUIRE_JING=1 (CI), where it fails.
 */
export function assertValidAtom(t: TestContext, xml: string): void {
  if (!jingPath) {
    assert.notEqual(process.env.SIPHON_REQUIRE_JING, '1', `SIPHON_REQUIRE_JING=1, but ${jingMissing}`);
    t.diagnostic(jingMissing!);
    return;
  }
  queuedFeeds.push({ test: t.name, xml });
}

/** Validates every feed assertValidAtom took (RELAX NG compact syntax, hence -c), in one run of jing; its findings name the test of each feed. */
export function assertQueuedFeedsValid(): void {
  if (!jingPath || queuedFeeds.length === 0) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siphon-atom-'));
  try {
    const files = queuedFeeds.map((feed, i) => {
      const file = path.join(dir, `feed-${i}.xml`);
      writeFileSync(file, feed.xml);
      return file;
    });
    const r = spawnSync(jingPath, ['-c', schema, ...files], { encoding: 'utf8' });
    // jing prints its findings on stdout, each starting with the file's path; Debian's wrapper adds classpath warnings on stderr.
    const findings = files.reduce((text, file, i) => text.replaceAll(file, `the feed of "${queuedFeeds[i]!.test}"`), r.stdout ?? '');
    assert.equal(r.status, 0, `jing found feeds invalid:\n${findings}${r.error?.message ?? ''}`);
  } finally {
    queuedFeeds.length = 0;
    rmSync(dir, { recursive: true, force: true });
  }
}
