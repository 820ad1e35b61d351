// The credentials a member saw in clear (API.md section 11.2), computed from the audit trail: key pairs it
// created or rotated, client secrets it created or rotated, webhook secrets it created, rotated or revealed;
// only those still working, and never one it did not see. Rotate-all replaces them with a grace, answers the
// new secrets once (no-store), and the old ones stop when the grace ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { addMember, call, entries, type TestMember } from './support.ts';

const clock = new TestClock();
let svc: TestService;
let owner: TestMerchant;
let dev: TestMember;

beforeAll(async () => {
  svc = await startTestService({ clock });
  owner = await signupMerchant(svc.app, 'Exposed merchant');
  dev = await addMember(svc.app, owner, 'developer');
});
afterAll(async () => svc?.close());

interface Exposed {
  type: string;
  id: string;
  name: string | null;
  mode: string;
  how: string;
  seen_at: string;
  expires_at: string | null;
}

async function ok(by: TestMerchant, method: string, url: string, body?: object, mode = 'test') {
  const res = await svc.app.inject({
    method: method as 'POST',
    url: `/api/v1/merchant${url}`,
    headers: { ...by.auth, 'x-svc-mode': mode },
    ...(body ? { payload: body } : {}),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json().data : undefined;
}

const app = (by: TestMerchant, name: string, mode = 'test') =>
  ok(
    by,
    'POST',
    '/developer/apps',
    { name, redirect_uris: ['https://a.example/cb'], allowed_scopes: ['public:read'] },
    mode,
  );
const hook = (by: TestMerchant, description: string) =>
  ok(by, 'POST', '/webhooks', { url: 'https://hooks.example/in', events: ['order.created'], description });

const exposed = async (): Promise<Exposed[]> =>
  (await call(svc.app, owner.auth, 'GET', `/members/${dev.userId}/exposed-credentials`)).body.data.items;
const publicCall = (secretKey: string) =>
  svc.app.inject({ url: '/api/public/v1/stores', headers: { authorization: `Bearer ${secretKey}` } });

/** What the member saw, and what it did not: each case is named by what it is called. */
const seen: Record<string, string> = {};

describe('exposed credentials', () => {
  beforeAll(async () => {
    // Seen, and still working.
    const created = await ok(dev, 'POST', '/api-keys', { name: 'created by dev' });
    seen.createdKey = created.id;
    seen.createdKeySecret = created.secret_key;
    const toRotate = await ok(dev, 'POST', '/api-keys', { name: 'rotated by dev' });
    const rotated = await ok(dev, 'POST', `/api-keys/${toRotate.id}/rotate`, {
      previous_key_expires_in: 3600,
    });
    seen.rotatedFrom = toRotate.id; // still works for an hour: seen at its creation
    seen.rotatedKey = rotated.id;
    seen.liveApp = (await app(dev, 'live app by dev', 'live')).id;
    const graced = await app(dev, 'app rotated by the owner with a grace');
    seen.gracedApp = graced.id;
    await ok(owner, 'POST', `/developer/apps/${graced.id}/rotate-secret`, {
      previous_secret_expires_in: 600,
    });
    const ownersHook = await hook(owner, 'owner hook revealed by dev');
    await ok(dev, 'POST', `/webhooks/${ownersHook.id}/reveal-secret`, { password: dev.password });
    seen.revealedHook = ownersHook.id;

    // Seen, and no longer working.
    const revoked = await ok(dev, 'POST', '/api-keys', { name: 'revoked by owner' });
    await ok(owner, 'POST', `/api-keys/${revoked.id}/revoke`);
    seen.revokedKey = revoked.id;
    const replaced = await app(dev, 'app rotated by the owner at once');
    await ok(owner, 'POST', `/developer/apps/${replaced.id}/rotate-secret`, {});
    seen.replacedApp = replaced.id;
    const deleted = await hook(dev, 'hook deleted by owner');
    await ok(owner, 'DELETE', `/webhooks/${deleted.id}`);
    seen.deletedHook = deleted.id;

    // Never seen by the member.
    seen.ownersKey = (await ok(owner, 'POST', '/api-keys', { name: 'owner key' })).id;
    seen.ownersApp = (await app(owner, 'owner app')).id;
    seen.ownersHook = (await hook(owner, 'owner hook')).id;
  });

  it('lists what the member saw in clear that still works, from the trail, and nothing else', async () => {
    const list = await exposed();
    const byId = new Map(list.map((e) => [e.id, e]));
    expect(byId.get(seen.createdKey!)).toMatchObject({
      type: 'api_key',
      name: 'created by dev',
      mode: 'test',
      how: 'created',
      expires_at: null,
    });
    expect(byId.get(seen.rotatedKey!)).toMatchObject({ type: 'api_key', how: 'rotated', expires_at: null });
    expect(byId.get(seen.rotatedFrom!)).toMatchObject({
      how: 'created',
      expires_at: new Date(clock.now() + 3600_000).toISOString(),
    });
    expect(byId.get(seen.liveApp!)).toMatchObject({ type: 'client_secret', mode: 'live', how: 'created' });
    expect(byId.get(seen.gracedApp!)).toMatchObject({
      type: 'client_secret',
      expires_at: new Date(clock.now() + 600_000).toISOString(),
    });
    expect(byId.get(seen.revealedHook!)).toMatchObject({
      type: 'webhook_secret',
      name: 'owner hook revealed by dev',
      how: 'revealed',
    });
    expect(list.map((e) => e.id).sort()).toEqual(
      ['createdKey', 'rotatedKey', 'rotatedFrom', 'liveApp', 'gracedApp', 'revealedHook']
        .map((k) => seen[k])
        .sort(),
    );
  });

  it('forgets a secret whose grace ran out', async () => {
    clock.advance(601_000);
    const ids = (await exposed()).map((e) => e.id);
    expect(ids).not.toContain(seen.gracedApp);
    expect(ids).toContain(seen.rotatedFrom);
  });

  it('lists the same in the removal’s answer, and still for the former member', async () => {
    const before = await exposed();
    const removed = await call(svc.app, owner.auth, 'DELETE', `/members/${dev.userId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.exposed_credentials).toEqual(before);
    expect(await exposed()).toEqual(before);
    const nobody = await call(
      svc.app,
      owner.auth,
      'GET',
      '/members/usr_0000000000aaaaaaaaaaaaaaaaaaaa/exposed-credentials',
    );
    expect(nobody.status).toBe(404);
  });

  it('rotates them all with a grace, answers the new secrets once, and the old ones stop after it', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: `/api/v1/merchant/members/${dev.userId}/exposed-credentials/rotate`,
      headers: owner.auth,
      payload: { previous_expires_in: 120 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const rotated = res.json().data.credentials as {
      type: string;
      id: string;
      outcome: string;
      secret: string | null;
      new_id: string | null;
    }[];
    const byId = new Map(rotated.map((r) => [r.id, r]));
    expect(byId.get(seen.createdKey!)).toMatchObject({
      outcome: 'rotated',
      secret: expect.stringMatching(/^svc_test_sk_/),
    });
    expect(byId.get(seen.liveApp!)).toMatchObject({
      outcome: 'rotated',
      secret: expect.stringMatching(/^svc_live_cs_/),
    });
    expect(byId.get(seen.revealedHook!)).toMatchObject({
      outcome: 'rotated',
      secret: expect.stringMatching(/^whsec_/),
    });
    // Already replaced by the member's own rotation (in its grace): ended at once.
    expect(byId.get(seen.rotatedFrom!)).toMatchObject({ outcome: 'ended', secret: null });
    expect(rotated).toHaveLength(5);

    // Within the grace both the seen and the new key work; the seen one still counts as exposed, until then.
    const newKey = byId.get(seen.createdKey!)!;
    expect((await publicCall(seen.createdKeySecret!)).statusCode).toBe(200);
    expect((await publicCall(newKey.secret!)).statusCode).toBe(200);
    expect((await exposed()).every((e) => e.expires_at !== null)).toBe(true);
    clock.advance(121_000);
    expect((await publicCall(seen.createdKeySecret!)).statusCode).toBe(401);
    expect((await publicCall(newKey.secret!)).statusCode).toBe(200);
    expect(await exposed()).toEqual([]);

    const [entry] = await entries(svc.app, owner, 'member.credentials_rotated');
    expect(entry).toMatchObject({
      entityId: dev.userId,
      metadata: { actor: { type: 'user', email: owner.email }, previous_expires_in: 120 },
    });
    expect(JSON.stringify(entry)).not.toContain(newKey.secret);
  });
});
