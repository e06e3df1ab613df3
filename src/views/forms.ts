import { html, type SafeHtml } from './html.js';

/** The hidden field every form that changes something carries: this browser's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A form's refusal, above its fields; nothing when there is none. */
export function formError(message: string | undefined, id: string): SafeHtml | '' {
  return message ? html`<p class="error" id="${id}" role="alert">${message}</p>` : '';
}
