// A merchant's team, made through the real routes: the owner invites, each member accepts with a password of
// its own, as a person following the link would.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TestMerchant } from '../support/merchants.ts';

export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

export const MEMBER_PASSWORD = 'a member password';

export interface TestMember extends TestMerchant {
  role: Role;
}

export async function call(
  app: FastifyInstance,
  auth: Record<string, string> | undefined,
  method: string,
  url: string,
  payload?: object,
) {
  const res = await app.inject({
    method: method as 'GET',
    url: `/api/v1/merchant${url}`,
    headers: auth ?? {},
    ...(payload !== undefined ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

/** The token of an invitation's link (`.../dashboard/join#token=svc_inv_...`). */
export const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

export async function invite(app: FastifyInstance, by: TestMerchant, email: string, role: Role) {
  const res = await call(app, by.auth, 'POST', '/members/invitations', { email, role });
  if (res.status !== 201) throw new Error(`invite: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; email: string; role: Role; url: string; expires_at: string };
}

/** A new user who joins `owner`'s merchant with `role`, signed in to it. */
export async function addMember(app: FastifyInstance, owner: TestMerchant, role: Role): Promise<TestMember> {
  const email = `${role}-${randomBytes(5).toString('hex')}@example.com`;
  const invitation = await invite(app, owner, email, role);
  const res = await call(app, undefined, 'POST', '/auth/accept-invitation', {
    token: tokenOf(invitation.url),
    password: MEMBER_PASSWORD,
  });
  if (res.status !== 200) throw new Error(`accept: ${res.status} ${JSON.stringify(res.body)}`);
  const { token, user } = res.body.data as { token: string; user: { id: string } };
  return {
    token,
    merchantId: owner.merchantId,
    userId: user.id,
    storeId: owner.storeId,
    email,
    password: MEMBER_PASSWORD,
    auth: { authorization: `Bearer ${token}` },
    role,
  };
}

/** A fresh session of the user, in the membership it used last. */
export async function login(app: FastifyInstance, who: { email: string; password: string }) {
  const res = await call(app, undefined, 'POST', '/auth/login', { email: who.email, password: who.password });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${JSON.stringify(res.body)}`);
  const token = res.body.data.token as string;
  return { token, auth: { authorization: `Bearer ${token}` }, data: res.body.data };
}

/** The metadata of the merchant's entries of `action`, newest first. */
export async function entries(app: FastifyInstance, by: TestMerchant, action: string) {
  const res = await call(app, by.auth, 'GET', `/developer/logs?action=${action}&limit=200`);
  if (res.status !== 200) throw new Error(`logs: ${res.status}`);
  return (res.body.data.items as { entity_id: string; metadata: string }[]).map((e) => ({
    entityId: e.entity_id,
    metadata: JSON.parse(e.metadata) as Record<string, unknown> & {
      actor: { type: string; id: string; email?: string };
    },
  }));
}
