import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** A scraper's folder: `<data>/scrapers/<owner>/<scraper>`, lower-cased because names are matched case-insensitively. */
export function scraperDir(dataDir: string, owner: string, name: string): string {
  return path.join(dataDir, 'scrapers', owner.toLowerCase(), name.toLowerCase());
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

/** Every scraper folder on disk, with the owner and scraper names it is for. */
export async function listScraperDirs(dataDir: string): Promise<{ owner: string; name: string; dir: string }[]> {
  const found: { owner: string; name: string; dir: string }[] = [];
  for (const owner of await subfolders(path.join(dataDir, 'scrapers'))) {
    for (const name of await subfolders(path.join(dataDir, 'scrapers', owner))) {
      found.push({ owner, name, dir: scraperDir(dataDir, owner, name) });
    }
  }
  return found;
}
