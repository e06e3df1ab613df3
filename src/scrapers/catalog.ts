import { rm, rmdir } from 'node:fs/promises';
import { hashPassword, isAcceptablePassword, maxPasswordChars, minPasswordChars } from '../accounts/passwords.js';
import { errors } from '../errors.js';
import { hashKey, keyPrefix, newKey } from '../keys.js';
import type {
  Account,
  AccountListing,
  DataVersion,
  KeepChoice,
  KeyListing,
  NewKey,
  SavedQuery,
  SavedQueryFields,
  Scraper,
  ScraperChanges,
  ScraperListing,
  Store,
} from '../store/types.js';
import { importDataFile } from './data-file.js';
import { checkKeyOptions, type KeyOptions } from './key-options.js';
import { scraperDir } from './folders.js';
import { isAccountName, isScraperName } from '../utils/names.js';
import { checkSavedQuery, isSavedQueryName, maxSavedQueries } from './saved-queries.js';
import { newImportTarget } from './temp-files.js';
import { markCurrent, markRemoved } from './versions.js';
import { checkKeepChoice, retentionOf, type RetentionSettings } from './retention.js';
import { sweepScraper } from './version-sweeper.js';
import { defaults } from '../config.js';

/**
 * Copies a database file into a scraper's folder as a new data version (see `importDataFile`);
 * `signal` stops it when it can be stopped.
 */
export type Importer = (source: string, dir: string, signal?: AbortSignal) => Promise<Omit<DataVersion, 'version'>>;

/** The label of an account's first key when none is given. */
const firstKeyLabel = 'first key';

/** Imports in this process: quick for trusted files, but cannot be stopped. */
export const importInPlace: Importer = (source, dir) => importDataFile(source, newImportTarget(dir));

/**
 * Accounts, keys and scrapers: the operations behind the CLI and publishing over HTTP.
 * Each either completes or leaves nothing half-created.
 */
