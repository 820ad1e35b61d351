// The OpenAPI document describes the integrator journeys: the authorize parameters the server requires are
// required, the token response names the installation, GET /stores is listed, and the guides are named.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
}
let doc: {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties: Record<string, unknown> }> };
};
beforeAll(async () => {
  svc = await startTestService();
  doc = (await svc.app.inject({ url: '/api/openapi.json' })).json();
});
afterAll(async () => svc?.close());

it('marks the authorize parameters the server requires as required', () => {
  const params = doc.paths['/api/public/v1/oauth/authorize']!.get!.parameters!;
  const required = params.filter((p) => p.in === 'query' && p.required).map((p) => p.name);
  expect(required.sort()).toEqual(
    ['client_id', 'code_challenge', 'code_challenge_method', 'redirect_uri', 'response_type'].sort(),
  );
});

it('still answers a missing parameter in RFC form, not with a validation envelope', async () => {
  const res = await svc.app.inject({ url: '/api/public/v1/oauth/authorize' });
  expect(res.statusCode).toBe(400);
  expect(res.headers['content-type']).toMatch(/text\/html/);
});

it('documents GET /stores, the installation fields of the token response and the guides', () => {
  expect(doc.paths['/api/public/v1/stores']?.get).toBeDefined();
  const token = doc.paths['/api/public/v1/oauth/token']!.post!;
  const answer = token.responses['200']!.content['application/json']!.schema;
  expect(answer).toEqual({ $ref: '#/components/schemas/TokenResponse' });
  const fields = Object.keys(doc.components.schemas.TokenResponse!.properties);
  for (const field of ['merchant_id', 'store_id', 'mode']) expect(fields).toContain(field);
  for (const guide of ['quickstart.md', 'oauth-apps.md', 'api-keys.md'])
    expect(doc.info.description).toContain(guide);
});
