import type { Config } from '../config.js';
import { errorReference, type DocumentedError } from './error-reference.js';
import type { FormatExample } from './format-examples.js';
import { html, type SafeHtml } from './html.js';
import { count, humanSize, withCode } from './text.js';

/** The formats, each with its content type and a body written by its real encoder. */
export function formatsSection(formats: FormatExample[]): SafeHtml {
  return html`<section aria-labelledby="formats">
<h2 id="formats">Formats</h2>
<p>The extension of <code>data.&lt;format&gt;</code> chooses the format. Any other extension, or none, is a 404 whose message lists the formats. Each example below is the real output for two rows of <code>title</code>, <code>content</code>, <code>link</code> and <code>date</code>.</p>
${formats.map((f) => html`<section class="format" id="format-${f.id}">
<h3><code>${f.name}</code></h3>
<p>${withCode(f.about)} <span class="muted">Content-Type: <code>${f.contentType}</code></span></p>
<pre class="sample"><code>${f.body}</code></pre>
</section>
`)}</section>`;
}

function errorTable(list: DocumentedError[], caption: string): SafeHtml {
  return html`<div class="table-scroll"><table class="errors">
<caption>${caption}</caption>
<thead><tr><th scope="col">Status</th><th scope="col">Code</th><th scope="col">When</th><th scope="col">Example message</th></tr></thead>
<tbody>
${list.map((e) => html`<tr id="${e.code}"><td class="num">${e.status}</td><td><code>${e.code}</code></td><td>${withCode(e.when)}</td><td>${e.example}</td></tr>\n`)}</tbody>
</table></div>`;
}

/** Every error the service can answer with, read from the definitions in src/errors.ts. */
export function errorsSection(): SafeHtml {
  return html`<section aria-labelledby="errors">
<h2 id="errors">Errors</h2>
<p>Every error is <code>{"error": "&lt;what happened and what to do&gt;"}</code> as <code>application/json</code>, whatever the format, with the status below. A JSONP call is the exception: browsers do not run a script served with an error status, so a failed JSONP call is answered <code>200</code> with <code>/**/&lt;callback&gt;({"error": "…", "status": &lt;the status it would have had&gt;});</code>.</p>
<p>Checks happen in this order: key (401) → scraper (404) → format (404) → callback (400) → SQL (400) → run (400 for SQL errors and limits) → stream. Nothing a client sends causes a 5xx. If a query fails after its first bytes were sent, the connection is closed without ending the body, so a client can always tell a body is incomplete.</p>
${errorTable(errorReference.filter((e) => e.area === 'query'), 'Errors of the data API')}
${errorTable(errorReference.filter((e) => e.area === 'manage'), 'Errors when publishing data and on the command line (exit status 1)')}
</section>`;
}

/** The limits this server runs with (so a changed --query-timeout shows here). */
export function limitsSection(config: Config): SafeHtml {
  return html`<section aria-labelledby="limits">
<h2 id="limits">Limits</h2>
<table>
<thead><tr><th scope="col">Limit</th><th scope="col">Here</th></tr></thead>
<tbody>
<tr><td>Execution time of one query (time spent waiting for a slow client does not count)</td><td>${count(config.queryTimeoutMs / 1000)} s</td></tr>
<tr><td>A client that takes no bytes for this long while its response waits is dropped</td><td>${count(config.clientIdleTimeoutMs / 1000)} s</td></tr>
<tr><td>Length of the SQL text</td><td>${count(config.maxQueryChars)} characters</td></tr>
<tr><td>Queries running at once (one per query process)</td><td>${count(config.queryProcesses)}</td></tr>
<tr><td>Queries waiting for a process; beyond this, 503</td><td>${count(config.queueLimit)}</td></tr>
<tr><td>Memory of each query process; a query needing more fails with 400</td><td>${humanSize(config.queryMemoryMb * 1024 * 1024)}</td></tr>
</tbody>
</table>
<p>No row limit is imposed: results stream, so a large export costs the server no memory. Add a <code>limit</code> to your query when you want fewer rows.</p>
</section>`;
}
