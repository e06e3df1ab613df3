/** Account names follow GitHub's shape, since morph.io owners were GitHub accounts. */
const accountName = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$/;
/** Scraper names follow GitHub repository names. `.json` is reserved for the scraper's info URL. */
const scraperName = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

/** Top-level paths of the site: an account with one of these names would have its page hidden. */
export const reservedAccountNames: readonly string[] = [
  'docs',
  'documentation',
  'assets',
  'healthz',
  'metrics',
  'api',
  'signup',
  'login',
  'logout',
  'account',
];
const reserved = new Set(reservedAccountNames);

export function isAccountName(name: string): boolean {
  return accountName.test(name) && !reserved.has(name.toLowerCase());
}

export function isScraperName(name: string): boolean {
  return scraperName.test(name) && !name.toLowerCase().endsWith('.json');
}
