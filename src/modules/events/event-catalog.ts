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
]);

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
