import type { Config } from '../config.js';
import type { Store } from '../store/types.js';
import { Catalog } from './catalog.js';
import { importerWithLimits } from './import-process.js';

/** The catalog the server and the CLI use: imports run in a process of their own, under the configured limits. */
export function catalogWithImportLimits(
  store: Store,
  config: Pick<
    Config,
    'dataDir' | 'importTimeoutMs' | 'queryMemoryMb' | 'diskReserveBytes' | 'keepVersions' | 'keepDays' | 'maxKeepVersions'
  >,
): Catalog {
  const limits = {
    timeoutMs: config.importTimeoutMs,
    memoryMb: config.queryMemoryMb,
    diskReserveBytes: config.diskReserveBytes,
    dataDir: config.dataDir,
  };
  return new Catalog(store, config.dataDir, importerWithLimits(limits), config);
}
