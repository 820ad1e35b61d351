// Roles on every route (API.md section 11.2), walked from the app's own route table: each merchant route
// declares the role the table below gives it (docs/decisions/0120-users-memberships-sessions.md, has the same table by
// route family), and each role is let through or refused with 403 `forbidden` naming the role needed. A route
// that declares no role fails here, and the merchant interface refuses to start with one. The consent step of
// the OAuth flow lets owners and admins install an app, and no one else.
import { createHash, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantAuth } from '../../src/http/merchant-auth.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { createFixtures, fillPath, validBody, type Fixtures } from '../security/fixtures.ts';
import { addMember, login, type Role, type TestMember } from './support.ts';

/** The least role of each merchant route, by `METHOD path` under /api/v1/merchant. */
const ROLE_OF: Record<string, Role> = {
  'GET /me': 'viewer',
  'POST /auth/logout': 'viewer',
  'POST /auth/switch': 'viewer',
  'GET /auth/sessions': 'viewer',
  'DELETE /auth/sessions/:sessionID': 'viewer',
  // The user's own second factors and step-up (API.md section 11.3), whatever the role.
  'GET /auth/mfa': 'viewer',
  'POST /auth/mfa/totp': 'viewer',
  'POST /auth/mfa/totp/confirm': 'viewer',
  'DELETE /auth/mfa/totp': 'viewer',
  'POST /auth/mfa/recovery-codes': 'viewer',
  'POST /auth/passkeys/options': 'viewer',
  'POST /auth/passkeys': 'viewer',
  'GET /auth/passkeys': 'viewer',
  'DELETE /auth/passkeys/:passkeyID': 'viewer',
  'POST /auth/step-up/options': 'viewer',
  'POST /auth/step-up': 'viewer',
  'GET /settings': 'viewer',
  // Settings -> Developers, read: a viewer reads everything but secrets, reveals and exports.
  'GET /api-keys': 'viewer',
  'GET /developer/apps': 'viewer',
  'GET /developer/apps/:appID': 'viewer',
  'GET /developer/apps/:appID/installs': 'viewer',
  'GET /developer/apps/:appID/installations': 'viewer',
  'GET /developer/connections': 'viewer',
  'GET /developer/logs': 'viewer',
  'GET /developer/logs/chain': 'viewer',
  'GET /developer/logs/checkpoint': 'viewer',
  'GET /developer/requests': 'viewer',
  'GET /developer/requests/:requestID': 'viewer',
  'GET /events': 'viewer',
  'GET /events/:eventID': 'viewer',
  'GET /events/:eventID/resend-targets': 'viewer',
  'GET /webhook-attempts': 'viewer',
  'GET /webhook-source-addresses': 'viewer',
  'GET /webhooks': 'viewer',
  'GET /webhooks/events': 'viewer',
  'GET /webhooks/:webhookID': 'viewer',
  'GET /webhooks/:webhookID/deliveries': 'viewer',
  'GET /webhooks/:webhookID/replays': 'viewer',
  'GET /webhooks/:webhookID/replays/:replayID': 'viewer',
  'GET /webhooks/:webhookID/deliveries/:deliveryID': 'viewer',
  'GET /members': 'viewer',
  'GET /former-members': 'viewer',
  // Settings -> Developers, every change, secret, reveal, export and the local loop.
  'GET /developer/logs/export': 'developer',
  'GET /webhooks/listen': 'developer',
  'POST /api-keys': 'developer',
  'POST /api-keys/:keyID/rotate': 'developer',
  'POST /api-keys/:keyID/revoke': 'developer',
  'POST /developer/apps': 'developer',
  'PATCH /developer/apps/:appID': 'developer',
  'PATCH /apps/:appID': 'developer',
  'POST /developer/apps/:appID/rotate-secret': 'developer',
  'DELETE /developer/apps/:appID': 'developer',
  'POST /events/trigger': 'developer',
  'POST /events/:eventID/resend': 'developer',
  'POST /webhooks': 'developer',
  'PATCH /webhooks/:webhookID': 'developer',
  'DELETE /webhooks/:webhookID': 'developer',
  'DELETE /webhooks/:webhookID/replays/:replayID': 'developer',
  'POST /webhooks/:webhookID/enable': 'developer',
  'POST /webhooks/:webhookID/disable': 'developer',
  'POST /webhooks/:webhookID/rotate-secret': 'developer',
  'POST /webhooks/:webhookID/reveal-secret': 'developer',
  'POST /webhooks/:webhookID/test': 'developer',
  'POST /webhooks/:webhookID/recover': 'developer',
  'POST /webhooks/:webhookID/replays': 'developer',
  'POST /webhooks/:webhookID/deliveries/:deliveryID/retry': 'developer',
  'POST /webhooks/:webhookID/deliveries/:deliveryID/report': 'developer',
  // The store's installed apps, and the team.
  'DELETE /developer/connections/:grantID': 'admin',
  'GET /members/invitations': 'admin',
  'POST /members/invitations': 'admin',
  'DELETE /members/invitations/:invitationID': 'admin',
  'PATCH /members/:userID': 'admin',
  'DELETE /members/:userID': 'admin',
  'GET /members/:userID/exposed-credentials': 'admin',
  'POST /members/:userID/exposed-credentials/rotate': 'admin',
  // The merchant's own settings (require_mfa).
  'PATCH /settings': 'owner',
};

