import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { demoScraper, ensureDemo } from '../demo/demo-seed.js';
import { Catalog } from '../scrapers/catalog.js';
import { startService } from '../service.js';
import type { Store } from '../store/types.js';
import { announceStart } from './startup.js';

/**
 * Runs the service until SIGTERM or SIGINT, then finishes the requests in flight, writes what the
 * log still holds, and stops. What it says at start (where it serves, its pages, the demo key) is
 * startup.ts's: log records for a machine, lines for a person.
 */
export async function serve(config: Config, store: Store, opts: { demo: boolean }): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const demo = opts.demo ? await ensureDemo(store, new Catalog(store, config.dataDir), config.dataDir) : undefined;
  const service = await startService(config, store);
  const { base, log } = service;
  const demoStarted = demo && { scraper: demoScraper, key: demo.key, replacedWritable: demo.replacedWritable };
  announceStart(log, { base, dataDir: config.dataDir, metricsUrl: service.metricsUrl, demo: demoStarted });

  await new Promise<void>((resolve, reject) => {
    // A failure to stop cleanly rejects serve() (and so exits non-zero) rather than going unhandled.
    const stop = (signal: string) => {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      log.logger.info({ signal }, 'stopping: finishing requests in flight');
      service
        .close()
        .then(() => store.close())
        .then(async () => {
          log.logger.info('stopped');
          await log.flush();
        })
        .then(resolve, reject);
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
  });
}
