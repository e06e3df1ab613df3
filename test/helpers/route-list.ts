import type { FastifyInstance } from 'fastify';

/**
 * Every route a Fastify server has, as `METHOD /path` (`:name` parameters as they were registered),
 * read from `printRoutes`' tree: each line a node whose path adds to its parent's, indented four
 * characters a level, its methods in parentheses.
 */
export function serverRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:[│ ] {3})*)[└├]── (.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + node[2]!;
    parents[depth] = path;
    for (const method of node[3]!.split(', ')) routes.push(`${method} ${path}`);
  }
  return routes;
}
