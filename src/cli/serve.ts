import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import { writeDemoDatabase } from '../demo/demo-data.js';
import { Catalog } from '../scrapers/catalog.js';
import { startService } from '../service.js';
import type { Store } from '../store/types.js';

export const demoScraper = 'demo/planning-applications';

/**
 * Seeds the demo account and scraper on first start. The demo key is kept in plain text in the data
 * folder (mode 0600) so it can be printed at every start; real keys are only ever stored hashed.
 */
async function ensureDemo(store: Store, catalog: Catalog, dataDir: string): Promise<string> {
  const keyFile = path.join(dataDir, 'demo-key.txt');
  if (await store.findScraper('demo', 'planning-applications')) return (await readFile(keyFile, 'utf8')).trim();
  const { key } = (await store.findAccount('demo'))
    ? { key: await catalog.createKey('demo', true) }
    : await catalog.addUser('demo');
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
  await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Runs the service until SIGTERM or SIGINT, then finishes the requests in flight and stops. */
export async function serve(config: Config, store: Store, opts: { demo: boolean }): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const demoKey = opts.demo ? await ensureDemo(store, new Catalog(store, config.dataDir), config.dataDir) : undefined;
  const service = await startService(config, store);
  const base = service.base;
  process.stdout.write(`Siphon is serving ${config.dataDir} at ${base}\n`);
  if (demoKey) {
    process.stdout.write(
      `\nDemo scraper: ${base}/${demoScraper}.json\nDemo key (read-only, for trying Siphon locally): ${demoKey}\n` +
      `Try:\n  curl '${base}/${demoScraper}/data.json?key=${demoKey}&query=select+title%2C+date+from+%22data%22+limit+3'\n\n`,
    );
  }

  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      service.app.log.info({ signal }, 'stopping: finishing requests in flight');
      await service.close();
      await store.close();
      resolve();
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
  });
}
