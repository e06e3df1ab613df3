/**
 * Facets: a column's most frequent values in the view's rows, with their counts; and the columns
 * worth faceting, judged on a sample. All of a page's facets share one time budget: a facet not done
 * when it runs out says so (`timedOut`), the page is not failed, and the facet goes on in the
 * background to be ready for the next visitor (facet-runs.ts). What finished is cached by data
 * version and selection (results-cache.ts).
 */
import { cellText } from './cells.js';
import { sampleStatement } from './compile.js';
import { facetRows, type FacetRows } from './facet-runs.js';
import { cachedResult, keepResult, resultKey } from './results-cache.js';
import { runStatement, type ViewRun } from './run.js';
import type { FacetResult, TableView } from './types.js';

export const facetBudgetMs = 500;
/** Rows of the view the suggestions are judged on, and the columns judged at most. */
const sampleRows = 1000;
const maxSuggestedColumns = 50;
/** A column is suggested with 2 to `facetSize` distinct values, none longer than this. */
const maxSuggestedChars = 200;

function facetResult(view: TableView, column: string, kept: FacetRows): FacetResult {
  const exact = new Set(view.filters.filter((f) => f.column === column && f.op === 'exact').map((f) => f.value));
  const nullSelected = view.filters.some((f) => f.column === column && f.op === 'isnull');
  return {
    values: kept.values.map(({ value, count }) => ({
      value,
      count,
      selected: value.kind === 'null' ? nullSelected : value.cut !== true && exact.has(value.text),
    })),
    truncated: kept.truncated,
    timedOut: false,
  };
}

export interface Facets {
  facets: Record<string, FacetResult>;
  suggested: string[];
}

export async function viewFacets(run: ViewRun): Promise<Facets> {
  const { view } = run;
  const deadline = performance.now() + facetBudgetMs;
  const facets: Record<string, FacetResult> = {};
  for (const column of view.facets) {
    const kept = await facetRows(run, column, deadline);
    facets[column] = kept ? facetResult(view, column, kept) : { values: [], truncated: false, timedOut: true };
  }
  return { facets, suggested: await suggestedFacets(run, deadline) };
}

/**
 * Columns with a few distinct values (2 to the facet size, short ones) in the view's first rows,
 * other than those faceted or filtered to one value already; none if the budget ran out first.
 */
async function suggestedFacets({ pool, scraper, table, view, laneKey, signal }: ViewRun, deadline: number): Promise<string[]> {
  const columns = table.columns.map((c) => c.name).slice(0, maxSuggestedColumns);
  const key = resultKey(scraper, table.name, view, `suggest ${view.facetSize}`);
  let judged = cachedResult<string[]>(key);
  if (!judged && performance.now() < deadline) {
    const names = [...columns.flatMap((_, i) => [`d${i}`, `l${i}`]), 'n'];
    const rows = await runStatement(pool, scraper, sampleStatement(table, view, columns, sampleRows), names, laneKey, { signal, deadline });
    if (rows !== undefined) {
      const [stats] = rows;
      const number = (i: number) => Number(cellText(stats![i]!) ?? 0);
      const sampled = number(names.length - 1);
      judged = columns.filter((_, i) => {
        const distinct = number(2 * i);
        return distinct >= 2 && distinct <= view.facetSize && distinct < sampled && number(2 * i + 1) <= maxSuggestedChars;
      });
      keepResult(key, judged);
    }
  }
  const chosen = new Set([...view.facets, ...view.filters.filter((f) => f.op === 'exact').map((f) => f.column)]);
  return (judged ?? []).filter((c) => !chosen.has(c));
}