const PREFIX = '/api/v1/merchant';
const ORDER: Role[] = ['viewer', 'developer', 'admin', 'owner'];
/** Routes that end the session they are called with: each call gets a session of its own. */
const ENDS_SESSION = new Set(['POST /auth/logout', 'POST /auth/switch']);

let svc: TestService;
let owner: TestMerchant;
let fixtures: Fixtures;
const members = new Map<Role, TestMember | TestMerchant>();

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  owner = await signupMerchant(svc.app, 'Roles');
  fixtures = await createFixtures(svc, owner);
  members.set('owner', owner);
  for (const role of ['viewer', 'developer', 'admin'] as const)
    members.set(role, await addMember(svc.app, owner, role));
});
afterAll(async () => {
  fixtures?.receiver.close();
  await svc?.close();
});

function merchantRoutes(): string[] {
  return svc.app.routeTable
    .filter((r) => r.url.startsWith(`${PREFIX}/`) && !r.anonymous)
    .flatMap((r) =>
      [...r.methods].filter((m) => m !== 'HEAD').map((m) => `${m} ${r.url.slice(PREFIX.length)}`),
    )
    .sort();
}

/** The body that gets a route past validation to its own checks, as the security suite sends it. */
function bodyOf(method: string, url: string): object | undefined {
  if (url === '/auth/switch') return { merchant_id: owner.merchantId };
  if (url === '/members/invitations' && method === 'POST')
    return { email: 'walk@example.com', role: 'viewer' };
  if (url === '/events/trigger') return { type: 'order.created' };
  if (url.endsWith('/rotate') && url.startsWith('/members/')) return {};
  return validBody(method, url, fixtures);
}

