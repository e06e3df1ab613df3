/**
 * Unit tests of the checks made on the SQL text before it reaches SQLite. They matter because
 * preparing a PRAGMA already applies it (notes, section 2): only what these let through is prepared.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SiphonError } from '../src/errors.js';
import { allowedPragmaFunctions, checkSql, firstKeyword, refusedPragmaFunction } from '../src/sql/check-sql.js';
import { asciiLower } from '../src/shared/sql-names.js';
import { sqlTokens } from '../src/sql/tokens.js';
import { pragmaDatabaseListOddities, pragmaDatabaseListSpellings } from './helpers/pragma-spellings.js';

const max = 1000;

/** Asserts that checkSql refuses `sql` with the given code and a 400, and returns the error. */
function refused(sql: string | undefined, code: string, maxChars = max): SiphonError {
  let caught: unknown;
  try {
    checkSql(sql, maxChars);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof SiphonError, `expected a SiphonError for ${JSON.stringify(sql)}, got ${String(caught)}`);
  assert.equal(caught.code, code, `code for ${JSON.stringify(sql)}`);
  assert.equal(caught.status, 400);
  return caught;
}

describe('checkSql', () => {
  test('a missing, empty or whitespace-only query is refused as missing', () => {
    for (const sql of [undefined, '', ' ', '\n\t \r\n']) refused(sql, 'SIPHON_ERR_QUERY_MISSING');
  });

  test('a query longer than the limit is refused as too long, naming the limit', () => {
    const err = refused('select 1234', 'SIPHON_ERR_QUERY_TOO_LONG', 10);
    assert.match(err.message, /\b10 characters/);
    // Length wins over the other checks: a long query is not inspected further.
    refused(`pragma x${'\0'.repeat(20)}`, 'SIPHON_ERR_QUERY_TOO_LONG', 10);
  });

  test('a query exactly as long as the limit is accepted', () => {
    assert.equal(checkSql('select 1', 8), 'select 1');
  });

  test('a NUL anywhere is refused, because SQLite would silently ignore what follows it', () => {
    for (const sql of ["select 1\0; attach '/x' as y", '\0select 1', 'select 1\0', "select 'a\0b'"]) {
      refused(sql, 'SIPHON_ERR_QUERY_NUL');
    }
  });

  test('statements that are not SELECT, WITH or VALUES are refused, naming the first word', () => {
    const cases: [string, string][] = [
      ['pragma hard_heap_limit=1', 'pragma'],
      ['PRAGMA table_info(data)', 'pragma'],
      ['  -- c\n /* d */ PrAgMa busy_timeout=1', 'pragma'],
      ["attach '/tmp/x.db' as x", 'attach'],
      ['detach x', 'detach'],
      ["vacuum into '/tmp/v.db'", 'vacuum'],
      ['explain select 1', 'explain'],
      ['EXPLAIN QUERY PLAN select 1', 'explain'],
      ['begin', 'begin'],
      ['savepoint a', 'savepoint'],
      ['reindex', 'reindex'],
      ['analyze', 'analyze'],
      ['create temp table t(x)', 'create'],
      ["insert into data values ('x')", 'insert'],
      ['replace into data values (1)', 'replace'],
      ["update data set title = 'x'", 'update'],
      ['delete from data returning *', 'delete'],
      ['drop table data', 'drop'],
      ['alter table data add column y', 'alter'],
      ['selectx 1', 'selectx'],
    ];
    for (const [sql, word] of cases) {
      const err = refused(sql, 'SIPHON_ERR_QUERY_NOT_READ');
      assert.ok(err.message.includes(`not one starting with ${JSON.stringify(word)}`), `${sql}: ${err.message}`);
    }
  });

  test('a query with no keyword at all (only comments, or punctuation first) is refused as not a read', () => {
    for (const sql of ['-- only a comment', '/* unterminated select 1', '(select 1)', '"select" 1', '; select 1']) {
      const err = refused(sql, 'SIPHON_ERR_QUERY_NOT_READ');
      // With no word there is nothing to quote back.
      assert.doesNotMatch(err.message, /starting with/, sql);
    }
  });

  test('the word quoted back in the error is cut to 30 characters', () => {
    const err = refused(`${'a'.repeat(50)} 1`, 'SIPHON_ERR_QUERY_NOT_READ');
    assert.ok(err.message.includes(JSON.stringify('a'.repeat(30))));
    assert.ok(!err.message.includes('a'.repeat(31)));
  });

  test('SELECT, WITH and VALUES in any case, after comments, are accepted and returned unchanged', () => {
    const accepted = [
      'select 1',
      'SELECT * FROM data',
      'SeLeCt 1',
      'with x as (select 1) select * from x',
      'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c',
      'values (1, 2), (3, 4)',
      'VALUES (1)',
      '-- hi\nselect 1',
      '/* x */ select 1',
      "select 'pragma table_info' as p",
      'select 1; -- trailing',
      '\n\t select 1',
    ];
    for (const sql of accepted) assert.equal(checkSql(sql, max), sql);
  });
});

