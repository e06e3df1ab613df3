import type { AccountScraperDownloads, DayCount } from './types.js';

/** The last `days` UTC days, oldest first, ending on the day of `now`, as YYYY-MM-DD. */
export function lastDays(days: number, now: Date): string[] {
  const dayMs = 24 * 60 * 60 * 1000;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * dayMs).toISOString().slice(0, 10));
}

/** Counts by day as one entry for each of `days`, 0 where there is none. */
export function everyDay(days: readonly string[], counts: ReadonlyMap<string, number>): DayCount[] {
  return days.map((day) => ({ day, count: counts.get(day) ?? 0 }));
}

/** One count of an account's downloads of one scraper on one day, as an engine reads it. */
export interface AccountDayRow {
  scraper_id: number;
  owner: string;
  name: string;
  removed: boolean;
  day: string;
  count: number;
}

/** An account's counts per scraper and day, gathered per scraper over `span` (most downloaded first, then by name). */
export function accountDownloadsFrom(rows: readonly AccountDayRow[], span: readonly string[]): AccountScraperDownloads[] {
  const byScraper = new Map<number, { owner: string; name: string; removed: boolean; counts: Map<string, number> }>();
  for (const row of rows) {
    const entry = byScraper.get(row.scraper_id) ?? { owner: row.owner, name: row.name, removed: row.removed, counts: new Map() };
    entry.counts.set(row.day, row.count);
    byScraper.set(row.scraper_id, entry);
  }
  return [...byScraper.values()]
    .map(({ counts, ...scraper }) => ({
      ...scraper,
      total: [...counts.values()].reduce((sum, n) => sum + n, 0),
      perDay: everyDay(span, counts),
    }))
    .sort((a, b) => b.total - a.total || `${a.owner}/${a.name}`.localeCompare(`${b.owner}/${b.name}`));
}
