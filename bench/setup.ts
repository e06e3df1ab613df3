/** A data folder with the benchmark's scraper `bench/big` and its accounts, set up through the catalog before a server starts. */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Catalog } from '../src/scrapers/catalog.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { buildFixture } from './fixture.js';

export interface BenchData {
  dataDir: string;
  /** The fixture as built (the scraper's data is a copy of it). */
  fixtureFile: string;
  fixtureBytes: number;
  fixtureMs: number;
  importMs: number;
  /** One key per account named in `accounts`, in the same order. */
  keys: string[];
}

export async function prepareData(workDir: string, accounts: string[]): Promise<BenchData> {
  let t = performance.now();
  const fixtureFile = buildFixture(workDir);
  const fixtureMs = performance.now() - t;
  const dataDir = path.join(workDir, 'data');
  mkdirSync(dataDir);
  const store = new SqliteStore(path.join(dataDir, 'siphon.db'));
  try {
    const catalog = new Catalog(store, dataDir);
    const keys: string[] = [];
    for (const name of accounts) keys.push((await catalog.addUser(name)).key);
    t = performance.now();
    await catalog.addScraper('bench/big', fixtureFile, { isPrivate: false, description: 'benchmark' });
    return { dataDir, fixtureFile, fixtureBytes: statSync(fixtureFile).size, fixtureMs, importMs: performance.now() - t, keys };
  } finally {
    await store.close();
  }
}
