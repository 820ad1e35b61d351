// The `data` of every event type, defined once as JSON Schema (TypeBox), with one realistic example each.
// These definitions drive the catalog route (`schema`, `example`), the OpenAPI `webhooks` section, the data of
// test and triggered events, and the validation of ingested events. Within v1 they only grow: new optional
// fields, never a removed, renamed or retyped one (docs/decisions/0079-payload-versioning-additive-within-v1.md).
// Objects allow unknown fields: receivers ignore what they do not know (seed 9.4), and ingestion keeps them.
// Money is an integer amount in the currency's minor unit (1999 EUR is 19.99 EUR).
import { Type, type Static, type TSchema } from 'typebox';
import { APP_EVENT_PAYLOADS } from './app-event-payloads.ts';

const Id = (prefix: string, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    description,
    examples: [`${prefix}_01jd8z6q4m5x2c7k9h3t0w1bca`],
  });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC.' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code, upper case.',
  examples: ['EUR'],
});
const Amount = (description: string) =>
  Type.Integer({ minimum: 0, description: `${description}, in the minor unit of the currency.` });
const StoreId = Id('store', 'The store the object belongs to.');
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const LineItem = Type.Object(
  {
    id: Id('li', 'The line item.'),
    product_id: Id('prod', 'The product.'),
    variant_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The variant, if the product has any.',
    }),
    sku: NullableString('Stock keeping unit.'),
    name: Type.String({ description: 'The product name as shown at checkout.' }),
    quantity: Type.Integer({ minimum: 1 }),
    unit_price: Amount('Price of one unit'),
    total: Amount('quantity × unit_price, before order-level discounts'),
  },
  { title: 'OrderLineItem' },
);

const OrderTotals = Type.Object(
  {
    subtotal: Amount('Sum of the line items'),
    discount: Amount('Discounts applied'),
    shipping: Amount('Shipping'),
    tax: Amount('Tax'),
    total: Amount('What the customer pays'),
  },
  { title: 'OrderTotals' },
);

const OrderStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('paid'), Type.Literal('fulfilled'), Type.Literal('cancelled')],
  { description: 'Where the order stands.' },
);

const orderFields = {
  id: Id('ord', 'The order.'),
  number: Type.String({ minLength: 1, description: 'The number the customer sees, e.g. "1042".' }),
  store_id: StoreId,
  status: OrderStatus,
  currency: Currency,
  customer_id: Type.Union([Type.String(), Type.Null()], { description: 'The customer; null for a guest.' }),
  email: NullableString("The customer's email for this order."),
  line_items: Type.Array(LineItem),
  totals: OrderTotals,
  created_at: Timestamp,
  updated_at: Timestamp,
};

const OrderCreated = Type.Object(orderFields, { title: 'OrderCreatedData', description: 'The new order.' });
const OrderPaid = Type.Object(
  {
    ...orderFields,
    paid_at: Timestamp,
    payment: Type.Object(
      {
        id: Id('pay', 'The payment.'),
        amount: Amount('Amount captured'),
        method: Type.String({ description: 'card, bank_transfer, wallet...' }),
      },
      { description: 'The payment that completed the order.' },
    ),
  },
  { title: 'OrderPaidData', description: 'The order, now paid.' },
);
const OrderCancelled = Type.Object(
  {
    ...orderFields,
    cancelled_at: Timestamp,
    cancel_reason: Type.Union(
      [
        Type.Literal('customer'),
        Type.Literal('fraud'),
        Type.Literal('inventory'),
        Type.Literal('declined'),
        Type.Literal('other'),
      ],
      { description: 'Why it was cancelled.' },
    ),
  },
  { title: 'OrderCancelledData', description: 'The order, now cancelled.' },
);
const OrderFulfilled = Type.Object(
  {
    ...orderFields,
    fulfilled_at: Timestamp,
    fulfillment: Type.Object(
      {
        carrier: NullableString('The carrier, e.g. "DHL".'),
        tracking_number: NullableString('The tracking number.'),
        tracking_url: NullableString('Where the customer follows the parcel.'),
      },
      { description: 'How the order left.' },
    ),
  },
  { title: 'OrderFulfilledData', description: 'The order, now fulfilled.' },
);

/** One line of a cart: the same shape in the public API's cart and in `cart.abandoned`. */
export const CartItem = Type.Object(
  {
    product_id: Id('prod', 'The product.'),
    variant_id: Type.Union([Type.String(), Type.Null()]),
    quantity: Type.Integer({ minimum: 1 }),
    unit_price: Amount('Price of one unit'),
  },
  { title: 'CartItem' },
);

