// Shared steps of the app webhook tests (API.md section 11.1): an app with a webhook of its own, installed by
// merchants through the real consent route, and disconnected through the connections route.
import type { TestService } from '../support/service.ts';
import type { TestMerchant } from '../support/merchants.ts';
import { createApp, getCode, type TestApp } from '../oauth/helpers.ts';
import { base, type CreatedWebhook } from './helpers.ts';

export async function createAppWebhook(
  svc: TestService,
  owner: TestMerchant,
  app: TestApp,
  url: string,
  events: string[],
): Promise<CreatedWebhook & { app_id: string }> {
  const res = await svc.app.inject({
    method: 'POST',
    url: base,
    headers: { ...owner.auth, 'x-svc-mode': app.mode },
    payload: { url, events, app_id: app.id },
  });
  if (res.statusCode !== 201) throw new Error(`create app webhook: ${res.statusCode} ${res.body}`);
  return res.json<{ data: CreatedWebhook & { app_id: string } }>().data;
}

/** An app of `owner` (test mode, every scope allowed unless said otherwise). */
export const newApp = (svc: TestService, owner: TestMerchant, allowed = ['public:*']) =>
  createApp(svc.app, owner, { allowed_scopes: allowed });

/** The merchant approves the app with these scopes (an install, or a new consent); answers the grant id. */
export async function install(
  svc: TestService,
  app: TestApp,
  merchant: TestMerchant,
  scope = 'public:*',
): Promise<string> {
  await getCode(svc.app, app, merchant, { scope });
  const grant = await connectionOf(svc, merchant, app);
  if (!grant) throw new Error('install: no connection after the consent');
  return grant.id;
}

export interface ConnectionView {
  id: string;
  app: { id: string };
  scopes: string[];
  events: string[];
}

export async function connectionOf(
  svc: TestService,
  merchant: TestMerchant,
  app: TestApp,
): Promise<ConnectionView | undefined> {
  const res = await svc.app.inject({
    url: '/api/v1/merchant/developer/connections',
    headers: { ...merchant.auth, 'x-svc-mode': app.mode },
  });
  return res.json<{ data: { items: ConnectionView[] } }>().data.items.find((c) => c.app.id === app.id);
}

export async function uninstall(svc: TestService, merchant: TestMerchant, grantId: string, mode = 'test') {
  const res = await svc.app.inject({
    method: 'DELETE',
    url: `/api/v1/merchant/developer/connections/${grantId}`,
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });
  if (res.statusCode !== 204) throw new Error(`disconnect: ${res.statusCode} ${res.body}`);
}

export async function setAllowedScopes(
  svc: TestService,
  owner: TestMerchant,
  app: TestApp,
  scopes: string[],
) {
  const res = await svc.app.inject({
    method: 'PATCH',
    url: `/api/v1/merchant/developer/apps/${app.id}`,
    headers: { ...owner.auth, 'x-svc-mode': app.mode },
    payload: { allowed_scopes: scopes },
  });
  if (res.statusCode !== 200) throw new Error(`patch app: ${res.statusCode} ${res.body}`);
}
