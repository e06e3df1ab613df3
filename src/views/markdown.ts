/**
 * @module Markdown for the docs: docs/api.md rendered as the /docs page (with marked, pinned), and the
 * helpers that write the parts of it generated from the code. The Markdown is the project's own,
 * so its HTML is passed through; values from the code are escaped as they are written in.
 */
import { Marked, Renderer, type Tokens } from 'marked';
import { SafeHtml } from './html.js';

export interface Heading {
  depth: number;
  /** The heading as plain text. */
  text: string;
  /** Its anchor, as GitHub makes it, so `[…](#anchor)` links work on GitHub and on the page alike. */
  id: string;
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

function plainText(inlineHtml: string): string {
  return inlineHtml.replace(/<[^>]*>/g, '').replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => entities[e]!);
}

/** GitHub's anchors: lower case, punctuation dropped, spaces as hyphens; a repeated one gets `-1`, `-2`… */
function anchorMaker(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const slug = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    return n === 0 ? slug : `${slug}-${n}`;
  };
}

/**
 * The page's HTML for the Markdown, and its headings. Links to other files of the repository
 * (`cli.md#…`, `../SECURITY.md`) have no page on the site, so they are shown as their text. A bare
 * URL stays text too: the ones in the docs are examples (`https://elsewhere.example` in an error
 * message), not places to go.
 */
export function renderMarkdown(source: string): { html: SafeHtml; headings: Heading[] } {
  const headings: Heading[] = [];
  const anchor = anchorMaker();
  const marked = new Marked({ gfm: true, async: false });
  marked.use({
    // undefined, not false: false would fall back to marked's own tokenizer.
    tokenizer: { url: () => undefined },
    renderer: {
      heading(this: Renderer, { tokens, depth }: Tokens.Heading): string {
        const inner = this.parser.parseInline(tokens);
        const text = plainText(inner);
        const id = anchor(text);
        headings.push({ depth, text, id });
        return `<h${depth} id="${id}">${inner}</h${depth}>\n`;
      },
      link(this: Renderer, { href, tokens }: Tokens.Link): string | false {
        return /^(?:#|https?:)/.test(href) ? false : this.parser.parseInline(tokens);
      },
      table(this: Renderer, token: Tokens.Table): string {
        return `<div class="table-scroll">${Renderer.prototype.table.call(this, token)}</div>\n`;
      },
      html({ text }: Tokens.HTML | Tokens.Tag): string | false {
        return text.trimStart().startsWith('<!--') ? '' : false;
      },
    },
  });
  return { html: new SafeHtml(marked.parse(source) as string), headings };
}

/** Text written into Markdown as text: every character Markdown or HTML would read as syntax is escaped. */
export function markdownText(text: string): string {
  return text
    .replace(/[\\`*_[\]<>|#!]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/\r?\n/g, ' ');
}

/** A fenced code block holding `body` exactly, whatever backticks it holds. */
export function codeBlock(body: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map(([run]) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${body.endsWith('\n') ? body : `${body}\n`}${fence}`;
}

/** A Markdown table; cells are Markdown already, a `|` in them not yet escaped is escaped here. */
export function markdownTable(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/(?<!\\)\|/g, '\\|')).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}
