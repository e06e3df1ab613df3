/**
 * The formats of a table view's twins for programs (`…/tables/{table}.json`, `.csv`, `…/{rowid}.json`):
 * what their downloads are recorded under, and their rows and bytes counted under in the metrics.
 */
export const twinFormats = ['table.json', 'table.csv', 'row.json'] as const;

export type TwinFormat = (typeof twinFormats)[number];