describe('the role of every merchant route', () => {
  it('is declared, and is the one this table gives', () => {
    const declared = Object.fromEntries(
      svc.app.routeTable
        .filter((r) => r.url.startsWith(`${PREFIX}/`) && !r.anonymous)
        .flatMap((r) =>
          [...r.methods]
            .filter((m) => m !== 'HEAD')
            .map((m) => [`${m} ${r.url.slice(PREFIX.length)}`, r.role]),
        ),
    );
    const undeclared = Object.entries(declared).filter(([, role]) => role === undefined);
    expect(undeclared).toEqual([]);
    expect(declared).toEqual(ROLE_OF);
  });

  it('lets each role at or above it through, and refuses each below with 403 naming the role', async () => {
    const seen: string[] = [];
    for (const route of merchantRoutes()) {
      const [method, url] = route.split(' ') as [string, string];
      const needs = ROLE_OF[route]!;
      for (const role of ORDER) {
        const member = members.get(role)!;
        const auth = ENDS_SESSION.has(route) ? (await login(svc.app, member)).auth : member.auth;
        // The listen stream stays open once let through: an unknown event type answers 400 after the role.
        const query = url === '/webhooks/listen' ? '?events=no.such_event' : '';
        const res = await svc.app.inject({
          method: method as 'GET',
          url: `${PREFIX}${fillPath(url, fixtures)}${query}`,
          headers: auth,
          payload: bodyOf(method, url),
        });
        const json = String(res.headers['content-type']).startsWith('application/json');
        const error = json ? res.json<{ error?: { code: string; message: string } }>().error : undefined;
        const refused = res.statusCode === 403 && /needs the \w+ role/.test(error?.message ?? '');
        const allowed = ORDER.indexOf(role) >= ORDER.indexOf(needs);
        seen.push(`${route} ${role} ${allowed ? 'allowed' : 'refused'}`);
        // Never signed out meanwhile: a 401 would pass for "let through" without saying anything.
        expect([route, role, refused, res.statusCode === 401]).toEqual([route, role, !allowed, false]);
        if (!allowed) {
          expect(error).toEqual({
            code: 'forbidden',
            message: expect.stringContaining(`needs the ${needs} role`),
            request_id: expect.any(String),
          });
        }
      }
    }
    expect(seen).toHaveLength(Object.keys(ROLE_OF).length * ORDER.length);
  });

  it('is shown in the OpenAPI document of each operation', async () => {
    const doc = (await svc.app.inject({ url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { 'x-svc-role'?: string; description?: string }>>;
    }>();
    for (const [route, role] of Object.entries(ROLE_OF)) {
      const [method, url] = route.split(' ') as [string, string];
      const op = doc.paths[`${PREFIX}${url.replace(/:([A-Za-z]+)/g, '{$1}')}`]?.[method.toLowerCase()];
      expect([route, op?.['x-svc-role']]).toEqual([route, role]);
      expect(op?.description).toContain(`Role: ${role}`);
    }
  });
});

describe('a route without a declared role', () => {
  it('stops the merchant interface from starting', async () => {
    const app = Fastify();
    const start = async () => {
      await app.register(async (scope) => {
        merchantAuth(scope, async () => undefined);
        scope.get('/forgotten', async () => ({}));
      });
      await app.ready();
    };
    await expect(start()).rejects.toThrow('GET /forgotten declares no role');
    await app.close().catch(() => {});
  });
});

describe('installing an app (the consent step)', () => {
  it('is for owners and admins only', async () => {
    const created = await svc.app.inject({
      method: 'POST',
      url: `${PREFIX}/developer/apps`,
      headers: owner.auth,
      payload: {
        name: 'Installable',
        redirect_uris: ['https://client.example/cb'],
        allowed_scopes: ['public:read'],
      },
    });
    const clientId = created.json().data.client_id as string;
    for (const role of ORDER) {
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'https://client.example/cb',
        scope: 'public:read',
        state: 's',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      const auth = members.get(role)!.auth;
      const page = await svc.app.inject({ url: `/api/public/v1/oauth/authorize?${query}`, headers: auth });
      const asJson = await svc.app.inject({
        url: `/api/public/v1/oauth/authorize?${query}`,
        headers: { ...auth, accept: 'application/json' },
      });
      const may = role === 'admin' || role === 'owner';
      expect([role, page.statusCode, asJson.statusCode]).toEqual([role, may ? 200 : 403, may ? 200 : 403]);
      if (!may) {
        expect(page.body).toContain('Only an owner or admin can install an app.');
        expect(asJson.json().error.message).toContain('needs the admin role');
        continue;
      }
      const consent = await svc.app.inject({
        method: 'POST',
        url: '/api/public/v1/oauth/authorize/consent',
        headers: auth,
        payload: { consent_id: asJson.json().data.consent_id, approve: true },
      });
      expect([role, consent.statusCode]).toEqual([role, 200]);
    }
    // A viewer's or developer's consent decision is refused before any consent is read.
    for (const role of ['viewer', 'developer'] as const) {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/public/v1/oauth/authorize/consent',
        headers: members.get(role)!.auth,
        payload: { consent_id: 'consent_unknown', approve: true },
      });
      expect([role, res.statusCode, res.json().error.code]).toEqual([role, 403, 'forbidden']);
    }
  });
});
