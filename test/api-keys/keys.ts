// Key pairs made through the real merchant route, for the tests of the public interface.
import type { FastifyInstance } from 'fastify';
import type { TestMerchant } from '../support/merchants.ts';

export type Mode = 'test' | 'live';

export interface TestKey {
  id: string;
  secret_key: string;
  publishable_key: string;
  scopes: string[];
  status: string;
  mode: Mode;
  rotated_from: string | null;
}

export async function createKey(
  app: FastifyInstance,
  merchant: TestMerchant,
  options: { mode?: Mode; scopes?: string[]; name?: string } = {},
): Promise<TestKey> {
  const payload: Record<string, unknown> = {};
  if (options.scopes) payload.scopes = options.scopes;
  if (options.name) payload.name = options.name;
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/merchant/api-keys',
    headers: { ...merchant.auth, 'x-svc-mode': options.mode ?? 'test' },
    payload,
  });
  if (res.statusCode !== 201) throw new Error(`create key failed: ${res.statusCode} ${res.body}`);
  return res.json().data as TestKey;
}

export async function keyCall(
  app: FastifyInstance,
  merchant: TestMerchant,
  keyId: string,
  action: 'rotate' | 'revoke',
  options: { mode?: Mode; payload?: Record<string, unknown> } = {},
) {
  return app.inject({
    method: 'POST',
    url: `/api/v1/merchant/api-keys/${keyId}/${action}`,
    headers: { ...merchant.auth, 'x-svc-mode': options.mode ?? 'test' },
    ...(options.payload ? { payload: options.payload } : {}),
  });
}

export const bearer = (token: string, mode?: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  ...(mode ? { 'x-svc-mode': mode } : {}),
});
