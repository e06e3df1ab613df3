import type { Config } from '../config.js';
import { corsAllowHeaders, corsAllowMethods, corsExposeHeaders, corsMaxAgeSeconds } from '../cors-policy.js';
import { errorsSection, formatsSection, limitsSection } from './docs-reference.js';
import type { FormatExample } from './format-examples.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { queryBuilder, type BuilderModel } from './query-builder.js';

export interface DocsPageModel {
  base: string;
  config: Config;
  formats: FormatExample[];
  /** The scraper the examples use (`?scraper=`, else the most downloaded); none when there is no public scraper. */
  builder?: BuilderModel;
  /** The `?scraper=` asked for, kept in its field. */
  scraperField: string;
  visitor?: Visitor;
}

function examplesSection(model: DocsPageModel): SafeHtml {
  return html`<section aria-labelledby="try">
<h2 id="try">Try it: query builder and examples</h2>
<form class="pick-scraper" method="get" action="/docs#try">
  <label for="docs-scraper">Scraper for the examples</label>
  <div class="search-row"><input id="docs-scraper" name="scraper" value="${model.scraperField}" placeholder="owner/scraper" spellcheck="false">
  <button type="submit">Use it</button></div>
</form>
${model.builder
    ? html`<div id="api">${queryBuilder(model.builder)}</div>`
    : html`<p class="empty">${model.scraperField ? `There is no public scraper ${model.scraperField}.` : 'There is no public scraper yet.'}</p>`}
</section>`;
}

