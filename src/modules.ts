// The feature modules, created in a declared order: a module may use what an earlier one returns. Stopping
// runs in the reverse order (src/server.ts). The credential kinds the modules verify are collected here
// into the one set of resolvers that the public bearer check and introspection share.
import type { Context } from './context.ts';
import { CredentialResolvers } from './http/public-auth.ts';
import type { SessionResolver } from './http/merchant-auth.ts';
import type { Module } from './modules/module.ts';
import { createMerchants } from './modules/merchants/index.ts';
import { createIdentity, membersWithoutSecondFactor } from './modules/identity/index.ts';
import { createSecondFactors } from './modules/second-factors/index.ts';
import { createAudit } from './modules/audit/index.ts';
import { createOauthApps } from './modules/oauth-apps/index.ts';
import { createOauth, recordAllowedScopesChange, refusedTokenCall } from './modules/oauth/index.ts';
import { createOauthAuthorize } from './modules/oauth-authorize/index.ts';
import { createOauthToken } from './modules/oauth-token/index.ts';
import { createOauthIntrospect } from './modules/oauth-introspect/index.ts';
import { createWebhooks, retireAppWebhooks, type DeliveryHooks } from './modules/webhooks/index.ts';
import { createOutbox } from './modules/outbox/index.ts';
import { cancelPendingDeliveries, createDelivery, setRateLimit } from './modules/delivery/index.ts';
import { createRetention } from './modules/retention/index.ts';
import { createReplays } from './modules/replays/index.ts';
import { createAttempts } from './modules/attempts/index.ts';
import { createDevLoop } from './modules/dev-loop/index.ts';
import { createApiKeys } from './modules/api-keys/index.ts';
import { createMembers } from './modules/members/index.ts';
import { createCarts } from './modules/carts/index.ts';
import { createIdempotency } from './modules/idempotency/index.ts';
import { createPayments } from './modules/payments/index.ts';
import { createRequests } from './modules/requests/index.ts';
import { createDashboard } from './modules/dashboard/index.ts';

export interface Composition {
  readonly modules: readonly Module[];
  readonly credentials: CredentialResolvers;
  readonly session: SessionResolver;
}

export function createModules(ctx: Context): Composition {
  const credentials = new CredentialResolvers();
  // What a change of a subscription does to its deliveries: the delivery module's, which reads webhooks
  // through the webhooks module and so cannot be imported by it.
  const deliveries: DeliveryHooks = { cancelPending: cancelPendingDeliveries, setRateLimit };
  const identity = createIdentity(ctx);
  const merchants = createMerchants({ membersWithoutFactor: membersWithoutSecondFactor });
  const audit = createAudit(ctx);
  // An app change reaches the modules that depend on apps through hooks run in its transaction.
  const oauthApps = createOauthApps(ctx, {
    allowedScopesChanged: recordAllowedScopesChange,
    deleting: (trx, appId, at) => retireAppWebhooks(deliveries, trx, appId, at),
  });
  const apiKeys = createApiKeys(ctx);
  const outbox = createOutbox(ctx);
  const delivery = createDelivery(ctx, { signal: outbox.state.ingestion.deliveries });
  // The authorization server: its grants and tokens, then the protocol's endpoints over them.
  const apps = oauthApps.apps;
  const { firstStores } = merchants;
  const oauth = createOauth(ctx, { apps });
  const { tokens } = oauth;
  const oauthToken = createOauthToken(ctx, { apps, tokens, firstStores });
  const modules: Module[] = [
    identity,
    createSecondFactors(ctx, { signIns: identity.signIns }),
    merchants,
    audit,
    oauthApps,
    oauth,
    createOauthAuthorize(ctx, { tokens, apps, signIns: identity.signIns, firstStores }),
    oauthToken,
    createOauthIntrospect(ctx, { credentials, tokens, limits: oauthToken.limits, apps, firstStores }),
    createWebhooks(ctx, { signIns: identity.signIns, apps: oauthApps.apps, deliveries }),
    outbox,
    delivery,
    createRetention(ctx),
    createReplays(ctx, { signal: outbox.state.ingestion.deliveries }),
    createAttempts(),
    createDevLoop({
      sending: delivery.state.sending,
      listeners: outbox.state.ingestion.listeners,
      apps: oauthApps.apps,
    }),
    apiKeys,
    createMembers(ctx, { signIns: identity.signIns, keys: apiKeys.keys, apps: oauthApps.apps }),
    createCarts(ctx),
    createIdempotency(ctx),
    createPayments(),
    createRequests(ctx, { refusedTokenOwner: (token) => refusedTokenCall(ctx, tokens, token) }),
    createDashboard(),
  ];
  for (const m of modules) {
    if (m.dpop) credentials.setDpop(m.dpop);
    for (const [kind, resolver] of Object.entries(m.credentials ?? {})) {
      credentials.add(kind as keyof NonNullable<Module['credentials']>, resolver);
    }
  }
  return { modules, credentials, session: identity.session };
}
