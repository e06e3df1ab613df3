import { html, type Html, type SafeHtml } from './html.js';

export interface PageOptions {
  title: string;
  /** Page-specific ES modules from /assets/. */
  scripts?: string[];
  body: Html;
}

/** The frame every page shares: head, site header with navigation, main, footer. */
export function layout({ title, scripts = [], body }: PageOptions): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Siphon</title>
<link rel="stylesheet" href="/assets/site.css">
<link rel="icon" href="data:,">
${scripts.map((s) => html`<script type="module" src="/assets/${s}"></script>\n`)}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">Siphon</a>
  <nav aria-label="Site">
    <a href="/">Scrapers</a>
    <a href="/docs">API documentation</a>
  </nav>
</header>
<main id="main">
${body}
</main>
<footer class="site">
  <p>Every API call is a download and is shown on the scraper's page. <a href="/docs#downloads">Why?</a></p>
</footer>
</body>
</html>
`;
}
