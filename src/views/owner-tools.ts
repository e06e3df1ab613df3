import { maxDescriptionChars } from '../limits/web-forms.js';
import type { Retention, Scraper } from '../store/types.js';
import { csrfField } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { humanSize, scraperPath } from './text.js';

export interface OwnerTools {
  csrfToken: string;
  maxPublishBytes: number;
  /** What the scraper keeps now, and the most versions the operator lets it keep. */
  keep: Retention;
  maxKeepVersions: number;
}

/** The form that chooses how many data versions the scraper keeps (as `scraper keep`); an empty field is the operator's default. */
function keepForm(scraper: Scraper, tools: OwnerTools, path: string): SafeHtml {
  const { keep } = tools;
  return html`<h3>Kept versions</h3>
<form method="post" action="${path}/keep" class="scraper-keep">
${csrfField(tools.csrfToken)}
<p class="hint">Links that name a version keep showing its data while it is kept. Now: the last ${keep.versions}${keep.days > 0 ? html`, none older than ${keep.days} days` : ''}${scraper.keep.versions === null && scraper.keep.days === null ? ' (the default)' : ''}. Leave a field empty for the default.</p>
<div class="field-row">
<label>Versions <input name="versions" type="number" min="1" max="${tools.maxKeepVersions}" value="${scraper.keep.versions ?? ''}"></label>
<label>Days (0: no age limit) <input name="days" type="number" min="0" max="3650" value="${scraper.keep.days ?? ''}"></label>
</div>
<p><button type="submit">Keep</button></p>
</form>`;
}

/**
 * What only a scraper's owner sees on its page: its description and visibility, and a form to
 * publish a new database file (checked and limited as PUT …/data.sqlite is).
 */
export function ownerToolsSection(scraper: Scraper, tools: OwnerTools): SafeHtml {
  const path = scraperPath(scraper.owner.name, scraper.name);
  return html`<section class="owner-tools" aria-labelledby="owner-tools">
<h2 id="owner-tools">Your scraper</h2>
<p class="hint">Only you see this part. ${
    scraper.isPrivate
      ? 'This scraper is private: only your keys can query it, and to everyone else it does not exist.'
      : 'This scraper is public: every key can query it, and it is listed on the site.'
  }</p>
<form method="post" action="${path}/settings" class="scraper-settings">
${csrfField(tools.csrfToken)}
<div class="field"><label for="scraper-description">Description</label>
<textarea id="scraper-description" name="description" rows="2" maxlength="${maxDescriptionChars}">${scraper.description}</textarea></div>
<fieldset class="radio"><legend>Visibility</legend>
<p><input type="radio" id="visibility-public" name="visibility" value="public"${scraper.isPrivate ? '' : html` checked`}> <label for="visibility-public">Public: listed, and served to every key</label></p>
<p><input type="radio" id="visibility-private" name="visibility" value="private"${scraper.isPrivate ? html` checked` : ''}> <label for="visibility-private">Private: served to your keys only, listed nowhere else</label></p>
</fieldset>
<p><button type="submit">Save</button></p>
</form>
<h3>Publish new data</h3>
<form method="post" action="${path}/publish" enctype="multipart/form-data" class="scraper-publish">
${csrfField(tools.csrfToken)}
<div class="field"><label for="publish-file">SQLite database file <span class="hint">(at most ${humanSize(tools.maxPublishBytes)}; replaces the data in one step, as PUT ${path}/data.sqlite does)</span></label>
<input id="publish-file" name="db" type="file" required accept=".sqlite,.sqlite3,.db,application/vnd.sqlite3"></div>
<p><button type="submit">Publish</button></p>
</form>
${keepForm(scraper, tools, path)}
</section>`;
}