export class Catalog {
  constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    /** The server and the CLI pass `importerWithLimits(…)`; in place suits trusted files (the demo's, tests'). */
    private readonly importData: Importer = importInPlace,
    /** The operator's retention of data versions (`--keep-versions`…). */
    private readonly retention: RetentionSettings = defaults,
  ) {}

  /** Creates an account and returns its first key (labelled "first key" unless told otherwise). */
  async addUser(name: string, firstKey: KeyOptions = {}): Promise<{ account: Account; key: string }> {
    if (!isAccountName(name)) throw errors.nameInvalid('account', name);
    const spec = checkKeyOptions({ ...firstKey, label: firstKey.label ?? firstKeyLabel });
    const account = await this.store.createAccount(name);
    if (!account) throw errors.accountExists(name);
    return { account, key: await this.addKey(account, spec) };
  }

  /** Returns the new key: the one time it is seen, as only its hash is kept. */
  async createKey(accountName: string, options: KeyOptions = {}): Promise<string> {
    const spec = checkKeyOptions(options);
    return this.addKey(await this.requireAccount(accountName), spec);
  }

  /** The account's keys as `key list` shows them. */
  async listKeys(accountName: string): Promise<KeyListing[]> {
    return this.store.listKeys((await this.requireAccount(accountName)).id);
  }

  private async addKey(account: Account, spec: Omit<NewKey, 'prefix'>): Promise<string> {
    const key = newKey();
    await this.store.addKey(account.id, hashKey(key), { ...spec, prefix: keyPrefix(key) });
    return key;
  }

  /**
   * Sets the account's password for signing in on the web, and ends its sessions but `keepSession`
   * (a visitor changing their own password stays signed in; an operator's reset keeps none).
   */
  async setPassword(accountName: string, password: string, keepSession?: string): Promise<Account> {
    if (!isAcceptablePassword(password)) throw errors.passwordInvalid(minPasswordChars, maxPasswordChars);
    const account = await this.requireAccount(accountName);
    await this.store.setPasswordHash(account.id, await hashPassword(password));
    await this.store.removeAccountSessions(account.id, keepSession);
    return account;
  }

  async revokeKey(key: string): Promise<boolean> {
    return this.store.revokeKey(hashKey(key));
  }

  /**
   * Revokes the key of the account that `key list` shows by `prefix`, for an operator who does not
   * have the key itself. Only a key not yet revoked counts; with none, or more than one (prefixes
   * are short), nothing is revoked and the answer says which.
   */
  async revokeKeyByPrefix(accountName: string, prefix: string): Promise<'revoked' | 'none' | 'several'> {
    const account = await this.requireAccount(accountName);
    const matching = (await this.store.listKeys(account.id)).filter((k) => k.prefix === prefix && k.revokedAt === null);
    if (matching.length !== 1) return matching.length === 0 ? 'none' : 'several';
    await this.store.revokeAccountKey(account.id, matching[0]!.id);
    return 'revoked';
  }

  async addScraper(fullName: string, source: string, opts: { isPrivate: boolean; description: string }): Promise<Scraper> {
    const { owner, name } = await this.parseFullName(fullName);
    if (await this.store.findScraper(owner.name, name)) throw errors.scraperExists(`${owner.name}/${name}`);
    const dir = scraperDir(this.dataDir, owner.name, name);
    const data = await this.importData(source, dir);
    let scraper: Scraper;
    try {
      scraper = await this.store.addScraper({
        ownerId: owner.id,
        name,
        description: opts.description,
        isPrivate: opts.isPrivate,
        data: { ...data, version: 1 },
      });
    } catch (err) {
      await rm(data.file, { force: true });
      await rmdir(dir).catch(() => {});
      throw err;
    }
    await markCurrent(data.file);
    return scraper;
  }

  /**
   * Replaces a scraper's data, kept as its newest version. Queries already running finish on the old
   * file; new ones open the new one. The versions its retention no longer keeps are retired at once
   * (no longer served); their files stay on disk for a while (versions.ts), and those due to go are
   * removed first, while the version being replaced is still current: right after the switch, none is.
   */
  async publish(fullName: string, source: string, signal?: AbortSignal): Promise<Scraper> {
    const scraper = await this.findScraper(fullName);
    const dir = scraperDir(this.dataDir, scraper.owner.name, scraper.name);
    await sweepScraper(this.store, scraper, dir, this.retention);
    const data = await this.importData(source, dir, signal);
    const swapped = await this.store.replaceData(scraper.id, data);
    if (!swapped) {
      // Removed while its new data was imported.
      await rm(data.file, { force: true });
      throw errors.scraperNotFound(`${scraper.owner.name}/${scraper.name}`);
    }
    await markCurrent(swapped.current.file);
    await this.store.retireVersions(scraper.id, retentionOf(scraper, this.retention), new Date().toISOString());
    return { ...scraper, data: swapped.current };
  }

  /** Sets how many versions (and days) the scraper keeps, each within the operator's bounds; null: the operator's default. */
  async keepVersions(fullName: string, choice: Partial<KeepChoice>): Promise<Scraper> {
    return this.setScraper(fullName, { keep: checkKeepChoice(choice, this.retention) });
  }

  /** What the scraper keeps now, with the owner's choice applied. */
  retentionOf(scraper: Scraper) {
    return retentionOf(scraper, this.retention);
  }

  /** Every account, as `user list` shows them. */
  async listUsers(): Promise<AccountListing[]> {
    return this.store.listAccounts();
  }

  /** Every scraper, private ones included, or only those of `ownerName`; by owner, then name. */
  async listScrapers(ownerName?: string): Promise<ScraperListing[]> {
    const owner = ownerName === undefined ? undefined : (await this.requireAccount(ownerName)).name;
    const listings = await this.store.listScrapers({ owner, includePrivate: true });
    const byName = (l: ScraperListing) => `${l.scraper.owner.name.toLowerCase()}/${l.scraper.name.toLowerCase()}`;
    return listings.sort((a, b) => (byName(a) < byName(b) ? -1 : byName(a) > byName(b) ? 1 : 0));
  }

  /** Changes a scraper's description or visibility; a running server answers accordingly from its next request. */
  async setScraper(fullName: string, changes: ScraperChanges): Promise<Scraper> {
    const scraper = await this.findScraper(fullName);
    const updated = await this.store.updateScraper(scraper.id, changes);
    if (!updated) throw errors.scraperNotFound(`${scraper.owner.name}/${scraper.name}`);
    return updated;
  }

  /**
   * Removes a scraper: from the next request on it is not found. Its data files stay for as long as
   * old versions do (versions.ts), for requests that looked it up just before and have not opened
   * them yet; a running server's sweep then removes them. Its downloads stay counted.
   */
  async removeScraper(fullName: string): Promise<Scraper> {
    const scraper = await this.findScraper(fullName);
    await markRemoved(scraperDir(this.dataDir, scraper.owner.name, scraper.name));
    if (!(await this.store.removeScraper(scraper.id))) throw errors.scraperNotFound(`${scraper.owner.name}/${scraper.name}`);
    return scraper;
  }

  /**
   * Saves a query of the scraper (checked: saved-queries.ts), replacing its query of that name unless `only` wants a
   * new name (the builder's form) or a saved one (an edit); 409 beyond the bound. Only the owner saves: a race is theirs.
   */
  async saveQuery(fullName: string, query: SavedQueryFields, maxQueryChars: number, only?: 'new' | 'existing'): Promise<SavedQuery> {
    const scraper = await this.findScraper(fullName);
    const checked = checkSavedQuery(query, maxQueryChars);
    const found = only && (await this.store.findQuery(scraper.id, checked.name));
    if (only === 'new' && found) throw errors.savedQueryExists(`${scraper.owner.name}/${scraper.name}`, checked.name);
    if (only === 'existing' && !found) throw errors.savedQueryNotFound(`${scraper.owner.name}/${scraper.name}`, checked.name);
    const saved = await this.store.saveQuery(scraper.id, checked, maxSavedQueries);
    if (!saved) throw errors.savedQueriesTooMany(maxSavedQueries);
    return saved;
  }

  /** Every query the scraper's owner saved, private ones included. */
  async listQueries(fullName: string): Promise<SavedQuery[]> {
    return this.store.listQueries((await this.findScraper(fullName)).id, true);
  }

  async removeQuery(fullName: string, name: string): Promise<void> {
    const scraper = await this.findScraper(fullName);
    if (!isSavedQueryName(name) || !(await this.store.removeQuery(scraper.id, name)))
      throw errors.savedQueryNotFound(`${scraper.owner.name}/${scraper.name}`, name);
  }

  /** Deletes the downloads recorded before `before` (ISO, UTC); the counts shown keep them. Returns how many. */
  async pruneDownloads(before: Date): Promise<number> {
    return this.store.pruneDownloads(before.toISOString());
  }

  /** The scraper of OWNER/NAME, private or not, or SIPHON_ERR_SCRAPER_NOT_FOUND. */
  async findScraper(fullName: string): Promise<Scraper> {
    const { owner, name } = await this.parseFullName(fullName);
    const scraper = await this.store.findScraper(owner.name, name);
    if (!scraper) throw errors.scraperNotFound(`${owner.name}/${name}`);
    return scraper;
  }

  private async requireAccount(name: string): Promise<Account> {
    const account = await this.store.findAccount(name);
    if (!account) throw errors.accountNotFound(name);
    return account;
  }

  private async parseFullName(fullName: string): Promise<{ owner: Account; name: string }> {
    const [ownerName = '', name = '', ...rest] = fullName.split('/');
    if (rest.length > 0 || !isAccountName(ownerName)) throw errors.nameInvalid('account', ownerName);
    if (!isScraperName(name)) throw errors.nameInvalid('scraper', name);
    return { owner: await this.requireAccount(ownerName), name };
  }
}
