import type { ApiReference } from './docs-reference.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { queryBuilder, type BuilderModel } from './query-builder.js';

export interface DocsPageModel {
  /** docs/api.md, rendered with this server's limits. */
  reference: ApiReference;
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
${
  model.builder
    ? html`<div id="api">${queryBuilder(model.builder)}</div>`
    : html`<p class="empty">${model.scraperField ? `There is no public scraper ${model.scraperField}.` : 'There is no public scraper yet.'}</p>`
}
</section>`;
}

/** `/docs` and `/documentation/api`: docs/api.md as a page, with a contents list and a working query builder. */
export function docsPage(model: DocsPageModel): SafeHtml {
  const { title, html: reference, headings } = model.reference;
  const sections = headings.filter((h) => h.depth === 2);
  return layout({
    title,
    visitor: model.visitor,
    scripts: model.builder ? ['views/client/query-builder.js'] : [],
    body: html`<h1>${title}</h1>
<nav class="toc" aria-label="On this page"><ul>
${sections.map((h) => html`<li><a href="#${h.id}">${h.text}</a></li>`)}<li><a href="#try">Try it</a></li></ul></nav>
<div class="reference">
${reference}
</div>
${examplesSection(model)}`,
  });
}
