/**
 * @module Escape-by-default HTML templates. Every value interpolated into `html\`…\`` is escaped
 * unless it is itself the result of `html` (already safe), so scraper data (a description, a table
 * name, a cell holding `<script>`) can only ever appear as text. A dozen lines do the job, with types
 * checked by tsc, where a template library would add a dependency and its own escaping rules.
 */

/** Markup that is safe to send as it is: built by `html`, so everything in it was escaped. */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a template accepts: text (escaped), safe markup, lists of these, and nothing (for conditionals). */
export type Html = SafeHtml | string | number | null | undefined | false | readonly Html[];

const specials = /[&<>"']/g;
const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside an element and inside a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(specials, (c) => entities[c]!);
}

function render(value: Html): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Html[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}
