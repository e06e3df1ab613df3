/** The queries the bench and the profiler send, and the wrk load of small queries. */
import { fixtureRows, fixtureTable } from './fixture.js';
import { dataPath } from './servers.js';
import type { LoadSpec } from './wrk.js';

export const exportSql = `select * from ${fixtureTable}`;
export const smallSql = `select * from ${fixtureTable} where id > {id} limit 10`;
/** The rows of a small query's json body each have one `"id":`. */
export const rowMarker = '"id":';
export const connections = 32;
export const wrkThreads = 2;

/** The small query's path for wrk, with `{id}` and `{key}` left for each request to fill in. */
export const smallQueryPath = dataPath('bench/big', 'json', '{key}', smallSql)
  .replace(/%7Bid%7D/g, '{id}')
  .replace(/%7Bkey%7D/g, '{key}');

/** Small queries from `connections` connections, a random N and the connection's thread's next key per request, each answer checked. */
export function smallQueryLoad(base: string, keys: string[], seconds: number, over: Partial<LoadSpec> = {}): LoadSpec {
  return {
    base,
    pathTemplate: smallQueryPath,
    maxId: fixtureRows - 10,
    keys: keys.map(encodeURIComponent),
    expectStatus: 200,
    expectRows: 10,
    rowMarker,
    connections,
    threads: wrkThreads,
    seconds,
    ...over,
  };
}
