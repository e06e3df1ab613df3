/**
 * Every way SQLite accepts to name a table, for pragma_database_list (which shows the data file's
 * path): what the SQL check must find, and what the server must refuse. Past the check, each of
 * these shows the path (no-server-details.test.ts runs them so).
 */
export const pragmaDatabaseListSpellings: readonly string[] = [
  'select * from pragma_database_list',
  'SELECT * FROM PRAGMA_DATABASE_LIST',
  'select * from Pragma_Database_List as p',
  'select * from "pragma_database_list"',
  'select * from [pragma_database_list]',
  'select * from `pragma_database_list`',
  "select * from 'pragma_database_list'", // a string where only a name fits is a name to SQLite
  'select * from main.pragma_database_list',
  'select * from "main"."pragma_database_list"',
  'select * from TEMP . /* c */ pragma_database_list',
  'select * from main.[PRAGMA_database_list]',
  'select * from/**/pragma_database_list',
  'select * from -- c\npragma_database_list',
  'select file from pragma_database_list()',
  'select * from\tpragma_database_list',
  'select * from \uFEFFpragma_database_list', // SQLite skips a byte-order mark as it skips spaces
  'select (select file from pragma_database_list limit 1) as f',
  'with x as (select * from pragma_database_list) select * from x',
  'select * from data join pragma_database_list',
];

/** Not a way to read it, but still a name pragma_database_list that the check must find. */
export const pragmaDatabaseListOddities: readonly string[] = [
  'select ?1pragma_database_list', // SQLite ends ?1 at its digits: the name that follows is one of its own (an alias here)
  'select * from "pragma_database_list', // unterminated: SQLite refuses it
];
