import { maxDescriptionChars } from '../limits/web-forms.js';
import { maxTitleChars } from '../scrapers/saved-queries.js';
import type { SavedQueryFields, Scraper } from '../store/types.js';
import { csrfField, formError } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { layout, type Visitor } from './layout.js';
import { savedQueryPath, scraperPath } from './text.js';

/** Where the builder's form saves a new query of the scraper. */
const newQueryPath = (scraper: Scraper) => `${scraperPath(scraper.owner.name, scraper.name)}/queries`;

/** The name field, new queries only: a slug, checked again by the server (saved-queries.ts). */
function nameField(name: string, prefix: string): SafeHtml {
  return html`<div class="field"><label for="${prefix}-name">Name <span class="hint">(lower-case letters, digits and -: its address, …/queries/<em>name</em>)</span></label>
<input id="${prefix}-name" name="name" value="${name}" required maxlength="64" pattern="[a-z0-9][a-z0-9\\-]{0,63}" title="Lower-case letters, digits and -, starting with a letter or digit" spellcheck="false" autocomplete="off"></div>`;
}

/** Title, description and the private box, the same on every form of a saved query. */
function textFields(draft: SavedQueryFields, prefix: string): SafeHtml {
  return html`<div class="field"><label for="${prefix}-title">Title <span class="hint">(optional: the name when empty)</span></label>
<input id="${prefix}-title" name="title" value="${draft.title}" maxlength="${maxTitleChars}"></div>
<div class="field"><label for="${prefix}-description">Description <span class="hint">(optional)</span></label>
<textarea id="${prefix}-description" name="description" rows="2" maxlength="${maxDescriptionChars}">${draft.description}</textarea></div>
<p class="checkbox"><input type="checkbox" id="${prefix}-private" name="private" value="1"${draft.isPrivate ? html` checked` : ''}> <label for="${prefix}-private">Private: only you see it and can run it</label></p>`;
}

function sqlField(sql: string, prefix: string): SafeHtml {
  return html`<div class="field"><label for="${prefix}-sql">SQL <span class="hint">(one SELECT, WITH or VALUES statement; <code>:name</code> for each value its page asks for)</span></label>
<textarea id="${prefix}-sql" name="sql" rows="4" spellcheck="false" autocomplete="off" required>${sql}</textarea></div>`;
}

/**
 * "Save this query" in the query builder, for the scraper's owner: the SQL the page was rendered
 * with rides in a hidden field (without JavaScript the builder's GET puts it there), and with
 * JavaScript client/query-builder.ts copies the SQL as it is now into it on submit.
 */
export function saveQueryForm(scraper: Scraper, csrfToken: string, sql: string): SafeHtml {
  const draft: SavedQueryFields = { name: '', title: '', description: '', sql, isPrivate: false };
  return html`<details class="save-query">
<summary>Save this query</summary>
<form method="post" action="${newQueryPath(scraper)}" class="save-query">
${csrfField(csrfToken)}
<input type="hidden" name="sql" value="${sql}">
<p class="hint">Saves the SQL above as it is, <code>:named</code> parameters included, as a page of this scraper that asks for their values.<span data-without-js> Press "Update the URL and examples" first: the SQL saved is the one last shown.</span></p>
${nameField('', 'save')}
${textFields(draft, 'save')}
<p><button type="submit">Save</button></p>
</form>
</details>`;
}

export interface SavedQueryFormPage {
  scraper: Scraper;
  /** The form's values: as saved, or as sent when refused. */
  draft: SavedQueryFields;
  csrfToken: string;
  visitor: Visitor;
  /** The edit page of a saved query; else the builder's form, refused, shown again on a page of its own. */
  editing: boolean;
  /** A refusal, shown at the form that was sent. */
  error?: { form: 'save' | 'delete'; message: string };
}

function deleteForm(model: SavedQueryFormPage, page: string): SafeHtml {
  return html`<h2>Delete this query</h2>
${formError(model.error?.form === 'delete' ? model.error.message : undefined, 'delete-error')}
<form method="post" action="${page}/delete" class="delete-query">
${csrfField(model.csrfToken)}
<p class="checkbox"><input type="checkbox" id="delete-confirm" name="confirm" value="1" required> <label for="delete-confirm">Yes, delete it: its page and its data URLs answer 404 from now on</label></p>
<p><button type="submit" class="secondary">Delete</button></p>
</form>`;
}

/**
 * The owner's page of one saved query's form: `…/queries/{name}/edit` (title, description, SQL,
 * private; the name stays, and a form to delete it), or a new query the builder's form sent that
 * was refused, shown with the SQL to correct.
 */
export function savedQueryFormPage(model: SavedQueryFormPage): SafeHtml {
  const { scraper, draft, editing } = model;
  const fullName = `${scraper.owner.name}/${scraper.name}`;
  const page = savedQueryPath(scraper.owner.name, scraper.name, draft.name);
  const action = editing ? `${page}/edit` : newQueryPath(scraper);
  return layout({
    title: editing ? `Edit ${fullName}/queries/${draft.name}` : `Save a query of ${fullName}`,
    visitor: model.visitor,
    body: html`<h1>${editing ? html`Edit the saved query <a href="${page}">${draft.name}</a>` : 'Save a query'}</h1>
<p class="hint">Of <a href="${scraperPath(scraper.owner.name, scraper.name)}">${fullName}</a>. ${editing ? html`Its name stays: its address is <code>${page}</code>.` : 'Only you see this page.'}</p>
${formError(model.error?.form === 'save' ? model.error.message : undefined, 'save-error')}
<form method="post" action="${action}" class="saved-query-form">
${csrfField(model.csrfToken)}
${editing ? '' : nameField(draft.name, 'query')}
${textFields(draft, 'query')}
${sqlField(draft.sql, 'query')}
<p><button type="submit">Save</button></p>
</form>
${editing ? deleteForm(model, page) : ''}`,
  });
}
