import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { demoScraper, ensureDemo } from '../demo/demo-seed.js';
import { Catalog } from '../scrapers/catalog.js';
import { startService } from '../service.js';
import type { Store } from '../store/types.js';

/** Runs the service until SIGTERM or SIGINT, then finishes the requests in flight and stops. */
export async function serve(config: Config, store: Store, opts: { demo: boolean }): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const demo = opts.demo ? await ensureDemo(store, new Catalog(store, config.dataDir), config.dataDir) : undefined;
  const service = await startService(config, store);
  const base = service.base;
  process.stdout.write(`Siphon is serving ${config.dataDir} at ${base}\n`);
  if (demo) {
    if (demo.replacedWritable) {
      process.stdout.write('\nThe demo key kept by an earlier version could publish data: it is revoked, and replaced by the read-only key below.\n');
    }
    process.stdout.write(
      `\nDemo scraper: ${base}/${demoScraper}.json\nDemo key (read-only, for trying Siphon locally): ${demo.key}\n` +
      `Try:\n  curl '${base}/${demoScraper}/data.json?key=${demo.key}&query=select+title%2C+date+from+%22data%22+limit+3'\n\n`,
    );
  }

  await new Promise<void>((resolve, reject) => {
    // A failure to stop cleanly rejects serve() (and so exits non-zero) rather than going unhandled.
    const stop = (signal: string) => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      service.app.log.info({ signal }, 'stopping: finishing requests in flight');
      service.close().then(() => store.close()).then(resolve, reject);
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
  });
}
