import type { FastifyInstance } from 'fastify';
import fresh from 'fresh';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The pages' own files, read once at start-up. The browser modules are compiled by tsc from
 * src/views/client/ and served from beside this file's compiled code; the stylesheet is not
 * TypeScript (tsc does not copy it), so it is served from the source tree, at the repository root
 * above the build folder (dist/ or dist-*).
 */
const files: Record<string, { url: URL; type: string }> = {
  'site.css': { url: new URL('../../../../src/views/static/site.css', import.meta.url), type: 'text/css; charset=utf-8' },
  'query-builder.js': { url: new URL('../../views/client/query-builder.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  'account.js': { url: new URL('../../views/client/account.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
  'api-request.js': { url: new URL('../../views/client/api-request.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
};

/** GET /assets/<file>: revalidated on every use (no-cache + ETag), so a new version shows at once. */
export function assetRoutes(app: FastifyInstance): void {
  for (const [name, { url, type }] of Object.entries(files)) {
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
