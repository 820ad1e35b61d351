// The OpenAPI document is generated from the route schemas: it must be valid OpenAPI 3.1 and name every
// route the app serves (but swagger-ui's own asset routes).
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

it('is valid OpenAPI 3.1', async () => {
  const res = await svc.app.inject({ url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(doc.openapi).toMatch(/^3\.1\./);
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

it('lists every route that exists', async () => {
  const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json();
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
    for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  const missing: string[] = [];
  for (const route of svc.app.routeTable) {
    // swagger-ui's and the dashboard's static assets are files, not API routes
    if (/^\/(docs|dashboard)(\/|$)|^\/$|^\/favicon\.ico$/.test(route.url)) continue;
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    for (const method of route.methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      if (!documented.has(`${method} ${path}`)) missing.push(`${method} ${path}`);
    }
  }
  expect(missing).toEqual([]);
});

it('serves a reference page at /docs', async () => {
  const res = await svc.app.inject({ url: '/docs/' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
});
