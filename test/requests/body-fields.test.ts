// A request's body field names (issue 47, docs/decisions/0185-request-body-field-names.md): the request log
// records the top-level names of a JSON object body, never a value, through the recorder's batched COPY on
// either database; the detail answers them, the list does not; a POST without a body has no names.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createKey, type TestKey } from '../api-keys/keys.ts';
import type { Requests } from '../../src/modules/requests/index.ts';

let svc: TestService;
let m: TestMerchant;
let key: TestKey;

const flush = () => (svc.modules.find((x) => x.name === 'requests') as Requests).batch.flush();

function send(id: string, method: 'POST', body?: string) {
  return svc.app.inject({
    method,
    url: `/api/public/v1/stores/${m.storeId}/cart`,
    headers: {
      authorization: `Bearer ${key.secret_key}`,
      'x-request-id': id,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: body }),
  });
}

async function detail(id: string) {
  const res = await svc.app.inject({
    url: `/api/v1/merchant/developer/requests/${id}`,
    headers: { ...m.auth, 'x-svc-mode': 'test' },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { body_fields: string[] | null };
}

beforeAll(async () => {
  svc = await startTestService();
  m = await signupMerchant(svc.app, 'Fields merchant');
  key = await createKey(svc.app, m);
});
afterAll(async () => svc?.close());

it('records the names of a body, never its values, and answers them in the detail only', async () => {
  const secret = 'pw_never_stored_4f1c9a';
  await send(
    'req_fields_object',
    'POST',
    JSON.stringify({ customer_email: 'ann@example.com', 'card\ttoken': secret, nested: { inner: secret } }),
  );
  await send('req_fields_none', 'POST');
  const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}_${'x'.repeat(80)}`, i]));
  await send('req_fields_many', 'POST', JSON.stringify({ ...many }));
  await send('req_fields_credential', 'POST', JSON.stringify({ [key.secret_key]: 1 }));
  await flush();

  const object = await detail('req_fields_object');
  expect(object.body_fields).toEqual(['customer_email', 'card\ttoken', 'nested']);
  expect(JSON.stringify(object)).not.toContain(secret);
  // a POST without a body reaches the route as an empty object: no names, which the page says as such
  expect((await detail('req_fields_none')).body_fields).toEqual([]);
  const kept = (await detail('req_fields_many')).body_fields!;
  expect(kept).toHaveLength(50);
  expect(kept[0]).toBe(`f0_${'x'.repeat(61)}`);
  // a name shaped like a credential is cleared, as the path is
  expect(JSON.stringify(await detail('req_fields_credential'))).not.toContain(key.secret_key);

  const list = await svc.app.inject({
    url: '/api/v1/merchant/developer/requests',
    headers: { ...m.auth, 'x-svc-mode': 'test' },
  });
  const items = list.json().data.items as Record<string, unknown>[];
  expect(items.length).toBeGreaterThanOrEqual(4);
  expect(items.every((e) => !('body_fields' in e))).toBe(true);
});
