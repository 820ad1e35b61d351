// The database's type, composed from the tables each module declares (its `*.table.ts`), as the app is
// composed from the routes each module contributes. Kysely checks every query against it.
import type { MerchantsTables } from './modules/merchants/merchants.table.ts';
import type { IdentityTables } from './modules/identity/identity.table.ts';
import type { AuditTables } from './modules/audit/audit.table.ts';
import type { EventsTables } from './modules/outbox/events.table.ts';
import type { OAuthAppsTables } from './modules/oauth-apps/oauth-apps.table.ts';
import type { OAuthTables } from './modules/oauth/oauth.table.ts';
import type { ApiKeysTables } from './modules/api-keys/api-keys.table.ts';
import type { CartsTables } from './modules/carts/carts.table.ts';
import type { IdempotencyTables } from './modules/idempotency/idempotency.table.ts';
import type { WebhooksTables } from './modules/webhooks/webhooks.table.ts';
import type { DeliveryTables } from './modules/delivery/delivery.table.ts';
import type { ReplaysTables } from './modules/replays/replays.table.ts';
import type { RequestsTables } from './modules/requests/requests.table.ts';
import type { MembersTables } from './modules/members/members.table.ts';

export type DB = MerchantsTables &
  IdentityTables &
  AuditTables &
  EventsTables &
  ApiKeysTables &
  CartsTables &
  IdempotencyTables &
  OAuthAppsTables &
  OAuthTables &
  WebhooksTables &
  DeliveryTables &
  ReplaysTables &
  RequestsTables &
  MembersTables;
