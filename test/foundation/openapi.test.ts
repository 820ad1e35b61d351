// The OpenAPI document is generated from the route schemas: it must be valid OpenAPI 3.1 and name every
// route the app serves (but the reference page's own asset routes).
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
    // the reference page's and the dashboard's static assets are files, not API routes
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

it('names, summarises, tags and secures every operation from its route, with named schemas', async () => {
  const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json();
  const seen = new Map<string, string>();
  const problems: string[] = [];
  const tags = new Set((doc.tags as { name: string }[]).map((t) => t.name));
  for (const [path, item] of Object.entries(
    doc.paths as Record<string, Record<string, Record<string, unknown>>>,
  )) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      // what generated clients name their methods: camelCase, one per operation
      if (typeof op.operationId !== 'string' || !/^[a-z][A-Za-z]+$/.test(op.operationId))
        problems.push(`${key}: operationId ${String(op.operationId)}`);
      if (typeof op.summary !== 'string' || op.summary === '') problems.push(`${key}: no summary`);
      const opTags = op.tags as string[] | undefined;
      if (opTags?.length !== 1 || !tags.has(opTags[0]!))
        problems.push(`${key}: tags ${JSON.stringify(opTags)}, not one of the document's`);
      if (typeof op.operationId === 'string') {
        if (seen.has(op.operationId))
          problems.push(`${key}: operationId also used by ${seen.get(op.operationId)}`);
        seen.set(op.operationId, key);
      }
      if (!Array.isArray(op.security)) problems.push(`${key}: no security`);
      const responses = op.responses as Record<string, { description: string }>;
      if (!Object.keys(responses).some((s) => s.startsWith('4'))) problems.push(`${key}: no 4xx answer`);
      if (Object.values(responses).some((r) => r.description === 'Default Response'))
        problems.push(`${key}: an answer without a description`);
    }
  }
  expect(problems).toEqual([]);
  const schemas = Object.keys(doc.components.schemas as object);
  for (const name of ['OAuthApp', 'KeyPair', 'Webhook', 'Delivery', 'Attempt', 'AuditEntry', 'Event', 'Cart'])
    expect(schemas).toContain(name);
  expect(doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum).toContain('not_found');
  expect(Object.keys(doc.components.securitySchemes as object).sort()).toEqual(
    [
      'clientSecretBasic',
      'internalToken',
      'merchantCookie',
      'merchantSession',
      'oauth2',
      'publicBearer',
    ].sort(),
  );
  // A POST that takes no body does not force one on clients.
  const enable = doc.paths['/api/v1/merchant/webhooks/{webhookID}/enable'].post;
  expect(enable.requestBody.required).toBe(false);
});