describe('pragma functions', () => {
  test('pragma_database_list is found in every spelling SQLite reads', () => {
    for (const sql of [...pragmaDatabaseListSpellings, ...pragmaDatabaseListOddities]) {
      assert.ok(refusedPragmaFunction(sql)?.toLowerCase().endsWith('pragma_database_list'), JSON.stringify(sql));
      const err = refused(sql, 'SIPHON_ERR_QUERY_PRAGMA');
      assert.match(err.message, /^"pragma_database_list" cannot be used/i, sql);
      assert.ok(err.message.includes(allowedPragmaFunctions.join(', ')), err.message);
    }
  });

  test('the other pragma functions that show the server or its set-up are refused too', () => {
    for (const name of [
      'pragma_compile_options',
      'pragma_function_list',
      'pragma_module_list',
      'pragma_pragma_list',
      'pragma_cache_size',
      'pragma_hard_heap_limit',
      'pragma_temp_store',
      'pragma_temp_store_directory',
      'pragma_journal_mode',
      'pragma_data_version',
      'pragma_collation_list',
      'pragma_some_future_pragma',
    ]) {
      assert.equal(refusedPragmaFunction(`select * from ${name}`), name);
      refused(`select * from ${name}`, 'SIPHON_ERR_QUERY_PRAGMA');
    }
  });

  test('a quoted name is unquoted before it is looked at', () => {
    assert.equal(refusedPragmaFunction('select * from "pragma_""x"'), 'pragma_"x');
    assert.equal(refusedPragmaFunction('select * from `pragma_``x`'), 'pragma_`x');
    assert.equal(refusedPragmaFunction("select 'pragma_''x'"), "pragma_'x");
    // [...] has no escapes: it ends at the first ].
    assert.equal(refusedPragmaFunction('select * from [pragma_x]]'), 'pragma_x');
  });

  test('the pragma functions that describe the tables are allowed in every spelling', () => {
    for (const sql of [
      "select * from pragma_table_info('data')",
      "select * from PRAGMA_TABLE_XINFO('data')",
      'select * from "pragma_table_list"',
      "select * from main.[pragma_index_list]('data')",
      "select * from `pragma_index_info`('i')",
      "select * from pragma_index_xinfo('i')",
      "select * from pragma_foreign_key_list('data')",
      "select p.name from sqlite_schema s join pragma_table_info(s.name) p where s.type = 'table'",
    ]) {
      assert.equal(refusedPragmaFunction(sql), undefined, sql);
      assert.equal(checkSql(sql, max), sql);
    }
  });

  test('pragma_ in a comment, inside a word, or after "pragma " is no pragma function', () => {
    for (const sql of [
      'select 1 -- from pragma_database_list',
      'select 1 /* pragma_database_list */',
      "select 'pragma database_list' as p",
      'select mypragma_database_list from data',
      'select $pragma_database_list', // a parameter
    ]) {
      assert.equal(refusedPragmaFunction(sql), undefined, sql);
    }
  });

  test('SQL without pragma_ in one piece, which skips the tokens, is judged as the tokens judge it', () => {
    // The check's shortcut: no token can start with pragma_ unless the text holds it whole, whatever
    // the quoting splits or doubles. Held to the token scan itself over 20,000 texts made of pieces.
    const pieces = [
      'pragma_',
      'PrAgMa_',
      'prag',
      'MA_',
      'ma',
      '_',
      '"',
      '""',
      '`',
      '``',
      "'",
      "''",
      '[',
      ']',
      ' ',
      '--',
      '\n',
      '/*',
      '*/',
      'x',
      'table_info',
      'database_list',
      '.',
      '(',
      'K',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const byTokens = (sql: string) => {
      for (const token of sqlTokens(sql)) {
        const name = asciiLower(token.text);
        if (token.kind !== 'other' && name.startsWith('pragma_') && !allowedPragmaFunctions.includes(name)) return token.text;
      }
      return undefined;
    };
    let refusedCount = 0;
    for (let i = 0; i < 20_000; i++) {
      let sql = 'select ';
      for (let n = next() % 12; n >= 0; n--) sql += pieces[next() % pieces.length];
      const expected = byTokens(sql);
      if (expected !== undefined) refusedCount += 1;
      assert.equal(refusedPragmaFunction(sql), expected, JSON.stringify(sql));
    }
    assert.ok(refusedCount > 1000, `only ${refusedCount} texts named a pragma function`);
  });

  test('the name quoted back is cut to 40 characters', () => {
    const err = refused(`select * from pragma_${'x'.repeat(100)}`, 'SIPHON_ERR_QUERY_PRAGMA');
    assert.ok(err.message.startsWith(`"pragma_${'x'.repeat(33)}" cannot`), err.message);
  });
});

describe('firstKeyword', () => {
  test('returns the first word lower-cased, whatever its case', () => {
    assert.equal(firstKeyword('select 1'), 'select');
    assert.equal(firstKeyword('SELECT 1'), 'select');
    assert.equal(firstKeyword('PrAgMa x'), 'pragma');
    assert.equal(firstKeyword('select*from t'), 'select');
    assert.equal(firstKeyword('pragma(x)'), 'pragma');
  });

  test('skips leading whitespace of every kind SQLite skips', () => {
    assert.equal(firstKeyword(' \t\n\r\fpragma x'), 'pragma');
  });

  test('skips line comments, which end only at a newline', () => {
    assert.equal(firstKeyword('-- c\nselect 1'), 'select');
    assert.equal(firstKeyword('--\n--\n  pragma x'), 'pragma');
    // SQLite ends a -- comment only at \n, so after a lone \r everything is still comment.
    assert.equal(firstKeyword('-- c\rpragma x'), '');
    assert.equal(firstKeyword('-- pragma x'), '');
  });

  test('skips block comments, which do not nest', () => {
    assert.equal(firstKeyword('/* c */select 1'), 'select');
    assert.equal(firstKeyword('/**/values (1)'), 'values');
    assert.equal(firstKeyword('/* a */ -- b\n /* c */ with x as (select 1) select 1'), 'with');
    // SQLite's comment ends at the first */, so this is a pragma behind a comment.
    assert.equal(firstKeyword('/* /* */ pragma x */'), 'pragma');
    // The * that opens a comment does not also close it.
    assert.equal(firstKeyword('/*/ pragma */ select 1'), 'select');
  });

  test('an unterminated block comment hides everything after it', () => {
    assert.equal(firstKeyword('/* pragma x'), '');
    assert.equal(firstKeyword('/*'), '');
  });

  test('returns an empty string when there is no word first', () => {
    for (const sql of ['', '   ', '1', '(select 1)', '"select"', '- - select', '/ * select', ';select 1']) {
      assert.equal(firstKeyword(sql), '', JSON.stringify(sql));
    }
  });
});
