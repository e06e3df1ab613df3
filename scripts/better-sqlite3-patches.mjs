/**
 * Changes to better-sqlite3's C++ source, made by build-sqlite.mjs before it builds the module
 * (docs/design.md, Decisions). Each gives Node 20 what better-sqlite3 12.11.1 already does on Node 22
 * and later, in its `NODE_MODULE_VERSION >= 127` branches (which need V8's LocalVector, not in Node
 * 20), and is made on Node 20 only: a row, and the rows of `all()`, made as one array from their
 * values, where the Node 20 branch adds them one element at a time through `Object::Set`, V8's
 * slowest way in (a fifth of a query process's CPU in a json export, measured). The values
 * themselves, their types and their order are made as before.
 *
 * Plain Node, no TypeScript: it runs before the build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Each change: the file, its text in better-sqlite3 12.11.1, and ours. */
export const patches = [
  {
    name: 'raw rows built whole',
    file: 'src/util/data.cpp',
    before: `	v8::Local<v8::Value> GetRawRowJS(v8::Isolate* isolate, v8::Local<v8::Context> ctx, sqlite3_stmt* handle, bool safe_ints) {
		v8::Local<v8::Array> row = v8::Array::New(isolate);
		int column_count = sqlite3_column_count(handle);
		for (int i = 0; i < column_count; ++i) {
			row->Set(ctx, i, Data::GetValueJS(isolate, handle, i, safe_ints)).FromJust();
		}
		return row;
	}`,
    after: `	v8::Local<v8::Value> GetRawRowJS(v8::Isolate* isolate, v8::Local<v8::Context> ctx, sqlite3_stmt* handle, bool safe_ints) {
		// Siphon (scripts/better-sqlite3-patches.mjs): the array made from its values at once.
		int column_count = sqlite3_column_count(handle);
		std::vector<v8::Local<v8::Value>> row;
		row.reserve(column_count);
		for (int i = 0; i < column_count; ++i) {
			row.emplace_back(Data::GetValueJS(isolate, handle, i, safe_ints));
		}
		return v8::Array::New(isolate, row.data(), row.size());
	}`,
  },
  {
    name: 'all() rows built whole',
    file: 'src/objects/statement.cpp',
    before: `	bool js_error = false;
	uint32_t row_count = 0;
	v8::Local<v8::Array> result = v8::Array::New(isolate, 0);

	while (sqlite3_step(handle) == SQLITE_ROW) {
		if (row_count == 0xffffffff) { ThrowRangeError("Array overflow (too many rows returned)"); js_error = true; break; }
		result->Set(ctx, row_count++, Data::GetRowJS(isolate, ctx, handle, safe_ints, mode)).FromJust();
	}

	if (sqlite3_reset(handle) == SQLITE_OK && !js_error) {
		STATEMENT_RETURN(result);
	}`,
    after: `	bool js_error = false;
	// Siphon (scripts/better-sqlite3-patches.mjs): the array made from its rows at once.
	std::vector<v8::Local<v8::Value>> rows;

	while (sqlite3_step(handle) == SQLITE_ROW) {
		if (rows.size() == 0xffffffff) { ThrowRangeError("Array overflow (too many rows returned)"); js_error = true; break; }
		rows.emplace_back(Data::GetRowJS(isolate, ctx, handle, safe_ints, mode));
	}

	if (sqlite3_reset(handle) == SQLITE_OK && !js_error) {
		STATEMENT_RETURN(v8::Array::New(isolate, rows.data(), rows.size()));
	}`,
  },
  {
    name: 'columns() built whole',
    file: 'src/objects/statement.cpp',
    before: `	UseContext;
	int column_count = sqlite3_column_count(stmt->handle);
	v8::Local<v8::Array> columns = v8::Array::New(isolate);

	v8::Local<v8::String> name = addon->cs.name.Get(isolate);
	v8::Local<v8::String> columnName = addon->cs.column.Get(isolate);
	v8::Local<v8::String> tableName = addon->cs.table.Get(isolate);
	v8::Local<v8::String> databaseName = addon->cs.database.Get(isolate);
	v8::Local<v8::String> typeName = addon->cs.type.Get(isolate);

	for (int i = 0; i < column_count; ++i) {
		v8::Local<v8::Object> column = v8::Object::New(isolate);

		column->Set(ctx, name,
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_name(stmt->handle, i), -1)
		).FromJust();
		column->Set(ctx, columnName,
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_origin_name(stmt->handle, i), -1)
		).FromJust();
		column->Set(ctx, tableName,
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_table_name(stmt->handle, i), -1)
		).FromJust();
		column->Set(ctx, databaseName,
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_database_name(stmt->handle, i), -1)
		).FromJust();
		column->Set(ctx, typeName,
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_decltype(stmt->handle, i), -1)
		).FromJust();

		columns->Set(ctx, i, column).FromJust();
	}

	info.GetReturnValue().Set(columns);`,
    after: `	// Siphon (scripts/better-sqlite3-patches.mjs): each column's object made from its five values at
	// once, and the array from the columns, as on Node 22 (objects in dictionary mode, as there).
	v8::Local<v8::Name> keys[] = {
		addon->cs.name.Get(isolate),
		addon->cs.column.Get(isolate),
		addon->cs.table.Get(isolate),
		addon->cs.database.Get(isolate),
		addon->cs.type.Get(isolate),
	};
	v8::Local<v8::Value> prototype = GET_PROTOTYPE(v8::Object::New(isolate));

	int column_count = sqlite3_column_count(stmt->handle);
	std::vector<v8::Local<v8::Value>> columns;
	columns.reserve(column_count);

	for (int i = 0; i < column_count; ++i) {
		v8::Local<v8::Value> values[] = {
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_name(stmt->handle, i), -1),
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_origin_name(stmt->handle, i), -1),
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_table_name(stmt->handle, i), -1),
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_database_name(stmt->handle, i), -1),
			InternalizedFromUtf8OrNull(isolate, sqlite3_column_decltype(stmt->handle, i), -1),
		};
		columns.emplace_back(v8::Object::New(isolate, prototype, keys, values, 5));
	}

	info.GetReturnValue().Set(v8::Array::New(isolate, columns.data(), columns.size()));`,
  },
];

/** Node 22's NODE_MODULE_VERSION: from it on, better-sqlite3 makes rows whole itself. */
const wholeRowsFrom = 127;

/** The changes the running Node needs: all of them on Node 20, none on Node 22 and later. */
export const neededPatches = Number(process.versions.modules) < wholeRowsFrom ? patches : [];

/**
 * Makes every change (by default, those the running Node needs) not made yet. Throws, naming it, when a file holds neither its text nor ours:
 * a better-sqlite3 other than the one these were written against.
 */
export function applyPatches(moduleDir, changes = neededPatches) {
  for (const p of changes) {
    const file = path.join(moduleDir, p.file);
    const source = readFileSync(file, 'utf8');
    if (source.includes(p.after)) continue;
    if (!source.includes(p.before)) {
      throw new Error(
        `better-sqlite3's ${p.file} no longer holds the code of "${p.name}": check scripts/better-sqlite3-patches.mjs against it ` +
          '(or, if an earlier version of these changes made it, install better-sqlite3 afresh: npm ci)',
      );
    }
    writeFileSync(
      file,
      source.replace(p.before, () => p.after),
    );
  }
}
