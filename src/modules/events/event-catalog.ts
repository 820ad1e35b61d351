// The event catalog of seed section 6, as data: the one list that subscriptions, ingestion and the catalog
// route read. Descriptions are the seed's "Triggered when" words. Event ids are stable; new types are added
// at the end, never renamed or removed. The `data` of each type is defined in event-payloads.ts.
import { EVENT_PAYLOADS } from './event-payloads.ts';

export interface EventDefinition {
  id: string;
  name: string;
  category: string;
  description: string;
}

export const EVENT_CATALOG: readonly EventDefinition[] = Object.freeze([
  { id: 'order.created', name: 'Order created', category: 'orders', description: 'a new order is created' },
  { id: 'order.paid', name: 'Order paid', category: 'orders', description: 'an order payment is completed' },
  {
    id: 'order.cancelled',
    name: 'Order cancelled',
    category: 'orders',
    description: 'an order is cancelled',
  },
  {
    id: 'order.fulfilled',
    name: 'Order fulfilled',
    category: 'orders',
    description: 'an order is marked fulfilled',
  },
  {
    id: 'cart.abandoned',
    name: 'Cart abandoned',
    category: 'carts',
    description: 'an active cart becomes abandoned',
  },
  {
    id: 'customer.created',
    name: 'Customer created',
    category: 'customers',
    description: 'a customer profile is created',
  },
  {
    id: 'customer.updated',
    name: 'Customer updated',
    category: 'customers',
    description: 'a customer profile is updated',
  },
  {
    id: 'product.created',
    name: 'Product created',
    category: 'catalog',
    description: 'a product is created',
  },
  {
    id: 'product.updated',
    name: 'Product updated',
    category: 'catalog',
    description: 'a product is updated',
  },
  {
    id: 'product.deleted',
    name: 'Product deleted',
    category: 'catalog',
    description: 'a product is deleted',
  },
  {
    id: 'inventory.low_stock',
    name: 'Inventory low stock',
    category: 'inventory',
    description: 'stock drops below threshold',
  },
  {
    id: 'discount.redeemed',
    name: 'Discount redeemed',
    category: 'discounts',
    description: 'a discount code is redeemed',
  },
  {
    id: 'payout.processed',
    name: 'Payout processed',
    category: 'finance',
    description: 'a payout is processed',
  },
  {
    id: 'subscription.renewed',
    name: 'Subscription renewed',
    category: 'billing',
    description: 'a subscription renews successfully',
  },
  // API.md section 11.1: the life of an installation, told to the app and to the merchant that installed it.
  {
    id: 'app.installed',
    name: 'App installed',
    category: 'apps',
    description: 'a merchant installs an app (approves its consent for the first time)',
  },
  {
    id: 'app.scopes_updated',
    name: 'App scopes updated',
    category: 'apps',
    description: "an installation's effective scopes change (a new consent, or the app's allowed scopes)",
  },
  {
    id: 'app.uninstalled',
    name: 'App uninstalled',
    category: 'apps',
    description: 'a merchant disconnects an app',
  },
  // Personal data: an app must act on these whatever scopes it was granted.
  {
    id: 'customers.data_request',
    name: 'Customer data requested',
    category: 'privacy',
    description: 'a customer asks for the data held about them',
  },
  {
    id: 'customers.redact',
    name: 'Customer erasure requested',
    category: 'privacy',
    description: 'a customer asks for their personal data to be erased',
  },
  {
    id: 'store.redact',
    name: 'Store data erasure due',
    category: 'privacy',
    description:
      "an app's uninstall is SVC_STORE_REDACT_AFTER old (48 h by default) and it was not reinstalled",
  },
]);

/**
 * Recorded by the service itself, about one installation (API.md section 11.1): ingestion refuses them, since
 * only the consent, the disconnect and the redaction schedule know the installation they are about.
 */
const SERVICE_RECORDED: Readonly<Record<string, true>> = Object.freeze({
  'app.installed': true,
  'app.scopes_updated': true,
  'app.uninstalled': true,
  'store.redact': true,
});

export function isServiceRecorded(type: string): boolean {
  return Object.hasOwn(SERVICE_RECORDED, type);
}

const ANY_SCOPE: Readonly<Record<string, true>> = Object.freeze(
  Object.fromEntries(
    EVENT_CATALOG.filter((e) => e.category === 'apps' || e.category === 'privacy').map(
      (e) => [e.id, true] as const,
    ),
  ),
);

/**
 * Whether an installed app receives the type whatever its scopes: lifecycle (`apps`) and `privacy` events are
 * about the installation and the law, not about store data that `public:read` opens.
 */
export function reachesAnyScope(type: string): boolean {
  return Object.hasOwn(ANY_SCOPE, type);
}

// A frozen lookup rather than a module-level Set: the catalog is data, never state.
const IDS: Readonly<Record<string, true>> = Object.freeze(
  Object.fromEntries(EVENT_CATALOG.map((e) => [e.id, true] as const)),
);

export function isEventType(type: string): boolean {
  return Object.hasOwn(IDS, type);
}

/** The example `data` of this type, as published (a copy): test and triggered events start from it. */
export function sampleData(type: string): Record<string, unknown> {
  const payload = EVENT_PAYLOADS[type];
  if (!payload) throw new Error(`no payload schema for event type ${type}`);
  return structuredClone(payload.example);
}

/** The catalog as published: each definition with the JSON Schema of its `data` and an example. */
export const PUBLISHED_CATALOG = Object.freeze(
  EVENT_CATALOG.map((e) => ({
    ...e,
    schema: EVENT_PAYLOADS[e.id]!.schema,
    example: EVENT_PAYLOADS[e.id]!.example,
  })),
);
