import type { FastifyInstance } from 'fastify';
import fresh from 'fresh';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const javascript = 'text/javascript; charset=utf-8';

/**
 * The folders of browser modules, compiled by tsc beside this file's compiled code: views/client/
 * (the pages' scripts) and shared/ (what they share with the server). Each module is served at
 * /assets/ and its path under src/ (/assets/views/client/query-builder.js), so the relative imports
 * between them resolve in the browser as they do in the source tree.
 */
const moduleFolders = ['views/client', 'shared'];

/**
 * The pages' own files, read once at start-up. The stylesheet is not TypeScript (tsc does not copy
 * it), so it is served from the source tree, at the repository root above the build folder (dist/
 * or dist-*).
 */
function assetFiles(): Map<string, { url: URL; type: string }> {
  const files = new Map([
    ['site.css', { url: new URL('../../../../src/views/static/site.css', import.meta.url), type: 'text/css; charset=utf-8' }],
  ]);
  for (const folder of moduleFolders) {
    const url = new URL(`../../${folder}/`, import.meta.url);
    for (const name of readdirSync(url).filter((n) => n.endsWith('.js')))
      files.set(`${folder}/${name}`, { url: new URL(name, url), type: javascript });
  }
  return files;
}

/** GET /assets/<file>: revalidated on every use (no-cache + ETag), so a new version shows at once. */
export function assetRoutes(app: FastifyInstance): void {
  for (const [name, { url, type }] of assetFiles()) {
    // Source maps are not served: the sources are in the repository.
    const body = readFileSync(fileURLToPath(url), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    app.get(`/assets/${name}`, async (request, reply) => {
      void reply.headers({ 'content-type': type, 'cache-control': 'no-cache', etag, 'x-content-type-options': 'nosniff' });
      if (fresh(request.headers, { etag })) return reply.code(304).send();
      return reply.send(body);
    });
  }
}
