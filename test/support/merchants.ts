// Sign up merchants through the real HTTP route, as a client would.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export interface TestMerchant {
  token: string;
  merchantId: string;
  userId: string;
  storeId: string;
  email: string;
  password: string;
  /** Headers of a merchant-interface call: the session as a Bearer token. */
  auth: Record<string, string>;
}

export async function signupMerchant(app: FastifyInstance, name = 'Test merchant'): Promise<TestMerchant> {
  const email = `m-${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/signup',
    payload: { merchant_name: name, email, password },
  });
  if (res.statusCode !== 201) throw new Error(`signup failed: ${res.statusCode} ${res.body}`);
  const { data } = res.json<{ data: { token: string; user: { id: string }; merchant: { id: string } } }>();
  const me = await app.inject({
    method: 'GET',
    url: '/api/v1/merchant/me',
    headers: { authorization: `Bearer ${data.token}` },
  });
  const storeId = me.json<{ data: { stores: { id: string }[] } }>().data.stores[0]!.id;
  return {
    token: data.token,
    merchantId: data.merchant.id,
    userId: data.user.id,
    storeId,
    email,
    password,
    auth: { authorization: `Bearer ${data.token}` },
  };
}
