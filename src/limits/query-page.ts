/** The most rows a page of a query (`page_size`, src/http/query-pages.ts) may hold. */
export const maxQueryPageRows = 100_000;
