// The team's memory (API.md section 12.4) on a real database: GET /former-members lists the members removed in
// the last 90 days whose exposed credentials still work, with who removed them and the exposure answer's list,
// until they are rotated; a member back in the team, one who saw nothing, and a removal 90 days old are not in
// it. Requiring a second factor answers the members without one, beside the setting, and /me tells a member
// held to enrolment that it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { enrolTotp } from '../merchants/factors-support.ts';
import { addMember, call, invite, MEMBER_PASSWORD, tokenOf, type TestMember } from './support.ts';

const DAY = 86_400_000;
const clock = new TestClock();
let svc: TestService;
let owner: TestMerchant;

beforeAll(async () => {
  // sessions outlive the 90 days the clock is moved
  svc = await startTestService({ clock, env: { SVC_SESSION_TTL: String(200 * 86_400) } });
  owner = await signupMerchant(svc.app, 'Team with a memory');
});
afterAll(async () => svc?.close());

interface Former {
  id: string;
  email: string;
  removed_at: string;
  removed_by: string | null;
  removed_by_email: string | null;
  exposed_credentials: { type: string; id: string; name: string | null; how: string }[];
}

async function former(by: TestMerchant = owner): Promise<Former[]> {
  const res = await call(svc.app, by.auth, 'GET', '/former-members');
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ has_more: false, next_cursor: null });
  expect(res.body.data.count).toBe(res.body.data.items.length);
  return res.body.data.items;
}

async function remove(member: TestMember) {
  const res = await call(svc.app, owner.auth, 'DELETE', `/members/${member.userId}`);
  expect(res.status).toBe(200);
  return res.body.data as { exposed_credentials: unknown[] };
}

async function keyBy(member: TestMember, name: string) {
  const res = await call(svc.app, member.auth, 'POST', '/api-keys', { name });
  expect(res.status).toBe(201);
  return res.body.data as { id: string };
}

describe('former members', () => {
  let dev: TestMember;
  let key: { id: string };

  it('lists a removed member whose key still works, as the removal answered it, and who removed it', async () => {
    dev = await addMember(svc.app, owner, 'developer');
    const viewer = await addMember(svc.app, owner, 'viewer');
    key = await keyBy(dev, 'made by the developer');
    expect(await former()).toEqual([]);
    clock.advance(1000);
    const removal = await remove(dev);
    clock.advance(1000);
    await remove(viewer); // saw nothing: not a former member to worry about

    const list = await former();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: dev.userId,
      email: dev.email,
      removed_by: owner.userId,
      removed_by_email: owner.email,
    });
    expect(Date.parse(list[0]!.removed_at)).toBe(clock.now() - 1000);
    expect(list[0]!.exposed_credentials).toEqual(removal.exposed_credentials);
    expect(list[0]!.exposed_credentials).toMatchObject([{ type: 'api_key', id: key.id, how: 'created' }]);
  });

  it('is read by every role, and by no other merchant', async () => {
    const viewer = await addMember(svc.app, owner, 'viewer');
    expect((await former(viewer)).map((f) => f.id)).toEqual([dev.userId]);
    const stranger = await signupMerchant(svc.app, 'Another team');
    expect(await former(stranger)).toEqual([]);
    const anonymous = await call(svc.app, undefined, 'GET', '/former-members');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthenticated']);
  });

  it('leaves the list once what the member saw is rotated', async () => {
    const rotated = await call(
      svc.app,
      owner.auth,
      'POST',
      `/members/${dev.userId}/exposed-credentials/rotate`,
      {},
    );
    expect(rotated.status).toBe(200);
    expect(await former()).toEqual([]);
  });

  it('does not list a member who is back in the team', async () => {
    const back = await addMember(svc.app, owner, 'developer');
    await keyBy(back, 'made before leaving');
    await remove(back);
    expect((await former()).map((f) => f.id)).toEqual([back.userId]);
    const again = await invite(svc.app, owner, back.email, 'developer');
    const accepted = await call(svc.app, undefined, 'POST', '/auth/accept-invitation', {
      token: tokenOf(again.url),
      password: MEMBER_PASSWORD,
    });
    expect(accepted.status).toBe(200);
    expect(await former()).toEqual([]);
  });

  it('forgets a removal 90 days on, though the key still works', async () => {
    const old = await addMember(svc.app, owner, 'developer');
    await keyBy(old, 'kept for months');
    await remove(old);
    clock.advance(89 * DAY);
    expect((await former()).map((f) => f.id)).toEqual([old.userId]);
    clock.advance(2 * DAY);
    expect(await former()).toEqual([]);
    const stillExposed = await call(svc.app, owner.auth, 'GET', `/members/${old.userId}/exposed-credentials`);
    expect(stillExposed.body.data.count).toBe(1);
  });
});

describe('requiring a second factor', () => {
  it('names the members without one beside the setting, and /me tells a held member', async () => {
    const team = await signupMerchant(svc.app, 'Team asked for factors');
    const careful = await addMember(svc.app, team, 'admin');
    const careless = await addMember(svc.app, team, 'developer');
    await enrolTotp(svc.app, team.auth, clock);
    await enrolTotp(svc.app, careful.auth, clock);

    const before = await call(svc.app, team.auth, 'GET', '/settings');
    expect(before.body.data).toEqual({
      require_mfa: false,
      members_without_second_factor: [{ id: careless.userId, email: careless.email }],
    });
    const on = await call(svc.app, team.auth, 'PATCH', '/settings', { require_mfa: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({
      require_mfa: true,
      members_without_second_factor: [{ id: careless.userId, email: careless.email }],
    });

    const held = await call(svc.app, careless.auth, 'GET', '/me');
    expect(held.status).toBe(200);
    expect(held.body.data).toMatchObject({ mfa_enrolment_required: true, merchant: { id: team.merchantId } });
    expect((await call(svc.app, careful.auth, 'GET', '/me')).body.data.mfa_enrolment_required).toBe(false);
    const refused = await call(svc.app, careless.auth, 'GET', '/api-keys');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'mfa_enrolment_required']);

    await enrolTotp(svc.app, careless.auth, clock);
    expect((await call(svc.app, careless.auth, 'GET', '/me')).body.data.mfa_enrolment_required).toBe(false);
    const off = await call(svc.app, team.auth, 'PATCH', '/settings', { require_mfa: false });
    expect(off.body.data).toEqual({ require_mfa: false, members_without_second_factor: [] });
  });
});
