/**
 * The service's OpenAPI document (src/openapi/document.ts): valid by a maintained OpenAPI 3.1
 * validator, its operations the same set as the server's API routes, every error code and the three
 * ways to send a key in it. In process: no request here runs a query.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp, type TestApp } from './helpers/app.js';
import { serverRoutes } from './helpers/route-list.js';

type Doc = { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };

let service: TestApp;
before(async () => {
  service = await buildApp();
});
after(() => service.close());

async function getDoc(path: string): Promise<Doc> {
  const res = await service.app.inject(path);
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /^application\/json/);
  return res.json<Doc>();
}

describe('validity', () => {
  test('/openapi.json is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator', async () => {
    const doc = await getDoc('/openapi.json');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal((doc as unknown as { openapi: string }).openapi, '3.1.0');
  });

  test('the validator refuses a document broken by hand (it can fail)', async () => {
    const doc = await getDoc('/openapi.json');
    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    delete broken.info;
    assert.equal((await new Validator().validate(broken as Parameters<Validator['validate']>[0])).valid, false);
  });
});

describe("the service's document and its routes", () => {
  /** The pages for people and their forms, which are no part of the HTTP API (docs/pages.md); anything else must be documented. */
  const pages = [
    '/',
    '/:owner',
    '/:owner/:scraper',
    '/:owner/:scraper/tables/:table',
    '/:owner/:scraper/tables/:table/:rowid',
    '/:owner/:scraper/queries/:name',
    '/docs',
    '/documentation/api',
    '/signup',
    '/login',
    '/logout',
    '/account',
    '/account/keys',
    '/account/keys/revoke',
    '/account/password',
    '/account/builder-key',
    '/:owner/:scraper/settings',
    '/:owner/:scraper/publish',
    '/:owner/:scraper/keep',
    // The owner's forms for saved queries.
    '/:owner/:scraper/queries',
    '/:owner/:scraper/queries/:name/edit',
    '/:owner/:scraper/queries/:name/delete',
    // The pages' download buttons: a signed-in visitor's, from this site's own pages only.
    '/:owner/:scraper/download.sqlite',
    '/:owner/:scraper/download/:table.:format',
    '/:owner/:scraper/download/queries/:name.:format',
  ];
  /** HEAD follows every GET; OPTIONS is the CORS preflight; `data` without an extension only names the formats in its 404. */
  const notOperations = (route: string) =>
    /^(HEAD|OPTIONS) /.test(route) || route.includes('/assets/') || route.endsWith('/data') || pages.includes(route.split(' ')[1]!);

  test('every documented operation is a route, and every API route is documented', async () => {
    const routes = serverRoutes(service.app).filter((r) => !notOperations(r));
    const doc = await getDoc('/openapi.json');
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => methods.includes(m))
        .map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    assert.deepEqual([...documented].sort(), [...routes].sort());
    // The list of pages is the server's too: none is stale.
    const all = serverRoutes(service.app).map((r) => r.split(' ')[1]);
    for (const page of pages) assert.ok(all.includes(page), page);
  });

  test('every SIPHON_ERR_* code is a response, the three ways to send a key are security schemes, and docs/api.md gives the descriptions', async () => {
    const doc = await getDoc('/openapi.json');
    const { errorReference } = await import('../src/views/error-reference.js');
    const components = doc.components as unknown as {
      responses: Record<string, unknown>;
      securitySchemes: Record<string, { in?: string; name?: string; scheme?: string }>;
    };
    assert.deepEqual(Object.keys(components.responses).sort(), [...new Set(errorReference.map((e) => e.code))].sort());
    assert.deepEqual(
      Object.values(components.securitySchemes).map((s) => s.name ?? s.scheme),
      ['X-API-Key', 'bearer', 'key'],
    );
    const get = doc.paths['/{owner}/{scraper}/data.{format}']!.get as { parameters: { name: string; description: string }[] };
    assert.deepEqual(
      get.parameters.map((p) => p.name),
      ['query', 'version', 'dl', 'page_size', 'next', 'callback', 'excel', ':named'],
    );
    for (const p of get.parameters) assert.ok(p.description.length > 20, p.name);
  });
});
