/** A data folder with the benchmark's scraper `bench/big` and its accounts, set up through the catalog before a server starts. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Catalog } from '../src/scrapers/catalog.js';
import { openStore } from '../src/store/open.js';
import { buildFixture } from './fixture.js';

export interface BenchData {
  dataDir: string;
  /** The fixture as built (the scraper's data is a copy of it). */
  fixtureFile: string;
  /** The scraper's data as published: the copy Siphon serves. */
  scraperFile: string;
  fixtureBytes: number;
  fixtureMs: number;
  importMs: number;
  /** One key per account named in `accounts`, in the same order. */
  keys: string[];
}

/**
 * `opts.databaseUrl`: the store is that PostgreSQL database rather than siphon.db; `opts.fixtureFile`:
 * a fixture already built (by an earlier call), and `opts.dataDir`: the data folder, `<workDir>/data` by default.
 */
export async function prepareData(
  workDir: string,
  accounts: string[],
  opts: { databaseUrl?: string; fixtureFile?: string; dataDir?: string } = {},
): Promise<BenchData> {
  let t = performance.now();
  const fixtureFile = opts.fixtureFile ?? buildFixture(workDir);
  const fixtureMs = performance.now() - t;
  const dataDir = opts.dataDir ?? path.join(workDir, 'data');
  mkdirSync(dataDir);
  const store = await openStore({ dataDir, databaseUrl: opts.databaseUrl });
  try {
    const catalog = new Catalog(store, dataDir);
    const keys: string[] = [];
    for (const name of accounts) keys.push((await catalog.addUser(name)).key);
    t = performance.now();
    await catalog.addScraper('bench/big', fixtureFile, { isPrivate: false, description: 'benchmark' });
    const importMs = performance.now() - t;
    const scraperFile = (await store.findScraper('bench', 'big'))!.data.file;
    // The fixture and its copy (~600 MB) are on disk before anything is timed: left to the kernel,
    // they were written back ~30 s later, in the middle of the exports.
    execFileSync('sync');
    return { dataDir, fixtureFile, scraperFile, fixtureBytes: statSync(fixtureFile).size, fixtureMs, importMs, keys };
  } finally {
    await store.close();
  }
}
