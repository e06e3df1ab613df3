/**
 * atom: feeds built from awkward scraper data, checked three independent ways: a strict XML 1.0
 * parser (saxes), RFC 4287's RELAX NG schema (jing) and a real feed reader (@rowanmanning/feed-parser).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { parseFeed } from '@rowanmanning/feed-parser';
import { xmlAttribute, xmlText } from '../src/formats/xml.js';
import {
  assertQueuedFeedsValid,
  assertSchematronRules,
  assertValidAtom,
  child,
  children,
  description,
  fallback,
  feedQuery,
  fixtureSql,
  jingMissing,
  parseXml,
  rfc3339,
  rows,
  type XmlElement,
} from './atom-fixture.js';
import { fetchText } from './formats-fixture.js';
import { addUser, runCli, runCliOk, startServe, waitFor } from './helpers/cli.js';
import { makeDb, tempDir } from './helpers/fixture-db.js';
import { dataUrl, startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let key: string;
let source: string;
const url = (query: string, extra: Record<string, string> = {}) => dataUrl(server.base, 'alice/notices', 'atom', { key, query, ...extra });

before(async () => {
  server = await startServer();
  ({ key } = await server.catalog.addUser('alice'));
  source = makeDb(server.dataDir, 'notices-src.sqlite', fixtureSql);
  await server.catalog.addScraper('alice/notices', source, { isPrivate: false, description });
});
after(() => server.close());
// Every feed the tests below fetched, against RFC 4287's schema (see assertValidAtom).
after(() => assertQueuedFeedsValid());

async function dataUpdatedAt(): Promise<string> {
  return (await server.store.findScraper('alice', 'notices'))!.data.updatedAt;
}

/** Fetches a feed and checks what every feed must be: 200, Atom's media type, well-formed, valid, keyless. */
async function fetchFeed(t: TestContext, feedUrl: string, init?: RequestInit): Promise<{ text: string; feed: XmlElement }> {
  const { res, text } = await fetchText(feedUrl, init);
  assert.equal(res.status, 200, text);
  assert.equal(res.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  assert.ok(!text.includes(key), 'the key is nowhere in the feed');
  const feed = parseXml(text);
  assert.equal(feed.name, 'feed');
  assertSchematronRules(feed);
  assertValidAtom(t, text);
  return { text, feed };
}

const entryOf = (feed: XmlElement) =>
  children(feed, 'entry').map((e) => ({
    id: child(e, 'id')!.text,
    title: child(e, 'title')!.text,
    content: child(e, 'content')!.text,
    updated: child(e, 'updated')!.text,
    links: children(e, 'link').map((l) => l.attributes),
  }));

test('RFC 4287 schema validation runs (jing installed)', (t) => {
  if (jingMissing) {
    assert.notEqual(process.env.SIPHON_REQUIRE_JING, '1', `SIPHON_REQUIRE_JING=1, but ${jingMissing}`);
    t.skip(jingMissing);
  }
});

test('a feed of awkward data is well-formed, valid Atom, served as application/atom+xml', async (t) => {
  const { feed } = await fetchFeed(t, url(feedQuery));
  assert.equal(children(feed, 'entry').length, rows.length);
});

test('every value is escaped and kept exactly; characters XML 1.0 forbids become U+FFFD', async (t) => {
  const { text, feed } = await fetchFeed(t, url(feedQuery));
  const entries = entryOf(feed);
  rows.forEach((row, i) => {
    assert.equal(entries[i]!.title, row.title, `row ${i + 1} title`);
    assert.equal(entries[i]!.content, row.content, `row ${i + 1} content`);
  });
  // Markup in the data is text, never elements: no entry has anything but Atom's own children.
  for (const entry of children(feed, 'entry')) {
    assert.deepEqual(entry.children.map((c) => c.name).sort(), [...new Set(entry.children.map((c) => c.name))].sort());
    assert.ok(
      entry.children.every((c) => c.children.length === 0),
      'no element inside an entry has children',
    );
  }
  assert.equal(child(feed, 'subtitle')!.text, 'Notices & "planning" <b>bold</b>\uFFFD \u{1F3E0}');
  assert.ok(!text.includes('</script><script>'), 'a closing script tag in the data is escaped');
  assert.equal(child(children(feed, 'entry')[0]!, 'content')!.attributes.type, 'text');
});

test('a feed reader reads the feed and every entry', async (t) => {
  const { text } = await fetchFeed(t, url(feedQuery));
  const parsed = parseFeed(text);
  assert.equal(parsed.meta.type, 'atom');
  assert.equal(parsed.title, 'alice/notices');
  assert.equal(parsed.authors[0]?.name, 'alice');
  assert.equal(parsed.updated?.toISOString(), await dataUpdatedAt());
  assert.equal(parsed.url, `${server.base}/alice/notices`);
  assert.equal(parsed.items.length, rows.length);
  rows.forEach((row, i) => {
    const item = parsed.items[i]!;
    assert.ok(item.id, `row ${i + 1} has an id`);
    assert.equal(item.title ?? '', row.title.trim(), `row ${i + 1} title`);
    assert.equal(item.url, row.link ?? null, `row ${i + 1} link`);
    const expected = row.updated === fallback ? parsed.updated! : new Date(row.updated);
    assert.equal(item.updated?.getTime(), expected.getTime(), `row ${i + 1} updated`);
  });
});

test('links: only an absolute http(s) URL becomes the entry link, normalised; relative, javascript:, data:, ftp: do not', async (t) => {
  const { feed } = await fetchFeed(t, url(feedQuery));
  entryOf(feed).forEach((entry, i) => {
    const expected = rows[i]!.link;
    assert.deepEqual(entry.links, expected === undefined ? [] : [{ rel: 'alternate', href: expected }], `row ${i + 1}`);
  });
});

test('updated is RFC 3339 from date; a date that cannot be read gives the time the data last changed', async (t) => {
  const { feed } = await fetchFeed(t, url(feedQuery));
  const dataChanged = await dataUpdatedAt();
  assert.equal(child(feed, 'updated')!.text, dataChanged);
  entryOf(feed).forEach((entry, i) => {
    assert.match(entry.updated, rfc3339, `row ${i + 1}`);
    assert.equal(entry.updated, rows[i]!.updated === fallback ? dataChanged : rows[i]!.updated, `row ${i + 1}`);
  });
});

test('entry ids: unique, the same at every request and after identical data is published again', async (t) => {
  const first = entryOf((await fetchFeed(t, url(feedQuery))).feed).map((e) => e.id);
  const second = entryOf((await fetchFeed(t, url(feedQuery), { headers: { 'x-api-key': key } })).feed).map((e) => e.id);
  assert.deepEqual(second, first);
  assert.equal(new Set(first).size, first.length, 'no two entries share an id');
  const tag = /^tag:127\.0\.0\.1,2026:alice\/notices\/([0-9a-f]{32})(\/2)?$/;
  rows.forEach((row, i) => {
    if (row.id === 'link') assert.equal(first[i], row.link, `row ${i + 1}`);
    else assert.equal(tag.exec(first[i]!)?.[2], row.id === 'tag/2' ? '/2' : undefined, `row ${i + 1}: ${first[i]}`);
  });
  // The two identical rows share their hash and differ by the occurrence number.
  const dup = rows.findIndex((r) => r.id === 'tag/2');
  assert.equal(first[dup], `${first[dup - 1]}/2`);

  const before = await dataUpdatedAt();
  // A publish in the same millisecond would hide the change: wait for the clock to pass it.
  await waitFor(() => Date.now() > Date.parse(before), 1000);
  await server.catalog.publish('alice/notices', source);
  const republished = (await fetchFeed(t, url(feedQuery))).feed;
  assert.notEqual(child(republished, 'updated')!.text, before, 'the feed is updated by the publish');
  assert.deepEqual(
    entryOf(republished).map((e) => e.id),
    first,
    'entry ids do not depend on when the data was published',
  );
});

test('feed metadata: id, title, subtitle, author, self link without the key, alternate link to the scraper page', async (t) => {
  // Only parameters known to hold no secret are kept in the self link: `extra` could be a key.
  const { feed } = await fetchFeed(t, url(feedQuery, { extra: 'dropped', callback: 'cb', format: 'kept' }));
  const query = new URLSearchParams({ query: feedQuery });
  assert.equal(child(feed, 'id')!.text, `${server.base}/alice/notices/data.atom?${query}`);
  assert.equal(child(feed, 'title')!.text, 'alice/notices');
  assert.equal(child(child(feed, 'author')!, 'name')!.text, 'alice');
  const links = children(feed, 'link').map((l) => l.attributes);
  assert.deepEqual(links, [
    { rel: 'self', type: 'application/atom+xml', href: `${server.base}/alice/notices/data.atom?${query}&format=kept` },
    { rel: 'alternate', href: `${server.base}/alice/notices` },
  ]);
  // The same feed asked for with other spellings keeps its id.
  const other = (
    await fetchFeed(t, `${server.base}/ALICE/Notices/data.atom?query=${encodeURIComponent(feedQuery)}`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).feed;
  assert.equal(child(other, 'id')!.text, child(feed, 'id')!.text);
  assert.equal(
    children(other, 'link')[0]!.attributes.href,
    `${server.base}/ALICE/Notices/data.atom?query=${encodeURIComponent(feedQuery)}`,
  );
});

test('the key is nowhere in the feed, however it was sent', async (t) => {
  for (const [feedUrl, init] of [
    [url(feedQuery), undefined],
    [url(feedQuery, { callback: 'cb' }), undefined],
    [`${server.base}/alice/notices/data.atom?query=${encodeURIComponent(feedQuery)}&key=${key}&key=${key}`, undefined],
    [`${server.base}/alice/notices/data.atom?query=${encodeURIComponent(feedQuery)}&%6Bey=${key}&apikey=${key}&token=${key}`, undefined],
    [dataUrl(server.base, 'alice/notices', 'atom', { query: feedQuery }), { headers: { 'x-api-key': key } }],
  ] as const) {
    const { text } = await fetchFeed(t, feedUrl, init);
    assert.ok(!/[?&]key=/.test(text), `no key parameter in ${feedUrl}`);
    assert.ok(!text.includes(key), `no key in ${feedUrl}`);
  }
});

test('a query without title, content, link and date: 400 naming the missing columns, before any feed byte', async () => {
  for (const [query, missing] of [
    ['select 1 as title', 'content, link, date'],
    ['select heading as title, body as content, url as link from notices', 'date'],
    ['select heading as Title, body as content, url as link, lodged as date from notices', 'title'],
    ['select * from notices', 'title, content, link, date'],
  ]) {
    const { res, text } = await fetchText(url(query!));
    assert.equal(res.status, 400, query);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const { error } = JSON.parse(text) as { error: string };
    assert.ok(error.includes(`the query has no ${missing}.`), `${query}: ${error}`);
  }
  // HEAD gets the same status.
  const head = await fetch(url('select 1 as title'), { method: 'HEAD' });
  assert.equal(head.status, 400);
});

test('no rows: a valid feed with no entries', async (t) => {
  const { feed } = await fetchFeed(t, url(`${feedQuery.replace(' order by id', '')} where 0`));
  assert.equal(children(feed, 'entry').length, 0);
  assert.ok(child(feed, 'id') && child(feed, 'updated') && child(feed, 'title'));
});

test('callback is ignored for atom: the answer is the feed, not JSONP', async (t) => {
  const { text } = await fetchFeed(t, url(feedQuery, { callback: 'cb' }));
  assert.ok(text.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'));
  const invalid = await fetchFeed(t, url(feedQuery, { callback: 'not a name!' }));
  assert.equal(children(invalid.feed, 'entry').length, rows.length);
});

test('HEAD answers with the feed headers and no body', async () => {
  const res = await fetch(url(feedQuery), { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  assert.equal((await res.arrayBuffer()).byteLength, 0);
});

test('a large feed streams in many chunks and batches and stays valid, with unique ids', async (t) => {
  const query = `with recursive n(i) as (select 1 union all select i + 1 from n where i < 4000)
    select 'entry ' || i || ' & <' || char(1) || '>' as title, hex(zeroblob(100)) || ' ]]> ' || i as content,
    case when i % 3 = 0 then 'https://example.org/' || (i % 7) else '/r/' || i end as link,
    case when i % 2 = 0 then '2024-03-01 10:00:00' else 'soon' end as date from n`;
  const { text, feed } = await fetchFeed(t, url(query));
  assert.ok(Buffer.byteLength(text) > 16 * 64 * 1024, `the feed spans many 64 KB chunks (${Buffer.byteLength(text)} bytes)`);
  const entries = entryOf(feed);
  assert.equal(entries.length, 4000);
  assert.equal(new Set(entries.map((e) => e.id)).size, 4000);
  assert.ok(entries.every((e, i) => e.title === `entry ${i + 1} & <\uFFFD>`));
});

test('with --public-url, links and ids are built on it; without, on the request Host', async (t) => {
  const pub = await startServer({ publicUrl: 'https://data.example.org/siphon' });
  try {
    const { key: k } = await pub.catalog.addUser('bob');
    await pub.catalog.addScraper('bob/notices', source, { isPrivate: false, description: '' });
    const { text } = await fetchText(dataUrl(pub.base, 'bob/notices', 'atom', { key: k, query: feedQuery }));
    const feed = parseXml(text);
    assertValidAtom(t, text);
    assert.equal(child(feed, 'subtitle'), undefined, 'an empty description gives no subtitle');
    assert.equal(
      child(feed, 'id')!.text,
      `https://data.example.org/siphon/bob/notices/data.atom?${new URLSearchParams({ query: feedQuery })}`,
    );
    assert.deepEqual(
      children(feed, 'link').map((l) => l.attributes.href),
      [
        `https://data.example.org/siphon/bob/notices/data.atom?${new URLSearchParams({ query: feedQuery })}`,
        'https://data.example.org/siphon/bob/notices',
      ],
    );
    assert.match(entryOf(feed)[3]!.id, /^tag:data\.example\.org,2026:siphon\/bob\/notices\/[0-9a-f]{32}$/);
  } finally {
    await pub.close();
  }

  const viaHost = await getWithHost(url(feedQuery), 'feeds.example.net:8080');
  assert.equal(viaHost.status, 200);
  assert.equal(children(parseXml(viaHost.body), 'link')[1]!.attributes.href, 'http://feeds.example.net:8080/alice/notices');
  for (const host of ['user@evil.example', 'a/b', 'bad host']) {
    const bad = await getWithHost(url(feedQuery), host);
    assert.equal(bad.status, 400, host);
    assert.match(bad.body, /Host header/);
  }
});

/** fetch() cannot set Host; node:http can. */
function getWithHost(target: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(target, { headers: { host } }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (s: string) => {
          body += s;
        })
        .on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

test('serve --public-url and SIPHON_PUBLIC_URL: a bad URL is a usage error; a good one shapes the feed', async () => {
  for (const [args, env] of [
    [['--public-url', 'ftp://data.example.org'], {}],
    [['--public-url', 'https://data.example.org/?x=1'], {}],
    [[], { SIPHON_PUBLIC_URL: 'not a url' }],
  ] as const) {
    const dataDir = path.join(tempDir(), 'data');
    const r = await runCli(['serve', '--port', '0', ...args], { dataDir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /(--public-url|\$SIPHON_PUBLIC_URL) must be an http or https URL/);
    assert.ok(!existsSync(dataDir), 'nothing was created');
  }

  const dataDir = tempDir();
  const k = await addUser(dataDir, 'carol');
  await runCliOk(['scraper', 'add', 'carol/notices', '--db', source], { dataDir });
  const serve = await startServe(['--port', '0', '--public-url', 'https://data.example.org/'], {
    dataDir,
    env: { SIPHON_PUBLIC_URL: 'https://ignored.example.org' },
  });
  try {
    const { text } = await fetchText(dataUrl(serve.base, 'carol/notices', 'atom', { key: k, query: feedQuery }));
    assert.equal(
      children(parseXml(text), 'link')[1]!.attributes.href,
      'https://data.example.org/carol/notices',
      'the flag wins over the environment',
    );
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});

test('xmlText and xmlAttribute: lone surrogates become U+FFFD, pairs are kept, attribute whitespace survives', () => {
  assert.equal(xmlText('a\uD800b\uDC00c\u{1F600}'), 'a\uFFFDb\uFFFDc\u{1F600}');
  assert.equal(xmlText('\uDBFF'), '\uFFFD');
  const attribute = xmlAttribute('"q"\t\n\r&<>\u0000');
  assert.equal(parseXml(`<a b="${attribute}"/>`).attributes.b, '"q"\t\n\r&<>\uFFFD');
  assert.equal(parseXml(`<a>${xmlText(']]>\r\n\r')}</a>`).text, ']]>\r\n\r');
});