/** `/docs` and `/documentation/api`: the API reference as a page, with a working query builder. */
export function docsPage(model: DocsPageModel): SafeHtml {
  const base = model.base;
  return layout({
    title: 'API documentation',
    visitor: model.visitor,
    scripts: model.builder ? ['query-builder.js'] : [],
    body: html`<h1>API documentation</h1>
<p class="lead">Get the data of any public scraper with one GET request and an SQL query, in the format you need. Siphon speaks morph.io's data API, so existing morph.io clients work unchanged.</p>
<nav class="toc" aria-label="On this page"><ul>
<li><a href="#endpoint">Endpoint</a></li><li><a href="#keys">Keys</a></li><li><a href="#parameters">Parameters</a></li>
<li><a href="#formats">Formats</a></li><li><a href="#errors">Errors</a></li><li><a href="#limits">Limits</a></li>
<li><a href="#browsers">Browsers: CORS and JSONP</a></li><li><a href="#downloads">Downloads are public</a></li>
<li><a href="#scraper-info">Scraper information</a></li><li><a href="#try">Try it</a></li></ul></nav>

<section aria-labelledby="endpoint">
<h2 id="endpoint">Endpoint</h2>
<pre><code>GET ${base}/{owner}/{scraper}/data.{format}?query={SQL}
X-API-Key: {your key}</code></pre>
<p><code>HEAD</code> works too, and so does <code>POST</code> with <code>key</code>, <code>query</code> and <code>callback</code> in an <code>application/x-www-form-urlencoded</code> or JSON body (a parameter in the body wins over the same one in the URL): for queries longer than a proxy lets through in a URL, and to keep the key out of URLs. A POST is never answered <code>304</code>. Names of owners and scrapers are matched case-insensitively. Private scrapers can be queried only with their owner's keys; to every other key they are answered exactly like scrapers that do not exist. Signing in on the web never authorises a data call: only a key does.</p>
</section>

<section aria-labelledby="keys">
<h2 id="keys">Keys</h2>
<p>Every data call needs an API key. <strong>A key is a secret</strong>: anyone who has it can query as you, and your calls show as your downloads.</p>
<ul>
<li><strong>Send it in a header</strong>: <code>X-API-Key: &lt;key&gt;</code> or <code>Authorization: Bearer &lt;key&gt;</code>. It can also be the <code>key</code> query-string parameter (as on morph.io), but a key in a URL ends up in browser history, proxy logs and <code>Referer</code> headers. A header wins over the parameter: a bad header key is refused even if the parameter holds a good one.</li>
<li><strong>Getting one</strong>: <a href="/signup">sign up</a>, then create keys on <a href="/account">your account page</a> (each is shown once, when it is made), where you can also see their last use and your own downloads, and revoke them. Signed in, the query builder below fills in a new read-only key of yours with one click. ${model.config.signup === 'closed' ? 'This server does not take sign-ups: its operator creates accounts and keys (' : 'The operator can also create them ('}<code>siphon user add NAME</code> creates an account and prints its first key; <code>siphon key create NAME [--label TEXT]</code> prints another).</li>
<li><strong>Read-only keys</strong> (<code>siphon key create NAME --read-only</code>) can query every public scraper but never publish data. Use one wherever a key may be seen, such as a JSONP page.</li>
<li><strong>Keys for web pages</strong> (<code>siphon key create NAME --origin https://maps.example.org</code>) are read-only and work only from pages of the origins given: see <a href="#browsers">Browsers</a>.</li>
<li><strong>Revoking</strong>: the Revoke button on your account page, or <code>siphon key revoke KEY</code>, stops a key at once; <code>siphon key list NAME</code> shows an account's keys by their first characters, with their label, origins, when each was made and last used, and whether it is revoked. Keys are stored only as hashes and never appear in logs or pages.</li>
</ul>
</section>

<section aria-labelledby="parameters">
<h2 id="parameters">Parameters</h2>
<table>
<thead><tr><th scope="col">Parameter</th><th scope="col">Required</th><th scope="col">Meaning</th></tr></thead>
<tbody>
<tr><td><code>query</code></td><td>yes (not for <code>sqlite</code>)</td><td>One SQL statement starting with <code>SELECT</code>, <code>WITH</code> or <code>VALUES</code>, URL-encoded (spaces as <code>+</code> or <code>%20</code>). Comments and a trailing <code>;</code> are fine. Table and column names go in double quotes: <code>select * from "data" limit 10</code>.</td></tr>
<tr><td><code>key</code></td><td>unless sent as a header</td><td>Your API key; prefer the <code>X-API-Key</code> header.</td></tr>
<tr><td><code>callback</code></td><td>no</td><td>With <code>json</code>: answer as JSONP, calling this function. A JavaScript identifier or dotted path (letters, digits, <code>_</code>, <code>$</code>; not starting with a digit; at most 128 characters).</td></tr>
</tbody>
</table>
</section>

${formatsSection(model.formats)}
${errorsSection()}
${limitsSection(model.config)}

<section aria-labelledby="browsers">
<h2 id="browsers">Browsers: CORS and JSONP</h2>
<h3 id="cors">CORS (<code>fetch</code> from any web page)</h3>
<p>Every data response, errors included and in every format, carries <code>Access-Control-Allow-Origin: *</code> (for a <a href="#origin-keys">key for web pages</a>, the page's origin), so a page on any origin can call the API with <code>fetch()</code> and send the key in the <code>X-API-Key</code> header. The browser first sends a preflight <code>OPTIONS</code> request, answered <code>204</code> with:</p>
<pre><code>Access-Control-Allow-Origin: *
Access-Control-Allow-Methods: ${corsAllowMethods}
Access-Control-Allow-Headers: ${corsAllowHeaders}
Access-Control-Expose-Headers: ${corsExposeHeaders}
Access-Control-Max-Age: ${corsMaxAgeSeconds}</code></pre>
<p>No cookies are involved (a call is authorised by its key alone), so requests are sent without credentials.</p>
<h3 id="origin-keys">Keys for web pages</h3>
<p>A key in a web page can be read by anyone who views the page. A key made with <code>--origin</code> (one or more: scheme, host and port, such as <code>https://maps.example.org</code>) is read-only and only answers calls from pages of those origins, told by the <code>Origin</code> header that <code>fetch()</code> sends, or, when there is none (a JSONP <code>&lt;script&gt;</code> tag), by the origin of the <code>Referer</code>. A call from another origin, or one with neither header, is refused with <code>403</code> (<code>SIPHON_ERR_KEY_ORIGIN</code>; a JSONP call gets it in its callback): any page can hide its <code>Referer</code>, so such calls cannot be let through. Keep the <code>Referer</code> of your own JSONP pages (no <code>referrerpolicy="no-referrer"</code>), or use <code>fetch()</code>. Answers to such a key name the page's origin, <code>Access-Control-Allow-Origin: https://maps.example.org</code> with <code>Vary: Origin</code>, instead of <code>*</code>. A program outside a browser can send any <code>Origin</code> it likes: the limit keeps other web sites from using the key, not other programs.</p>
<h3 id="jsonp">JSONP (a <code>&lt;script&gt;</code> tag)</h3>
<p>With <code>json</code> and <code>callback=name</code>, the answer is a script that calls <code>name(rows)</code>. Errors reach the callback too, as <code>name({"error": "…", "status": 401})</code> with HTTP status 200. A script tag cannot send headers, so the key is in the URL where anyone who can see the page can read it: use a key for web pages (above), or CORS.</p>
</section>

<section aria-labelledby="downloads">
<h2 id="downloads">Downloads are public</h2>
<p>Every call with a valid key to a public scraper is a download, whatever its outcome (a failed query is a download too; a call with no or a bad key, with a key refused for its origin, or to an unknown scraper or another account's private one, is not). As on morph.io, downloads are public, so that the people who write scrapers can see who uses their data: each scraper's page shows how many times it was downloaded, by whom, and a chart of downloads per day over the last 90 days. A call shows there on the next page load.</p>
</section>

<section aria-labelledby="scraper-info">
<h2 id="scraper-info">Scraper information</h2>
<p><code>GET ${base}/{owner}/{scraper}.json</code> needs no key and answers for public scrapers only: owner, name, description, when its data last changed (<code>updated_at</code>), its tables with their columns, types and row counts, and its downloads by account.</p>
</section>

${examplesSection(model)}`,
  });
}
