import type { TablePreview } from '../previews/table-previews.js';
import type { DataVersion, DayCount, DownloadStats, SavedQuery, Scraper } from '../store/types.js';
import { databaseDownloadButton, downloadsHint } from './download-buttons.js';
import { downloadsChart } from './downloads-chart.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { ownerToolsSection, type OwnerTools } from './owner-tools.js';
import { queryBuilder, type BuilderModel } from './query-builder.js';
import { savedQueriesSection } from './saved-query-list.js';
import { tableSection } from './table-section.js';
import { keptVersionsSection } from './version-links.js';
import { count, humanSize, ownerPath, plural, scraperPath, timeElement } from './text.js';

export interface ScraperPageModel {
  scraper: Scraper;
  downloads: DownloadStats;
  perDay: DayCount[];
  previews: TablePreview[];
  /** Its kept data versions, newest first. */
  versions: DataVersion[];
  /** Its saved queries the visitor may see, by name. */
  queries: SavedQuery[];
  builder: BuilderModel;
  visitor?: Visitor;
  /** For the scraper's owner only. */
  ownerTools?: OwnerTools;
}

function downloadsSection({ downloads, perDay }: ScraperPageModel): SafeHtml {
  return html`<section class="downloads" aria-labelledby="downloads">
<h2 id="downloads">Downloads</h2>
<p class="download-count">Downloaded <strong data-downloads="${downloads.total}">${plural(downloads.total, 'time')}</strong>${downloads.by.length > 0 ? ' by' : ''}</p>
${
  downloads.by.length === 0
    ? ''
    : html`<ul class="downloaders">
${downloads.by.map((d) => html`<li><a href="${ownerPath(d.owner)}">${d.owner}</a> <span class="count" title="Downloaded ${plural(d.count, 'time')} by ${d.owner}">${count(d.count)}</span></li>\n`)}</ul>`
}
${downloadsChart(perDay)}
<p class="hint">Every API call is a download, and downloads are public: they show here, with who made them. <a href="/docs#downloads">Why?</a></p>
</section>`;
}

/** `/{owner}/{scraper}`: what the data is, who downloads it, what its tables hold, and how to query it. */
export function scraperPage(model: ScraperPageModel): SafeHtml {
  const { scraper } = model;
  const tables = scraper.data.tables;
  return layout({
    title: `${scraper.owner.name}/${scraper.name}`,
    scripts: ['views/client/query-builder.js'],
    visitor: model.visitor,
    body: html`<h1 class="scraper-name"><a href="${ownerPath(scraper.owner.name)}">${scraper.owner.name}</a> / ${scraper.name}${scraper.isPrivate ? html` <span class="private-badge">private</span>` : ''}</h1>
${scraper.description ? html`<p class="lead description">${scraper.description}</p>` : ''}
<dl class="facts">
  <div><dt>Owner</dt><dd><a href="${ownerPath(scraper.owner.name)}">${scraper.owner.name}</a></dd></div>
  <div><dt>Data last changed</dt><dd>${timeElement(scraper.data.updatedAt)}</dd></div>
  <div><dt>Data version</dt><dd><a href="#versions">${scraper.data.version}</a></dd></div>
  <div><dt>Size</dt><dd>${humanSize(scraper.data.sizeBytes)}</dd></div>
  <div><dt>Tables</dt><dd>${count(tables.length)}</dd></div>
</dl>
${model.ownerTools ? ownerToolsSection(scraper, model.ownerTools) : ''}
${downloadsSection(model)}
<section class="tables" aria-labelledby="tables">
<h2 id="tables">Data</h2>
${databaseDownloadButton(scraper)}
${downloadsHint(model.visitor !== undefined)}
${tables.length === 0 ? html`<p class="empty">This scraper has no tables yet.</p>` : tables.map((t, i) => tableSection(scraper, t, model.previews[i]!, i))}
</section>
${savedQueriesSection(scraper, model.queries, model.ownerTools !== undefined)}
${keptVersionsSection(scraper, model.versions)}
<section class="api" aria-labelledby="api">
<h2 id="api">Use the API</h2>
<p>Every call needs an API key (<a href="/signup">how to get one</a>) and counts as a download. The full reference is in the <a href="/docs">API documentation</a>. For client generators and API tools: this scraper's <a href="${scraperPath(scraper.owner.name, scraper.name)}/openapi.json">OpenAPI document</a>, with its tables' rows, and the <a href="/openapi.json">whole API's</a>.</p>
${tables.length === 0 ? '' : queryBuilder(model.builder)}
</section>`,
  });
}
