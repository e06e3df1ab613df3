import { html, type Html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';

/** A page that says one thing: a form refused, sign-ups closed, too many wrong passwords. */
export function messagePage(title: string, message: string, visitor?: Visitor, more?: Html): SafeHtml {
  return layout({
    title,
    visitor,
    body: html`<h1>${title}</h1>
<p class="message" role="alert">${message}</p>
${more}
<p><a href="/">See the public scrapers</a> · <a href="/docs">API documentation</a></p>`,
  });
}
