import { mkdirSync } from 'node:fs';
import type { Catalog } from '../scrapers/catalog.js';
import { catalogWithImportLimits } from '../scrapers/limited-catalog.js';
import { openStore } from '../store/open.js';
import type { CommandFlag, CommandRun, FlagValues } from './commands.js';

/**
 * Opens the data folder's store (creating both if need be) and a catalog over it, runs `use`, and
 * closes the store. Imports run as the server runs them: in a process of their own, under its limits.
 */
export async function withCatalog(run: CommandRun, use: (catalog: Catalog) => Promise<void>): Promise<void> {
  const { config } = run;
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore(config, 2);
  try {
    await use(catalogWithImportLimits(store, config));
  } finally {
    await store.close();
  }
}

export const text = (value: FlagValues[CommandFlag]) => value as string | undefined;
