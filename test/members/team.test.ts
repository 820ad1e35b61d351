// A merchant's members (API.md section 11.2): roles changed with immediate effect, owners managed by owners
// only, the last owner never removed nor demoted, a removed member's sessions ended at once, and a user's own
// sessions listed (address, agent, last use written in batches) and ended one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityModule } from '../../src/modules/identity/index.ts';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { addMember, call, entries, login } from './support.ts';

const clock = new TestClock();
let svc: TestService;
let owner: TestMerchant;

beforeAll(async () => {
  svc = await startTestService({ clock });
  owner = await signupMerchant(svc.app, 'Team merchant');
});
afterAll(async () => svc?.close());

const setRole = (by: TestMerchant, userId: string, role: string) =>
  call(svc.app, by.auth, 'PATCH', `/members/${userId}`, { role });

describe('members and roles', () => {
  it('lists the members with their roles, the owner first', async () => {
    const dev = await addMember(svc.app, owner, 'developer');
    const res = await call(svc.app, dev.auth, 'GET', '/members');
    expect(res.status).toBe(200);
    const items = res.body.data.items as { id: string; email: string; role: string }[];
    expect(items[0]).toMatchObject({ id: owner.userId, email: owner.email, role: 'owner', name: null });
    expect(items.find((m) => m.id === dev.userId)).toMatchObject({
      email: dev.email,
      role: 'developer',
      joined_at: expect.any(String),
    });
  });

  it('changes a role with effect on the member’s next call, audited with the actor’s email', async () => {
    const dev = await addMember(svc.app, owner, 'developer');
    expect((await call(svc.app, dev.auth, 'POST', '/api-keys', {})).status).toBe(201);
    const changed = await setRole(owner, dev.userId, 'viewer');
    expect([changed.status, changed.body.data.role]).toEqual([200, 'viewer']);
    const refused = await call(svc.app, dev.auth, 'POST', '/api-keys', {});
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    expect(refused.body.error.message).toContain('needs the developer role');
    expect((await call(svc.app, dev.auth, 'GET', '/api-keys')).status).toBe(200);

    const [entry] = await entries(svc.app, owner, 'member.role_changed');
    expect(entry).toMatchObject({
      entityId: dev.userId,
      metadata: {
        actor: { type: 'user', id: owner.userId, email: owner.email },
        role: 'viewer',
        previous_role: 'developer',
        email: dev.email,
      },
    });
  });

  it('lets an admin manage members other than owners, and only an owner manage owners', async () => {
    const admin = await addMember(svc.app, owner, 'admin');
    const dev = await addMember(svc.app, owner, 'developer');
    expect((await setRole(admin, dev.userId, 'admin')).status).toBe(200);
    for (const res of [
      await setRole(admin, dev.userId, 'owner'),
      await setRole(admin, owner.userId, 'viewer'),
      await call(svc.app, admin.auth, 'DELETE', `/members/${owner.userId}`),
      await call(svc.app, admin.auth, 'POST', '/members/invitations', {
        email: 'o@example.com',
        role: 'owner',
      }),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
      expect(res.body.error.message).toContain('needs the owner role');
    }
    const viewer = await addMember(svc.app, owner, 'viewer');
    const res = await setRole(viewer, dev.userId, 'viewer');
    expect([res.status, res.body.error.message]).toEqual([
      403,
      'This needs the admin role or above; you are a viewer.',
    ]);
  });

  it('never removes nor demotes the last owner (409), and lets one of two owners go', async () => {
    const solo = await signupMerchant(svc.app, 'Solo');
    for (const res of [
      await setRole(solo, solo.userId, 'admin'),
      await call(svc.app, solo.auth, 'DELETE', `/members/${solo.userId}`),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    }
    const second = await addMember(svc.app, solo, 'owner');
    // Two owners demoting each other at once: one of them stays owner. The other call answers 409 when both
    // passed the role check before either changed a role, 403 when it came in already demoted.
    const both = await Promise.all([
      setRole(solo, second.userId, 'admin'),
      setRole(second, solo.userId, 'admin'),
    ]);
    const [first, last] = both.map((r) => r.status).sort();
    expect(first).toBe(200);
    expect([403, 409]).toContain(last);
    const members = await call(svc.app, solo.auth, 'GET', '/members');
    const owners = (members.body.data.items as { role: string }[]).filter((m) => m.role === 'owner');
    expect(owners).toHaveLength(1);
  });

  it('ends a removed member’s sessions at once, and audits member.removed', async () => {
    const dev = await addMember(svc.app, owner, 'developer');
    const other = await login(svc.app, dev);
    const removed = await call(svc.app, owner.auth, 'DELETE', `/members/${dev.userId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      removed: expect.objectContaining({ id: dev.userId, email: dev.email, role: 'developer' }),
      exposed_credentials: [],
    });
    for (const auth of [dev.auth, other.auth]) {
      const res = await call(svc.app, auth, 'GET', '/me');
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_credential']);
    }
    // Its only membership gone, the right password opens nothing.
    const again = await call(svc.app, undefined, 'POST', '/auth/login', {
      email: dev.email,
      password: dev.password,
    });
    expect([again.status, again.body.error.code]).toEqual([403, 'forbidden']);
    expect((await call(svc.app, owner.auth, 'DELETE', `/members/${dev.userId}`)).status).toBe(404);

    const [entry] = await entries(svc.app, owner, 'member.removed');
    expect(entry).toMatchObject({
      entityId: dev.userId,
      metadata: { actor: { type: 'user', id: owner.userId, email: owner.email }, email: dev.email },
    });
  });
});

describe("a user's sessions", () => {
  it('lists them with address, agent and last use, written in batches, and marks the current one', async () => {
    const m = await signupMerchant(svc.app, 'Sessions');
    const phone = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      remoteAddress: '203.0.113.5',
      headers: { 'user-agent': 'Phone browser/1.0' },
      payload: { email: m.email, password: m.password },
    });
    const phoneId = (await call(svc.app, m.auth, 'GET', '/auth/sessions')).body.data.items.find(
      (s: { current: boolean }) => !s.current,
    ).id as string;
    clock.advance(60_000);
    const phoneAuth = { authorization: `Bearer ${phone.json().data.token as string}` };
    expect((await call(svc.app, phoneAuth, 'GET', '/me')).status).toBe(200);
    const uses = (svc.modules.find((x) => x.name === 'identity') as IdentityModule).sessionUses;
    await uses.flush();
    const stored = await svc.ctx.db
      .selectFrom('sessions')
      .select('last_used_at')
      .where('id', '=', phoneId)
      .execute();
    expect(stored[0]!.last_used_at?.getTime()).toBe(clock.now());

    const list = await call(svc.app, phoneAuth, 'GET', '/auth/sessions');
    expect(list.status).toBe(200);
    const mine = list.body.data.items.find((s: { id: string }) => s.id === phoneId);
    expect(mine).toEqual({
      id: phoneId,
      merchant_id: m.merchantId,
      created_at: expect.any(String),
      last_used_at: new Date(clock.now()).toISOString(),
      expires_at: expect.any(String),
      ip: '203.0.113.5',
      user_agent: 'Phone browser/1.0',
      current: true,
    });
    expect(list.body.data.items).toHaveLength(2);
  });

  it('ends one at once; another user’s session is not found', async () => {
    const m = await signupMerchant(svc.app, 'Ends');
    const stranger = await signupMerchant(svc.app, 'Stranger');
    const second = await login(svc.app, m);
    const sessions = (await call(svc.app, m.auth, 'GET', '/auth/sessions')).body.data.items as {
      id: string;
      current: boolean;
    }[];
    const other = sessions.find((s) => !s.current)!;
    expect((await call(svc.app, stranger.auth, 'DELETE', `/auth/sessions/${other.id}`)).status).toBe(404);
    expect((await call(svc.app, m.auth, 'DELETE', `/auth/sessions/${other.id}`)).status).toBe(204);
    expect((await call(svc.app, second.auth, 'GET', '/me')).status).toBe(401);
    expect((await call(svc.app, m.auth, 'GET', '/me')).status).toBe(200);
  });
});
