/**
 * The documents: docs/api.md holds what `npm run docs` writes from the code, documents every error
 * and format, and is what /docs shows; the README points to every document; links between the
 * documents lead to a file and a heading that exist.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { filterOps } from '../src/browse/filters.js';
import { reservedNames } from '../src/browse/view-bounds.js';
import { formatNames } from '../src/formats/index.js';
import { generatedParts, withGeneratedParts } from '../src/views/docs-reference.js';
import { codeBlock, markdownTable, markdownText, renderMarkdown } from '../src/views/markdown.js';
import { definedErrors } from './helpers/error-definitions.js';
import { repoRoot } from './helpers/paths.js';
import { buildApp, type TestApp } from './helpers/app.js';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const api = read('docs/api.md');
const readme = read('README.md');

const allErrors = definedErrors();

/** Markdown without its fenced code blocks, where nothing is a heading or a link. */
const outsideCode = (source: string) => source.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');

// The documents run no query: the service without processes serves them.
let service: TestApp;
before(async () => {
  service = await buildApp();
});
after(() => service.close());

test('docs/api.md holds what npm run docs writes from the code', () => {
  const regenerated = withGeneratedParts(api, generatedParts());
  assert.ok(regenerated === api, 'docs/api.md is out of date: run npm run docs and commit it');
  assert.throws(
    () => withGeneratedParts(api.replace('<!-- end generated: limits -->', ''), generatedParts()),
    /lacks the generated parts limits/,
  );
});

test('every error code of src/errors/ is in docs/api.md, in a row giving its status', () => {
  assert.ok(allErrors.length > 20, 'the error definitions were found');
  for (const { code, status } of allErrors) {
    const row = api.split('\n').find((line) => line.includes(`| \`${code}\` |`));
    assert.ok(row, `${code} has no row in docs/api.md`);
    assert.match(row, new RegExp(`^\\| (${/^\d+$/.test(status) ? status : '4xx'}) \\|`), `${code}'s row does not give ${status}`);
  }
  const documented = new Set(api.match(/SIPHON_ERR_\w+/g));
  const defined = new Set(allErrors.map((e) => e.code));
  assert.deepEqual(
    [...documented].filter((code) => !defined.has(code)),
    [],
    'docs/api.md names no code that does not exist',
  );
});

test('every format is in the formats table of docs/api.md', () => {
  for (const name of formatNames) assert.match(api, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${name} is not in the formats table`);
});

test('every parameter of a table view and every filter operator is in docs/api.md and docs/pages.md, with an example', () => {
  const api = read('docs/api.md');
  const pages = read('docs/pages.md');
  for (const name of reservedNames) {
    assert.ok(api.includes(`\`${name}=`), `${name} in api.md`);
    assert.ok(pages.includes(`\`${name}=`), `${name} in pages.md`);
  }
  for (const op of filterOps) {
    assert.match(api, new RegExp(`^\\| \`${op}\` \\| .* \\| \`[^\`]+__${op}=[^\`]*\``, 'm'), `${op}'s row in api.md`);
    assert.ok(pages.includes(`\`${op}\``), `${op} in pages.md`);
  }
});

test('the README gives the two commands and points to every document', () => {
  assert.ok(readme.includes('npm install && npm start'));
  assert.ok(readme.includes('npm test'));
  const documents = [...readdirSync(path.join(repoRoot, 'docs')).map((f) => `docs/${f}`), 'SECURITY.md', 'BENCHMARKS.md'];
  for (const file of documents) assert.ok(readme.includes(`](${file})`), `the README does not link ${file}`);
  assert.ok(readme.split(/\s+/).length < 1000, 'the README stays short');
});

test('links between the documents lead to a file and a heading that exist', () => {
  const documents = ['README.md', 'SECURITY.md', 'BENCHMARKS.md', ...readdirSync(path.join(repoRoot, 'docs')).map((f) => `docs/${f}`)];
  const anchors = new Map(documents.map((file) => [file, new Set(renderMarkdown(read(file)).headings.map((h) => h.id))]));
  let checked = 0;
  for (const file of documents) {
    const text = outsideCode(read(file)).replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(?:https?|mailto):/.test(target!)) continue;
      const [to = '', anchor] = target!.split('#');
      const linked = to === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), to));
      assert.ok(existsSync(path.join(repoRoot, linked)), `${file} links ${target}, which does not exist`);
      if (anchor !== undefined) assert.ok(anchors.get(linked)?.has(anchor), `${file} links ${target}: ${linked} has no heading #${anchor}`);
      checked += 1;
    }
  }
  assert.ok(checked > 30, `the links were found (${checked})`);
});

test('Markdown written from the code shows values as text, and code exactly', () => {
  const { html } = renderMarkdown(
    `${markdownTable(['a'], [[markdownText('<script>x|y</script> *not* `code` & [no](link) https://elsewhere.example')]])}\n\n${codeBlock('one ``` two\n')}`,
  );
  assert.ok(
    html.text.includes('<td>&lt;script&gt;x|y&lt;/script&gt; *not* `code` &amp; [no](link) https://elsewhere.example</td>'),
    html.text,
  );
  assert.ok(html.text.includes('<pre><code>one ``` two\n</code></pre>'), html.text);
});

/** The page's text between tags, as a reader sees it. */
const plain = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

test('/docs and /documentation/api show docs/api.md: its title, every heading and every error code', async () => {
  const headings = [...outsideCode(api).matchAll(/^(#{1,6}) (.+)$/gm)].map(([, hashes, text]) => ({
    depth: hashes!.length,
    text: text!.replace(/`/g, '').replace(/\\(.)/g, '$1'),
  }));
  assert.ok(headings.length > 20, 'the headings were found');
  const codes = new Set(api.match(/SIPHON_ERR_\w+/g));
  for (const p of ['/docs', '/documentation/api']) {
    const res = await service.app.inject({ url: p });
    assert.equal(res.statusCode, 200, p);
    const page = res.body;
    const shown = [...page.matchAll(/<h([1-6])(?: id="[^"]*")?>([\s\S]*?)<\/h\1>/g)].map(([, depth, inner]) => `${depth} ${plain(inner!)}`);
    for (const h of headings) assert.ok(shown.includes(`${h.depth} ${h.text}`), `${p} lacks the heading "${h.text}" (h${h.depth})`);
    for (const code of codes) assert.ok(page.includes(code), `${p} lacks ${code}`);
    assert.doesNotMatch(page, /href="[^"#]*\.md\b/, `${p} links a Markdown file, which the site does not serve`);
  }
});
