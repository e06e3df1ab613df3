import path from 'node:path';

/**
 * Data files are kept in the store relative to the data folder, so that the folder can move (or be
 * mounted elsewhere on each node) without touching the store. A file outside it stays absolute.
 */
export function storedDataPath(dataDir: string, file: string): string {
  const relative = path.relative(dataDir, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** The absolute path of a file as kept by `storedDataPath`: the store's interface gives absolute paths. */
export function absoluteDataPath(dataDir: string, stored: string): string {
  return path.resolve(dataDir, stored);
}
