/**
 * No stored name, description or search target holds U+0000 (PostgreSQL's text cannot; Siphon's
 * account and scraper names may not), so a look-up or search with one (from a URL, a search box)
 * finds nothing on every engine, rather than failing the call (PostgreSQL) or reading the text as
 * cut short at the NUL (SQLite's LIKE, where `%\u0000%` matched everything).
 */
export const holdsNul = (...texts: (string | undefined)[]): boolean => texts.some((text) => text?.includes('\u0000'));
