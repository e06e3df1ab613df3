import { html, type Html, type SafeHtml } from './html.js';

/** A signed-in visitor, as every page's header shows them. */
export interface Visitor {
  name: string;
  /** For the "Log out" form: logging out changes something, so it is a POST with this browser's token. */
  csrfToken: string;
}

export interface PageOptions {
  title: string;
  /** Signed in: their account and a "Log out" button; else links to sign up and log in. */
  visitor?: Visitor;
  /** Page-specific ES modules from /assets/, by their path under src/ (`views/client/account.js`). */
  scripts?: string[];
  /** More of the head: a page's `<link rel="alternate">` to its data, its `rel="next"`. */
  head?: Html;
  body: Html;
}

/** The frame every page shares: head, site header with navigation, main, footer. */
function visitorNav(visitor: Visitor | undefined): SafeHtml {
  if (!visitor)
    return html`<a href="/login">Log in</a>
    <a href="/signup">Sign up</a>`;
  return html`<a href="/account">${visitor.name}: keys and account</a>
    <form method="post" action="/logout" class="logout"><input type="hidden" name="_csrf" value="${visitor.csrfToken}"><button type="submit" class="link">Log out</button></form>`;
}

export function layout({ title, scripts = [], head, body, visitor }: PageOptions): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Siphon</title>
<link rel="stylesheet" href="/assets/site.css">
<link rel="icon" href="data:,">
${head}
${scripts.map((s) => html`<script type="module" src="/assets/${s}"></script>\n`)}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">Siphon</a>
  <nav aria-label="Site">
    <a href="/">Scrapers</a>
    <a href="/docs">API documentation</a>
    ${visitorNav(visitor)}
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