const CartAbandoned = Type.Object(
  {
    id: Id('cart', 'The cart.'),
    store_id: StoreId,
    status: Type.Literal('abandoned'),
    items: Type.Array(CartItem, { description: 'What was in the cart.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    title: 'CartAbandonedData',
    description: 'The cart, as the public API shows it, after the abandonment period without activity.',
  },
);

const customerFields = {
  id: Id('cus', 'The customer.'),
  store_id: StoreId,
  email: Type.String({ description: 'The customer email.' }),
  first_name: NullableString('Given name.'),
  last_name: NullableString('Family name.'),
  phone: NullableString('E.164 phone number.'),
  accepts_marketing: Type.Boolean({ description: 'Whether the customer agreed to marketing email.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};
const CustomerCreated = Type.Object(customerFields, {
  title: 'CustomerCreatedData',
  description: 'The new customer profile.',
});
const CustomerUpdated = Type.Object(
  {
    ...customerFields,
    changed_fields: Type.Array(Type.String(), { description: 'The fields this update changed.' }),
  },
  { title: 'CustomerUpdatedData', description: 'The customer profile after the update.' },
);

const Variant = Type.Object(
  {
    id: Id('var', 'The variant.'),
    sku: NullableString('Stock keeping unit.'),
    title: Type.String({ description: 'e.g. "Large / Blue".' }),
    price: Amount('Price'),
    inventory_quantity: Type.Integer({ description: 'Units available.' }),
  },
  { title: 'ProductVariant' },
);
const productFields = {
  id: Id('prod', 'The product.'),
  store_id: StoreId,
  title: Type.String(),
  handle: Type.String({ description: 'URL slug, unique in the store.' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('draft'), Type.Literal('archived')]),
  description: NullableString('Plain text.'),
  currency: Currency,
  variants: Type.Array(Variant),
  created_at: Timestamp,
  updated_at: Timestamp,
};
const ProductCreated = Type.Object(productFields, {
  title: 'ProductCreatedData',
  description: 'The new product.',
});
const ProductUpdated = Type.Object(
  {
    ...productFields,
    changed_fields: Type.Array(Type.String(), { description: 'The fields this update changed.' }),
  },
  { title: 'ProductUpdatedData', description: 'The product after the update.' },
);
const ProductDeleted = Type.Object(
  {
    id: Id('prod', 'The product that no longer exists.'),
    store_id: StoreId,
    handle: Type.String({ description: 'Its URL slug, now free.' }),
    deleted_at: Timestamp,
  },
  { title: 'ProductDeletedData', description: 'What remains of a deleted product: its identity.' },
);

const InventoryLowStock = Type.Object(
  {
    id: Id('inv', 'The inventory item (one variant at one location).'),
    store_id: StoreId,
    product_id: Id('prod', 'The product.'),
    variant_id: Type.Union([Type.String(), Type.Null()]),
    sku: NullableString('Stock keeping unit.'),
    location_id: NullableString('The stock location; null for the default one.'),
    available: Type.Integer({ description: 'Units available now.' }),
    threshold: Type.Integer({ minimum: 0, description: 'The level it dropped below.' }),
    updated_at: Timestamp,
  },
  {
    title: 'InventoryLowStockData',
    description: 'The inventory item whose stock dropped below its threshold.',
  },
);

const DiscountRedeemed = Type.Object(
  {
    id: Id('disc', 'The discount.'),
    store_id: StoreId,
    code: Type.String({ description: 'The code the customer entered.' }),
    kind: Type.Union([
      Type.Literal('percentage'),
      Type.Literal('fixed_amount'),
      Type.Literal('free_shipping'),
    ]),
    value: Type.Number({
      minimum: 0,
      description: 'Percent for percentage, minor units for fixed_amount, 0 for free_shipping.',
    }),
    currency: Type.Union([Currency, Type.Null()], { description: 'For fixed_amount; null otherwise.' }),
    order_id: Id('ord', 'The order it was redeemed on.'),
    customer_id: Type.Union([Type.String(), Type.Null()], { description: 'Null for a guest.' }),
    amount_discounted: Amount('What it took off this order'),
    times_redeemed: Type.Integer({ minimum: 1, description: 'Redemptions so far, this one included.' }),
    usage_limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Null: unlimited.' }),
    redeemed_at: Timestamp,
  },
  { title: 'DiscountRedeemedData', description: 'The discount, with the redemption that happened.' },
);

const PayoutProcessed = Type.Object(
  {
    id: Id('po', 'The payout.'),
    amount: Amount('Amount paid out'),
    currency: Currency,
    status: Type.Literal('paid'),
    arrival_date: Type.String({
      format: 'date',
      description: 'The day the funds reach the bank (YYYY-MM-DD).',
    }),
    destination: Type.Object(
      {
        type: Type.Union([Type.Literal('bank_account'), Type.Literal('card')]),
        bank_name: NullableString('The bank, when known.'),
        last4: Type.String({ pattern: '^[0-9]{4}$', description: 'Last four digits of the account.' }),
      },
      { description: 'Where the money goes.' },
    ),
    statement_descriptor: NullableString('What the bank statement shows.'),
    created_at: Timestamp,
    processed_at: Timestamp,
  },
  { title: 'PayoutProcessedData', description: 'The payout sent to the merchant.' },
);

const SubscriptionRenewed = Type.Object(
  {
    id: Id('sub', 'The subscription.'),
    store_id: StoreId,
    customer_id: Id('cus', 'The subscriber.'),
    status: Type.Literal('active'),
    plan: Type.Object(
      {
        id: Id('plan', 'The plan.'),
        name: Type.String(),
        interval: Type.Union([
          Type.Literal('day'),
          Type.Literal('week'),
          Type.Literal('month'),
          Type.Literal('year'),
        ]),
        interval_count: Type.Integer({ minimum: 1 }),
        amount: Amount('Price per period'),
        currency: Currency,
      },
      { description: 'What the customer subscribes to.' },
    ),
    current_period_start: Timestamp,
    current_period_end: Timestamp,
    order_id: Type.Union([Type.String(), Type.Null()], { description: 'The order this renewal made.' }),
    renewed_at: Timestamp,
    cancel_at: NullableTimestamp,
  },
  { title: 'SubscriptionRenewedData', description: 'The subscription, after a successful renewal.' },
);

const STORE = 'store_01jd8z6q4m5x2c7k9h3t0w1bca';
const CUSTOMER = 'cus_01jd8z5r2k7w4n6p8q0s3v5x7z';
const PRODUCT = 'prod_01jd8y1a2b3c4d5e6f7g8h9j0k';

const lineItems: Static<typeof LineItem>[] = [
  {
    id: 'li_01jd8z6q4m0001',
    product_id: PRODUCT,
    variant_id: 'var_01jd8y1a2b3c4d5e6f7g8h9j1m',
    sku: 'TEE-BLU-L',
    name: 'Organic cotton tee, Large / Blue',
    quantity: 2,
    unit_price: 2500,
    total: 5000,
  },
  {
    id: 'li_01jd8z6q4m0002',
    product_id: 'prod_01jd8y9z8x7w6v5u4t3s2r1q0p',
    variant_id: null,
    sku: 'TOTE-NAT',
    name: 'Canvas tote bag',
    quantity: 1,
    unit_price: 1800,
    total: 1800,
  },
];

const order: Static<typeof OrderCreated> = {
  id: 'ord_01jd8z6q4m5x2c7k9h3t0w1bca',
  number: '1042',
  store_id: STORE,
  status: 'open',
  currency: 'EUR',
  customer_id: CUSTOMER,
  email: 'ada@example.com',
  line_items: lineItems,
  totals: { subtotal: 6800, discount: 680, shipping: 490, tax: 1224, total: 7834 },
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
};

const customer: Static<typeof CustomerCreated> = {
  id: CUSTOMER,
  store_id: STORE,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone: '+442071234567',
  accepts_marketing: true,
  created_at: '2026-11-20T08:30:00.000Z',
  updated_at: '2026-11-20T08:30:00.000Z',
};

const product: Static<typeof ProductCreated> = {
  id: PRODUCT,
  store_id: STORE,
  title: 'Organic cotton tee',
  handle: 'organic-cotton-tee',
  status: 'active',
  description: 'A heavyweight tee in GOTS-certified organic cotton.',
  currency: 'EUR',
  variants: [
    {
      id: 'var_01jd8y1a2b3c4d5e6f7g8h9j1m',
      sku: 'TEE-BLU-L',
      title: 'Large / Blue',
      price: 2500,
      inventory_quantity: 42,
    },
    {
      id: 'var_01jd8y1a2b3c4d5e6f7g8h9j1n',
      sku: 'TEE-BLU-M',
      title: 'Medium / Blue',
      price: 2500,
      inventory_quantity: 17,
    },
  ],
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T09:00:00.000Z',
};

export interface EventPayload {
  /** The JSON Schema of the event's `data`. */
  schema: TSchema;
  /** A realistic `data`, valid against the schema: test and triggered events are made from it. */
  example: Record<string, unknown>;
}

function payload<T extends TSchema>(schema: T, example: Static<T>): EventPayload {
  return { schema, example: example };
}

/** By event type: every type of the catalog has exactly one entry (a test checks it). */
export const EVENT_PAYLOADS: Readonly<Record<string, EventPayload>> = Object.freeze({
  'order.created': payload(OrderCreated, order),
  'order.paid': payload(OrderPaid, {
    ...order,
    status: 'paid',
    updated_at: '2026-11-21T10:01:12.000Z',
    paid_at: '2026-11-21T10:01:12.000Z',
    payment: { id: 'pay_01jd8z7b3n8y1d4f6h8k0m2p4r', amount: 7834, method: 'card' },
  }),
  'order.cancelled': payload(OrderCancelled, {
    ...order,
    status: 'cancelled',
    updated_at: '2026-11-21T12:30:00.000Z',
    cancelled_at: '2026-11-21T12:30:00.000Z',
    cancel_reason: 'customer',
  }),
  'order.fulfilled': payload(OrderFulfilled, {
    ...order,
    status: 'fulfilled',
    updated_at: '2026-11-22T15:45:00.000Z',
    fulfilled_at: '2026-11-22T15:45:00.000Z',
    fulfillment: {
      carrier: 'DHL',
      tracking_number: '00340434161234567890',
      tracking_url: 'https://www.dhl.com/track?tracking-id=00340434161234567890',
    },
  }),
  'cart.abandoned': payload(CartAbandoned, {
    id: 'cart_01jd8z2w9e4r6t8y0u2i4o6p8a',
    store_id: STORE,
    status: 'abandoned',
    items: [
      { product_id: PRODUCT, variant_id: 'var_01jd8y1a2b3c4d5e6f7g8h9j1m', quantity: 1, unit_price: 2500 },
    ],
    created_at: '2026-11-20T17:12:04.000Z',
    updated_at: '2026-11-21T17:12:04.000Z',
  }),
  'customer.created': payload(CustomerCreated, customer),
  'customer.updated': payload(CustomerUpdated, {
    ...customer,
    phone: '+442079460000',
    updated_at: '2026-11-21T11:05:00.000Z',
    changed_fields: ['phone'],
  }),
  'product.created': payload(ProductCreated, product),
  'product.updated': payload(ProductUpdated, {
    ...product,
    description: 'A heavyweight tee in GOTS-certified organic cotton. Now in Medium.',
    updated_at: '2026-11-21T09:40:00.000Z',
    changed_fields: ['description', 'variants'],
  }),
  'product.deleted': payload(ProductDeleted, {
    id: PRODUCT,
    store_id: STORE,
    handle: 'organic-cotton-tee',
    deleted_at: '2026-11-23T16:00:00.000Z',
  }),
  'inventory.low_stock': payload(InventoryLowStock, {
    id: 'inv_01jd8z9k1m3n5p7q9s1t3v5w7x',
    store_id: STORE,
    product_id: PRODUCT,
    variant_id: 'var_01jd8y1a2b3c4d5e6f7g8h9j1n',
    sku: 'TEE-BLU-M',
    location_id: null,
    available: 4,
    threshold: 5,
    updated_at: '2026-11-21T14:20:00.000Z',
  }),
  'discount.redeemed': payload(DiscountRedeemed, {
    id: 'disc_01jd8x4c6e8g0j2l4n6q8s0u2w',
    store_id: STORE,
    code: 'WELCOME10',
    kind: 'percentage',
    value: 10,
    currency: null,
    order_id: order.id,
    customer_id: CUSTOMER,
    amount_discounted: 680,
    times_redeemed: 37,
    usage_limit: 500,
    redeemed_at: '2026-11-21T10:00:00.000Z',
  }),
  'payout.processed': payload(PayoutProcessed, {
    id: 'po_01jd90a1c3e5g7j9l1n3q5s7u9',
    amount: 128_450,
    currency: 'EUR',
    status: 'paid',
    arrival_date: '2026-11-24',
    destination: { type: 'bank_account', bank_name: 'ING', last4: '4321' },
    statement_descriptor: 'SVC PAYOUT',
    created_at: '2026-11-21T06:00:00.000Z',
    processed_at: '2026-11-21T06:00:04.000Z',
  }),
  'subscription.renewed': payload(SubscriptionRenewed, {
    id: 'sub_01jd7w2y4a6c8e0g2j4l6n8q0s',
    store_id: STORE,
    customer_id: CUSTOMER,
    status: 'active',
    plan: {
      id: 'plan_01jd7v1x3z5b7d9f1h3k5m7p9r',
      name: 'Coffee club, monthly',
      interval: 'month',
      interval_count: 1,
      amount: 2400,
      currency: 'EUR',
    },
    current_period_start: '2026-11-21T00:00:00.000Z',
    current_period_end: '2026-12-21T00:00:00.000Z',
    order_id: 'ord_01jd90b2d4f6h8k0m2p4r6t8v0',
    renewed_at: '2026-11-21T00:00:03.000Z',
    cancel_at: null,
  }),
  ...APP_EVENT_PAYLOADS,
});
