/**
 * Bounds of the site's own forms (sign-up, log in, keys, password, a scraper's settings), kept here
 * rather than in the HTTP layer so that the limits reference (src/views/limits-reference.ts) reads them.
 */

/** Form fields are short (names, labels, passwords, a description): a form body above this is refused (413). */
export const maxFormBytes = 64 * 1024;

/** A description is shown on pages and in feeds: a paragraph, not a document. */
export const maxDescriptionChars = 1000;
