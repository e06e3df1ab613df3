import { allowedPragmaFunctions } from '../../sql/check-sql.js';
import { defaults } from '../../config.js';
import type { queryErrors } from '../../errors/query.js';
import type { ErrorDocs } from './types.js';

/** How docs/api.md explains each error of src/errors/query.ts. */
export const queryErrorDocs: ErrorDocs<typeof queryErrors> = {
  queryMissing: { example: [], area: 'query', when: '`query` missing or blank' },
  queryTooLong: {
    example: [defaults.maxQueryChars],
    area: 'query',
    when: 'the SQL is longer than the SQL length limit (`--max-query-chars`)',
  },
  queryNul: { example: [], area: 'query', when: 'the SQL contains a NUL character' },
  queryNotRead: {
    example: ['delete'],
    area: 'query',
    when: 'not one read-only `SELECT` / `WITH` / `VALUES` statement (PRAGMA, ATTACH, EXPLAIN, writes, `VACUUM INTO`, CREATE TEMP…)',
  },
  queryPragma: {
    example: ['pragma_database_list', allowedPragmaFunctions],
    area: 'query',
    when: 'the SQL names a pragma function other than those that describe the tables (`pragma_database_list`, `pragma_compile_options`…), or any other name starting with `pragma_`; the message lists the allowed ones',
  },
  paramMissing: {
    example: [['town']],
    area: 'query',
    when: 'the SQL uses a `:named` parameter the request gives no value for (see [Named parameters](#named-parameters))',
  },
  paramUnused: {
    example: [['twon'], ['town']],
    area: 'query',
    when: 'the request gives a `:named` value the SQL does not use (a misspelt name), or any to `data.sqlite`',
  },
  paramsTooMany: {
    example: [100],
    area: 'query',
    when: "the request gives more than 100 `:named` values, or a saved query's SQL names more than 100",
  },
  paramsTooLong: {
    example: [100000],
    area: 'query',
    when: 'the SQL and its `:named` values together are longer than the SQL length limit (`--max-query-chars`)',
  },
  sql: {
    example: ['no such table: dta'],
    area: 'query',
    when: 'SQLite refused or failed the query; the message is SQLite\'s own (`near "selec": syntax error`, `no such table: foo`, `The supplied SQL string contains more than one statement`)',
  },
  queryTimeout: { example: [10], area: 'query', when: 'the query ran past the time limit and was stopped; the message names the limit' },
  queryProcessDied: {
    example: [],
    area: 'query',
    when: 'the query needed more memory than a query process may have, or a temporary file larger than `--query-temp-mb`, or its process died',
  },
  queryTempDisk: {
    example: [defaults.queryTempMb],
    area: 'query',
    when: "the query's temporary files together (several sorts, groupings, `DISTINCT`s, `UNION`s) took more than `--query-temp-mb`; it is stopped while it runs",
  },
  queryDiskReserve: {
    example: [],
    area: 'query',
    when: "the query's temporary files reached the free space the server keeps on the data disk (`--disk-reserve-mb`); it is stopped while it runs",
  },
  callbackInvalid: { example: [], area: 'query', when: '`callback` is not a valid name (the name is not echoed back)' },
  downloadInvalid: { example: [], area: 'query', when: '`dl` is not `1` or `0`' },
  excelInvalid: { example: [], area: 'query', when: '`excel` on `data.csv` or a `.csv` table twin is not `1` or `0`' },
  pageSizeInvalid: { example: [100000], area: 'query', when: '`page_size` is not a whole number from 1 to 100,000' },
  atomColumns: {
    example: [['link', 'date']],
    area: 'query',
    when: '`data.atom` with a query that does not return a `title`, `content`, `link` or `date` column; the message names the missing ones',
  },
};
