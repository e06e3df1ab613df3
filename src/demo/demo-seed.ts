import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hashKey } from '../keys.js';
import type { Catalog } from '../scrapers/catalog.js';
import type { KeyOptions } from '../scrapers/key-options.js';
import type { AccountStore, ScraperStore } from '../store/types.js';
import { writeDemoDatabase } from './demo-data.js';

const demoOwner = 'demo';
const demoName = 'planning-applications';
export const demoScraper = `${demoOwner}/${demoName}`;

/** The demo key is printed at every start, so it is read-only: it can never publish. */
const demoKey: KeyOptions = { readOnly: true, label: 'demo key, printed at every start' };

export interface DemoKey {
  key: string;
  /**
   * The key kept by an earlier version could publish (it was the demo account's first key): it has
   * been revoked, and `key` is a read-only one made in its place.
   */
  replacedWritable: boolean;
}

/**
 * Seeds the demo account and scraper if they are missing, and returns the demo key. The key is kept
 * in plain text in the data folder (mode 0600) so it can be printed at every start; real keys are
 * only ever stored hashed. A kept key that is not a usable read-only key of the demo account (gone,
 * revoked, or one that can publish) is replaced by a new read-only one.
 */
export async function ensureDemo(store: AccountStore & ScraperStore, catalog: Catalog, dataDir: string): Promise<DemoKey> {
  const keyFile = path.join(dataDir, 'demo-key.txt');
  const save = (key: string) => writeFile(keyFile, `${key}\n`, { mode: 0o600 });
  if (!(await store.findAccount(demoOwner))) await save((await catalog.addUser(demoOwner, demoKey)).key);
  if (!(await store.findScraper(demoOwner, demoName))) await addDemoScraper(catalog);

  const kept = (await readFile(keyFile, 'utf8').catch(() => '')).trim();
  const found = kept === '' ? undefined : await store.findKey(hashKey(kept));
  const isDemos = found?.account.name.toLowerCase() === demoOwner;
  if (found && isDemos && !found.revoked && found.readOnly && found.origins === null) return { key: kept, replacedWritable: false };
  const replacedWritable = found !== undefined && isDemos && !found.revoked && !found.readOnly;
  if (replacedWritable) await catalog.revokeKey(kept);
  const key = await catalog.createKey(demoOwner, demoKey);
  await save(key);
  return { key, replacedWritable };
}

async function addDemoScraper(catalog: Catalog): Promise<void> {
  const source = path.join(os.tmpdir(), `siphon-demo-${process.pid}.sqlite`);
  try {
    writeDemoDatabase(source);
    await catalog.addScraper(demoScraper, source, {
      isPrivate: false,
      description: 'Planning applications lodged with a mountain council (demo data)',
    });
  } finally {
    await rm(source, { force: true });
  }
}
