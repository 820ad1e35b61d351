// Invitations (API.md section 11.2): a single-use, checksummed `svc_inv_` token stored hashed, valid seven
// days; accepting makes an account or joins an existing one (proved by its password or its session); a used,
// expired or withdrawn token answers 400 invalid_invitation. A user of several merchants signs in to the one
// it used last, switches, and sees only the opened merchant's resources.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCredential } from '../../src/lib/credentials.ts';
import { TestClock } from '../support/clock.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { addMember, call, entries, invite, login, MEMBER_PASSWORD, tokenOf } from './support.ts';

const clock = new TestClock();
let svc: TestService;
let owner: TestMerchant;

beforeAll(async () => {
  svc = await startTestService({ clock });
  owner = await signupMerchant(svc.app, 'Inviting merchant');
});
afterAll(async () => svc?.close());

const newEmail = () => `invitee-${randomBytes(5).toString('hex')}@example.com`;
const accept = (body: object, auth?: Record<string, string>) =>
  call(svc.app, auth, 'POST', '/auth/accept-invitation', body);

describe('an invitation', () => {
  it('answers a checksummed svc_inv_ link once, valid seven days, and stores only its hash', async () => {
    const email = newEmail();
    const res = await call(svc.app, owner.auth, 'POST', '/members/invitations', { email, role: 'developer' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.body.data;
    expect(data).toMatchObject({ email, role: 'developer', emailed: false });
    expect(data.id).toMatch(/^inv_/);
    const token = tokenOf(data.url);
    expect(data.url.startsWith(`${svc.config.publicUrl}/dashboard/join#token=svc_inv_`)).toBe(true);
    expect(parseCredential(token)?.kind).toBe('invitation');
    expect(Date.parse(data.expires_at) - clock.now()).toBe(7 * 86_400_000);

    const rows = await svc.ctx.db.selectFrom('invitations').selectAll().where('id', '=', data.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(token);

    const pending = await call(svc.app, owner.auth, 'GET', '/members/invitations');
    expect(pending.body.data.items).toEqual([
      { id: data.id, email, role: 'developer', created_at: expect.any(String), expires_at: data.expires_at },
    ]);
    expect(JSON.stringify(pending.body)).not.toContain('svc_inv_');
  });

  it('makes an account that answers like login, and works once', async () => {
    const email = newEmail();
    const invitation = await invite(svc.app, owner, email, 'viewer');
    const token = tokenOf(invitation.url);

    const preview = await call(svc.app, undefined, 'POST', '/auth/invitation', { token });
    expect(preview.body.data).toEqual({
      email,
      role: 'viewer',
      merchant: { id: owner.merchantId, name: 'Inviting merchant' },
      expires_at: invitation.expires_at,
      account_exists: false,
    });

    const accepted = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/accept-invitation',
      payload: { token, password: MEMBER_PASSWORD, name: 'Vera Viewer' },
    });
    expect(accepted.statusCode).toBe(200);
    const session = accepted.json().data;
    expect(session.token).toMatch(/^svc_mst_/);
    expect(session.user).toMatchObject({ email, name: 'Vera Viewer', role: 'viewer' });
    expect(session.merchant.id).toBe(owner.merchantId);
    expect(String(accepted.headers['set-cookie'])).toContain('svc_session=');

    const me = await call(svc.app, { authorization: `Bearer ${session.token}` }, 'GET', '/me');
    expect(me.body.data).toMatchObject({
      role: 'viewer',
      memberships: [{ merchant: { id: owner.merchantId, name: 'Inviting merchant' }, role: 'viewer' }],
    });

    for (const again of [
      { token, password: MEMBER_PASSWORD },
      { token, password: 'yet another password' },
    ]) {
      const res = await accept(again);
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_invitation']);
    }
    expect((await call(svc.app, undefined, 'POST', '/auth/invitation', { token })).body.error.code).toBe(
      'invalid_invitation',
    );
    const pending = await call(svc.app, owner.auth, 'GET', '/members/invitations');
    expect(pending.body.data.items.map((i: { id: string }) => i.id)).not.toContain(invitation.id);
  });

  it('answers invalid_invitation once expired', async () => {
    const invitation = await invite(svc.app, owner, newEmail(), 'developer');
    clock.advance(7 * 86_400_000);
    const res = await accept({ token: tokenOf(invitation.url), password: MEMBER_PASSWORD });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_invitation']);
    clock.advance(-7 * 86_400_000);
  });

  it('answers invalid_invitation once withdrawn, and the withdrawal is audited', async () => {
    const invitation = await invite(svc.app, owner, newEmail(), 'developer');
    const withdrawn = await call(svc.app, owner.auth, 'DELETE', `/members/invitations/${invitation.id}`);
    expect(withdrawn.status).toBe(204);
    const res = await accept({ token: tokenOf(invitation.url), password: MEMBER_PASSWORD });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_invitation']);
    expect((await call(svc.app, owner.auth, 'DELETE', `/members/invitations/${invitation.id}`)).status).toBe(
      404,
    );
    const [entry] = await entries(svc.app, owner, 'member.invitation_withdrawn');
    expect(entry).toMatchObject({
      entityId: invitation.id,
      metadata: { actor: { type: 'user', id: owner.userId, email: owner.email }, reason: 'withdrawn' },
    });
  });

  it('replaces a pending invitation with a second one and says so, the first link saying it was replaced', async () => {
    const email = newEmail();
    const first = await invite(svc.app, owner, email, 'viewer');
    const second = await call(svc.app, owner.auth, 'POST', '/members/invitations', {
      email: email.toUpperCase(),
      role: 'developer',
    });
    expect(second.status).toBe(201);
    expect(second.body.data.replaced).toEqual({
      id: first.id,
      role: 'viewer',
      created_at: expect.any(String),
      expires_at: first.expires_at,
    });
    // the first link no longer works, and says why; the list holds the second alone
    const old = await accept({ token: tokenOf(first.url), password: MEMBER_PASSWORD });
    expect([old.status, old.body.error.code]).toEqual([400, 'invalid_invitation']);
    expect(old.body.error.message).toContain('replaced by a newer one');
    const preview = await call(svc.app, undefined, 'POST', '/auth/invitation', { token: tokenOf(first.url) });
    expect(preview.body.error.message).toContain('replaced by a newer one');
    const pending = await call(svc.app, owner.auth, 'GET', '/members/invitations');
    const ids = pending.body.data.items.map((i: { id: string }) => i.id);
    expect(ids).toContain(second.body.data.id);
    expect(ids).not.toContain(first.id);
    const [entry] = await entries(svc.app, owner, 'member.invitation_withdrawn');
    expect(entry).toMatchObject({ entityId: first.id, metadata: { reason: 'replaced' } });
    // a first invitation replaces nothing; a withdrawn link keeps the generic answer
    const other = await invite(svc.app, owner, newEmail(), 'viewer');
    expect((other as { replaced?: unknown }).replaced).toBeNull();
    await call(svc.app, owner.auth, 'DELETE', `/members/invitations/${other.id}`);
    const withdrawn = await accept({ token: tokenOf(other.url), password: MEMBER_PASSWORD });
    expect(withdrawn.body.error.message).not.toContain('replaced');
    // the second link works; the address, now a member's, is refused
    const joined = await accept({ token: tokenOf(second.body.data.url), password: MEMBER_PASSWORD });
    expect(joined.status).toBe(200);
    const again = await call(svc.app, owner.auth, 'POST', '/members/invitations', { email, role: 'viewer' });
    expect([again.status, again.body.error.code]).toEqual([409, 'conflict']);
  });

  it("keeps an admin from replacing an owner's invitation", async () => {
    const admin = await addMember(svc.app, owner, 'admin');
    const email = newEmail();
    await invite(svc.app, owner, email, 'owner');
    const res = await call(svc.app, admin.auth, 'POST', '/members/invitations', { email, role: 'viewer' });
    expect(res.status).toBe(403);
  });

  it('says in words what a field accepts', async () => {
    const res = await call(svc.app, owner.auth, 'POST', '/members/invitations', {
      email: newEmail(),
      role: 'superuser',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('role must be one of viewer, developer, admin, owner.');
    expect(res.body.error.details).toEqual([
      { field: 'role', issue: 'must be one of viewer, developer, admin, owner' },
    ]);
  });

  it('refuses a malformed token and a new account without a good password', async () => {
    expect((await accept({ token: 'svc_inv_nonsense', password: MEMBER_PASSWORD })).body.error.code).toBe(
      'invalid_invitation',
    );
    const invitation = await invite(svc.app, owner, newEmail(), 'viewer');
    const none = await accept({ token: tokenOf(invitation.url) });
    expect([none.status, none.body.error.details]).toEqual([
      400,
      [{ field: 'password', issue: 'is required to make the account' }],
    ]);
    const short = await accept({ token: tokenOf(invitation.url), password: 'short' });
    expect([short.status, short.body.error.code]).toEqual([400, 'validation_failed']);
    // Refusals use nothing up.
    expect((await accept({ token: tokenOf(invitation.url), password: MEMBER_PASSWORD })).status).toBe(200);
  });

  it('records member.invited and member.joined with the actors’ emails', async () => {
    const member = await addMember(svc.app, owner, 'developer');
    const invited = (await entries(svc.app, owner, 'member.invited')).find(
      (e) => e.metadata.email === member.email,
    );
    expect(invited?.metadata).toMatchObject({
      actor: { type: 'user', id: owner.userId, email: owner.email },
      role: 'developer',
    });
    const [joined] = await entries(svc.app, owner, 'member.joined');
    expect(joined).toMatchObject({
      entityId: member.userId,
      metadata: { actor: { type: 'user', id: member.userId, email: member.email }, role: 'developer' },
    });
  });
});

describe('a user of several merchants', () => {
  let agency: TestMerchant;
  let client: TestMerchant;
  beforeAll(async () => {
    agency = await signupMerchant(svc.app, 'Agency');
    client = await signupMerchant(svc.app, 'Client');
  });

  it('joins a second merchant with its password; a wrong one is audited as member.auth_failed', async () => {
    const invitation = await invite(svc.app, client, agency.email, 'developer');
    const token = tokenOf(invitation.url);
    expect(
      (await call(svc.app, undefined, 'POST', '/auth/invitation', { token })).body.data.account_exists,
    ).toBe(true);

    const none = await accept({ token });
    expect([none.status, none.body.error.code]).toEqual([401, 'unauthenticated']);
    const wrong = await accept({ token, password: 'not the password at all' });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    const [failure] = await entries(svc.app, client, 'member.auth_failed');
    expect(failure).toMatchObject({
      entityId: agency.userId,
      metadata: {
        check: 'accept_invitation',
        actor: { type: 'user', id: agency.userId, email: agency.email },
      },
    });
    expect(JSON.stringify(failure)).not.toContain('not the password at all');

    const joined = await accept({ token, password: agency.password });
    expect(joined.status).toBe(200);
    expect(joined.body.data.user).toMatchObject({ id: agency.userId, role: 'developer' });
    expect(joined.body.data.merchant.id).toBe(client.merchantId);
  });

  it('joins with a session of that user instead of its password, and not with another user’s', async () => {
    const third = await signupMerchant(svc.app, 'Third');
    clock.advance(1000); // this acceptance is the membership used last
    const invitation = await invite(svc.app, third, agency.email, 'viewer');
    const token = tokenOf(invitation.url);
    const stranger = await accept({ token }, client.auth);
    expect([stranger.status, stranger.body.error.code]).toEqual([401, 'unauthenticated']);
    const res = await accept({ token }, agency.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.merchant.id).toBe(third.merchantId);
  });

  it('lists its memberships, signs in to the one used last, and switches', async () => {
    // The clock stands still unless moved: each step below is a second after the one before.
    clock.advance(1000);
    const signedIn = await login(svc.app, agency);
    // The last acceptance opened the third merchant: the membership used last.
    const me = await call(svc.app, signedIn.auth, 'GET', '/me');
    const names = me.body.data.memberships.map((m: { merchant: { name: string } }) => m.merchant.name);
    expect(names).toEqual(['Agency', 'Client', 'Third']);
    expect(me.body.data.merchant.name).toBe('Third');
    expect(me.body.data.role).toBe('viewer');

    clock.advance(1000);
    const switched = await call(svc.app, signedIn.auth, 'POST', '/auth/switch', {
      merchant_id: agency.merchantId,
    });
    expect(switched.status).toBe(200);
    expect(switched.body.data.merchant.id).toBe(agency.merchantId);
    expect(switched.body.data.user.role).toBe('owner');
    // One session, one membership: the switched-from session ended.
    expect((await call(svc.app, signedIn.auth, 'GET', '/me')).status).toBe(401);
    const auth = { authorization: `Bearer ${switched.body.data.token as string}` };
    expect((await call(svc.app, auth, 'GET', '/me')).body.data.merchant.id).toBe(agency.merchantId);
    // The next sign-in opens the membership switched to.
    clock.advance(1000);
    expect((await login(svc.app, agency)).data.merchant.id).toBe(agency.merchantId);
  });

  it('cannot switch to a merchant it does not belong to (404), nor see another merchant’s resources', async () => {
    const res = await call(svc.app, agency.auth, 'POST', '/auth/switch', { merchant_id: owner.merchantId });
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);

    const key = await call(svc.app, client.auth, 'POST', '/api-keys', { name: 'Client key' });
    const inAgency = await login(svc.app, agency);
    const switched = await call(svc.app, inAgency.auth, 'POST', '/auth/switch', {
      merchant_id: agency.merchantId,
    });
    const agencyAuth = { authorization: `Bearer ${switched.body.data.token as string}` };
    const keys = await call(svc.app, agencyAuth, 'GET', '/api-keys');
    expect(JSON.stringify(keys.body)).not.toContain(key.body.data.id);
    const revoke = await call(svc.app, agencyAuth, 'POST', `/api-keys/${key.body.data.id as string}/revoke`);
    expect(revoke.status).toBe(404);
  });
});
