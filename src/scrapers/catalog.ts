import { rm, rmdir } from 'node:fs/promises';
import { errors } from '../errors.js';
import { hashKey, keyPrefix, newKey } from '../keys.js';
import type { Account, DataVersion, KeyListing, NewKey, Scraper, Store } from '../store/types.js';
import { importDataFile } from './data-file.js';
import { checkKeyOptions, type KeyOptions } from './key-options.js';
import { scraperDir } from './folders.js';
import { isAccountName, isScraperName } from './names.js';
import { newImportTarget } from './temp-files.js';
import { markCurrent, removeOldVersions } from './versions.js';

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
  ) {}

  /** Creates an account and returns its first key (labelled "first key" unless told otherwise). */
  async addUser(name: string, firstKey: KeyOptions = {}): Promise<{ account: Account; key: string }> {
    if (!isAccountName(name)) throw errors.nameInvalid('account', name);
    const spec = checkKeyOptions({ ...firstKey, label: firstKey.label ?? firstKeyLabel });
    if (await this.store.findAccount(name)) throw errors.accountExists(name);
    const account = await this.store.createAccount(name);
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

  async revokeKey(key: string): Promise<boolean> {
    return this.store.revokeKey(hashKey(key));
  }

  async addScraper(fullName: string, source: string, opts: { isPrivate: boolean; description: string }): Promise<Scraper> {
    const { owner, name } = await this.parseFullName(fullName);
    if (await this.store.findScraper(owner.name, name)) throw errors.scraperExists(`${owner.name}/${name}`);
    const dir = scraperDir(this.dataDir, owner.name, name);
    const data = await this.importData(source, dir);
    let scraper: Scraper;
    try {
      scraper = await this.store.addScraper({ ownerId: owner.id, name, description: opts.description, isPrivate: opts.isPrivate, data: { ...data, version: 1 } });
    } catch (err) {
      await rm(data.file, { force: true });
      await rmdir(dir).catch(() => {});
      throw err;
    }
    await markCurrent(data.file);
    return scraper;
  }

  /**
   * Replaces a scraper's data. Queries already running finish on the old file; new ones open the new
   * one. Old versions stay on disk for a while (versions.ts); those due to go are removed first, while
   * the version being replaced is still current: right after the switch, none is.
   */
  async publish(fullName: string, source: string, signal?: AbortSignal): Promise<Scraper> {
    const { owner, name } = await this.parseFullName(fullName);
    const scraper = await this.store.findScraper(owner.name, name);
    if (!scraper) throw errors.scraperNotFound(`${owner.name}/${name}`);
    const dir = scraperDir(this.dataDir, owner.name, name);
    await removeOldVersions(dir, scraper.data.file);
    const data = await this.importData(source, dir, signal);
    const { current } = await this.store.replaceData(scraper.id, data);
    await markCurrent(current.file);
    return { ...scraper, data: current };
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
