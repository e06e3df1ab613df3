import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { demoScraper, ensureDemo } from '../demo/demo-seed.js';
import { Catalog } from '../scrapers/catalog.js';
import { startService } from '../service.js';
import type { Store } from '../store/types.js';

/**
 * Runs the service until SIGTERM or SIGINT, then finishes the requests in flight, writes what the
 * log still holds, and stops. What it says at start (where it serves, its pages, the demo key) is
 * log records like the rest, written at every level but `silent`.
 */
export async function serve(config: Config, store: Store, opts: { demo: boolean }): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const demo = opts.demo ? await ensureDemo(store, new Catalog(store, config.dataDir), config.dataDir) : undefined;
  const service = await startService(config, store);
  const { base, log } = service;
  const startup = config.logLevel === 'silent' ? log.logger : log.logger.child({}, { level: 'info' });
  startup.info(
    {
      url: base,
      dataDir: config.dataDir,
      home: `${base}/`,
      docs: `${base}/docs`,
      api: `${base}/{owner}/{scraper}/data.{format}?key={key}&query={sql}`,
      metrics: service.metricsUrl,
    },
    `Siphon is serving ${config.dataDir} at ${base}`,
  );
  if (demo) {
    if (demo.replacedWritable) {
      startup.warn('The demo key kept by an earlier version could publish data: it is revoked, and replaced by the read-only key below.');
    }
    // The one key ever logged, on purpose: it can only read the demo's public data, and it is how a newcomer tries the API.
    startup.info(
      {
        page: `${base}/${demoScraper}`,
        demoKey: demo.key,
        curl: `curl '${base}/${demoScraper}/data.json?key=${demo.key}&query=select+title%2C+date+from+%22data%22+limit+3'`,
      },
      'Demo scraper and its read-only key, for trying Siphon locally',
    );
  }

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
