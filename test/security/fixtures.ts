// One resource of each kind for a merchant, made through the public routes as a client would, so the
// security suite can aim every route with a path parameter at a real resource of someone else.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { TestService } from '../support/service.ts';
import type { TestMerchant } from '../support/merchants.ts';
import type { Requests } from '../../src/modules/requests/index.ts';
import { SoftAuthenticator } from '../support/webauthn.ts';

export interface Fixtures {
  /** Path parameter name (lower case, without `id`) -> id of the owner's resource. */
  ids: Record<string, string>;
  receiver: Server;
}

async function call(
  svc: TestService,
  m: TestMerchant,
  method: string,
  url: string,
  payload?: object,
  headers = {},
) {
  const res = await svc.app.inject({
    method: method as 'POST',
    url,
    payload,
    headers: { ...m.auth, ...headers },
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

export async function createFixtures(svc: TestService, m: TestMerchant): Promise<Fixtures> {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;

  const redirect = 'https://client.example/callback';
  const app = await call(svc, m, 'POST', '/api/v1/merchant/developer/apps', {
    name: 'Fixture app',
    redirect_uris: [redirect],
    allowed_scopes: ['public:read'],
  });
  const key = await call(svc, m, 'POST', '/api/v1/merchant/api-keys', { name: 'Fixture key' });
  const webhook = await call(svc, m, 'POST', '/api/v1/merchant/webhooks', {
    url: `http://127.0.0.1:${port}/hook`,
    events: ['order.created'],
  });
  const delivery = await call(svc, m, 'POST', `/api/v1/merchant/webhooks/${webhook.id}/test`, {});
  const replay = await call(svc, m, 'POST', `/api/v1/merchant/webhooks/${webhook.id}/replays`, {
    since: new Date(0).toISOString(),
  });

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: redirect,
    scope: 'public:read',
    state: 'fixture',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const consent = await call(svc, m, 'GET', `/api/public/v1/oauth/authorize?${query}`, undefined, {
    accept: 'application/json',
  });
  await call(svc, m, 'POST', '/api/public/v1/oauth/authorize/consent', {
    consent_id: consent.consent_id,
    approve: true,
  });
  const connections = await call(svc, m, 'GET', '/api/v1/merchant/developer/connections');

  // A public call of the merchant's key, in its request log once the recorder's buffer is written.
  const requestId = `req_fixture_${randomBytes(6).toString('hex')}`;
  const stores = await svc.app.inject({
    url: '/api/public/v1/stores',
    headers: { authorization: `Bearer ${key.secret_key}`, 'x-request-id': requestId },
  });
  if (stores.statusCode !== 200) throw new Error(`GET /stores: ${stores.statusCode} ${stores.body}`);
  await (svc.modules.find((x) => x.name === 'requests') as Requests).batch.flush();

  // A member who joined by invitation, a pending invitation, and a second session of the owner.
  const joined = await call(svc, m, 'POST', '/api/v1/merchant/members/invitations', {
    email: `member-${randomBytes(4).toString('hex')}@example.com`,
    role: 'developer',
  });
  const member = await call(svc, m, 'POST', '/api/v1/merchant/auth/accept-invitation', {
    token: new URL(joined.url).hash.replace('#token=', ''),
    password: 'another long password',
  });
  const invitation = await call(svc, m, 'POST', '/api/v1/merchant/members/invitations', {
    email: `invitee-${randomBytes(4).toString('hex')}@example.com`,
    role: 'viewer',
  });
  const second = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login',
    payload: { email: m.email, password: m.password },
  });
  const session = (await call(svc, m, 'GET', '/api/v1/merchant/auth/sessions')).items.find(
    (s: { current: boolean; id: string }) => !s.current && s.id !== undefined,
  );
  if (second.statusCode !== 200 || !session) throw new Error('a second session of the owner was not made');
  // A passkey of the member (the owner keeps no second factor, so no route of its asks for a step-up).
  const memberAuth = { authorization: `Bearer ${member.token}` };
  const authenticator = new SoftAuthenticator(svc.config.publicUrl);
  const creation = await call(svc, m, 'POST', '/api/v1/merchant/auth/passkeys/options', {}, memberAuth);
  const passkey = await call(
    svc,
    m,
    'POST',
    '/api/v1/merchant/auth/passkeys',
    { credential: authenticator.create(creation) },
    memberAuth,
  );

  return {
    receiver,
    ids: {
      app: app.id,
      key: key.id,
      webhook: webhook.id,
      delivery: delivery.id,
      replay: replay.id,
      event: delivery.event_id,
      grant: connections.items[0].id,
      request: requestId,
      user: member.user.id,
      invitation: invitation.id,
      session: session.id,
      passkey: passkey.id,
    },
  };
}

/** A valid body for the routes whose body has required fields, so that what they check is the resource. */
export function validBody(method: string, url: string, fixtures: Fixtures): object | undefined {
  if (url.endsWith('/passkeys/:passkeyID')) return { password: 'a password of some length' };
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (url.endsWith('/recover') || url.endsWith('/replays')) return { since: new Date(0).toISOString() };
  if (url.endsWith('/reveal-secret')) return { password: 'a password of some length' };
  if (url.endsWith('/resend')) return { webhook_id: fixtures.ids.webhook };
  if (url.endsWith('/report')) return { status: 200, duration_ms: 1 };
  if (method === 'PATCH' && url.endsWith('/members/:userID')) return { role: 'viewer' };
  return {};
}

/** Fills `:appID`, `:keyID`, ... with the fixture of that kind. */
export function fillPath(url: string, fixtures: Pick<Fixtures, 'ids'>): string {
  return url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const kind = name.toLowerCase().replace(/id$/, '');
    const id = fixtures.ids[kind];
    if (!id) throw new Error(`no fixture for path parameter ${name} of ${url}`);
    return id;
  });
}
