import type { TableView } from '../browse/types.js';
import type { DataVersion, Scraper, TableInfo } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { tablePath, viewHref } from './table-paths.js';
import { humanSize, plural, tableRows, timeElement } from './text.js';

/**
 * A table page's line on the data it shows: its version and when it was published, and "Copy a link
 * to this view", a link naming that version (`version=`), so that whoever opens it sees these rows
 * for as long as the version is kept. On a pinned view, a link to the same view of the current data.
 * The button copies the link (client/table-page.ts); without script, the link is there to copy.
 */
export function versionLine(scraper: Scraper, table: TableInfo, view: TableView): SafeHtml {
  const { data } = scraper;
  const pinned = viewHref(scraper, table, { ...view, version: data.version });
  const current =
    view.version === undefined
      ? ''
      : html` This view is pinned to it: <a class="current-data" href="${viewHref(scraper, table, { ...view, version: undefined, next: undefined })}">the same view of the current data</a>.`;
  return html`<p class="data-version">Data version <strong>${data.version}</strong>, published ${timeElement(data.updatedAt)}.${current}
<a class="pinned-link" href="${pinned}">Link to this view of version ${data.version}</a> <button type="button" class="copy-link" data-link="${pinned}">Copy a link to this view</button> <span class="copy-done" role="status"></span></p>`;
}

/** The scraper page's list of kept versions, newest first: time, size, rows, each table a link to its pinned view. */
export function keptVersionsSection(scraper: Scraper, versions: readonly DataVersion[]): SafeHtml {
  const { owner, name } = scraper;
  return html`<section class="versions" aria-labelledby="versions">
<h2 id="versions">Kept versions</h2>
<p class="hint">Each publish makes a version; links that name one (<code>version=</code>) show its data for as long as it is kept. This scraper keeps ${plural(versions.length, 'version')} now (<a href="/docs#kept-data-versions">how many, and for how long</a>).</p>
<table class="versions-list"><thead><tr><th scope="col">Version</th><th scope="col">Published</th><th scope="col">Size</th><th scope="col">Tables</th></tr></thead>
<tbody>
${versions.map(
  (v) =>
    html`<tr${v.version === scraper.data.version ? html` aria-current="true"` : ''}><td>${v.version}${v.version === scraper.data.version ? ' (current)' : ''}</td><td>${timeElement(v.updatedAt)}</td><td>${humanSize(v.sizeBytes)}</td><td>${v.tables.map(
      (t, i) =>
        html`${i > 0 ? ', ' : ''}<a href="${`${tablePath(owner.name, name, t.name)}?version=${v.version}`}">${t.name}</a> <span class="version-rows">${tableRows(t)}</span>`,
    )}</td></tr>\n`,
)}</tbody></table>
</section>`;
}
