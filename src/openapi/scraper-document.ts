import type { Config } from '../config.js';
import { quoteIdentifier } from '../shared/sql-names.js';
import type { SavedQuery, Scraper, TableInfo } from '../store/types.js';
import { tablePath } from '../views/table-paths.js';
import { rowSchema } from './column-schema.js';
import { dataPaths, type Scope } from './data-operations.js';
import { documentHead, scraperDocumentPath, type OpenApiDocument } from './document.js';
import { savedQueryPaths } from './saved-query-operations.js';
import { components } from './schemas.js';
import { tablePaths } from './table-operations.js';

/**
 * @module `GET /{owner}/{scraper}/openapi.json`: one scraper's API as OpenAPI 3.1, on its own paths,
 * each table's and view's rows a JSON Schema (column-schema.ts), an example query per table, and its
 * public saved queries' operations. It is made from the data version's description (taken at
 * publish) and the saved queries, so it changes with each version and each saved query's change.
 */

/**
 * Each table's name as a component's name and an operationId's part: only `[A-Za-z0-9_]`, the
 * others made `_`; one already taken (two names alike) has `_` added until it is not.
 */
function slugsOf(tables: readonly TableInfo[]): string[] {
  const taken = new Set<string>();
  return tables.map((table) => {
    let slug = table.name.replace(/[^A-Za-z0-9_]/g, '_');
    while (taken.has(slug)) slug += '_';
    taken.add(slug);
    return slug;
  });
}

/** `queries`: those of its saved queries it documents, the public ones (private ones are their owner's, never in a document). */
export function scraperDocument(
  config: Config,
  scraper: Scraper,
  queries: readonly SavedQuery[],
  origin: string | undefined,
): OpenApiDocument {
  const owner = scraper.owner.name;
  const { tables } = scraper.data;
  const slugs = slugsOf(tables);
  const scope: Scope = {
    prefix: `/${encodeURIComponent(owner)}/${encodeURIComponent(scraper.name)}`,
    params: [],
    queryExamples: Object.fromEntries(
      tables.map((t, i) => [
        slugs[i]!,
        {
          summary: `Ten rows of ${t.kind === 'view' ? 'the view' : 'the table'} ${t.name}`,
          value: `select * from ${quoteIdentifier(t.name)} limit 10`,
        },
      ]),
    ),
  };
  const saved = savedQueryPaths(scope, config, queries);
  const paths: Record<string, unknown> = { ...dataPaths(scope, config), ...saved.paths, ...scraperDocumentPath(scope) };
  tables.forEach((table, i) => {
    Object.assign(
      paths,
      tablePaths(scope, {
        // The table's path after `/tables/`, as the table pages write it.
        segment: tablePath(owner, scraper.name, table.name).slice(`${scope.prefix}/tables/`.length),
        params: [],
        id: `_${slugs[i]!}`,
        label: `${table.kind === 'view' ? 'the view' : 'the table'} ${table.name}`,
        row: { $ref: `#/components/schemas/Row_${slugs[i]!}` },
        hasRows: table.kind !== 'view',
        columnNames: table.columns.map((c) => c.name),
      }),
    );
  });
  const rows = Object.fromEntries(tables.map((t, i) => [`Row_${slugs[i]!}`, rowSchema(t.name, t.columns)]));
  return {
    ...documentHead(
      `${owner}/${scraper.name}`,
      `${scraper.description ? `${scraper.description}\n\n` : ''}The data of ${owner}/${scraper.name}, data version ${scraper.data.version} (changed ${scraper.data.updatedAt}), on Siphon: [/docs](/docs).`,
      origin,
    ),
    security: [{ apiKeyHeader: [] }, { bearer: [] }, { keyParam: [] }],
    paths,
    components: components(rows, saved.components),
  };
}
