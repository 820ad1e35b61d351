// The `data` of the events about installations (category `apps`) and about personal data (category
// `privacy`), API.md section 11.1: defined here like every other type's (event-payloads.ts), one JSON Schema
// and one realistic example each. An installation is a grant: `id` is the grant's, so that the events page
// finds every event of one installation by its `data.id`.
import { Type, type Static, type TSchema } from 'typebox';

const Id = (prefix: string, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    description,
    examples: [`${prefix}_01jd8z6q4m5x2c7k9h3t0w1bca`],
  });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC.' });
const Scopes = (description: string) =>
  Type.Array(
    Type.Union([Type.Literal('public:read'), Type.Literal('public:write')], {
      description: 'One right of the installation.',
    }),
    { description },
  );

const installationFields = {
  id: Id('grant', 'The installation (the same as grant_id).'),
  grant_id: Id('grant', 'The installation: the grant of the app by the merchant.'),
  app_id: Id('app', 'The app installed.'),
  merchant_id: Id('mer', 'The merchant that installed it.'),
  store_id: Type.Union([Type.String(), Type.Null()], { description: 'The store the app acts on.' }),
  scopes: Scopes("The installation's effective scopes: granted, within the app's allowed scopes."),
};

export const AppInstalled = Type.Object(
  { ...installationFields, installed_at: Timestamp },
  { title: 'AppInstalledData', description: 'The new installation, at the consent that made it.' },
);
export const AppScopesUpdated = Type.Object(
  {
    ...installationFields,
    previous_scopes: Scopes('The effective scopes before the change.'),
    cause: Type.Union([Type.Literal('consent'), Type.Literal('allowed_scopes')], {
      description:
        '`consent`: the merchant approved the app again with other scopes; `allowed_scopes`: the app changed ' +
        'what it may ask for.',
    }),
  },
  { title: 'AppScopesUpdatedData', description: 'The installation after its effective scopes changed.' },
);
export const AppUninstalled = Type.Object(
  {
    ...installationFields,
    reason: Type.Union([Type.Literal('merchant_disconnected'), Type.Literal('app_requested')], {
      description:
        'Why it ended: `merchant_disconnected`, the merchant disconnected the app; `app_requested`, the app ' +
        'uninstalled itself with an app token. Other reasons may be added within v1.',
    }),
    uninstalled_at: Timestamp,
  },
  {
    title: 'AppUninstalledData',
    description:
      'The installation that ended: its tokens no longer work. `scopes` are those it had. store.redact follows ' +
      'unless the merchant installs the app again.',
  },
);

const RequestedCustomer = Type.Object(
  {
    id: Id('cus', 'The customer.'),
    email: Type.Union([Type.String(), Type.Null()], { description: 'The customer email.' }),
    phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164 phone number.' }),
  },
  { title: 'PrivacyCustomer' },
);
const privacyFields = {
  store_id: Id('store', 'The store whose customer asked.'),
  customer: RequestedCustomer,
  requested_at: Timestamp,
};

export const CustomersDataRequest = Type.Object(
  {
    id: Id('dreq', 'The request.'),
    ...privacyFields,
    orders_requested: Type.Array(Type.String(), {
      description: 'Orders of the customer the request covers.',
    }),
  },
  {
    title: 'CustomersDataRequestData',
    description: 'A customer asked for the data held about them: send it to the merchant.',
  },
);
export const CustomersRedact = Type.Object(
  {
    id: Id('rdct', 'The request.'),
    ...privacyFields,
    orders_to_redact: Type.Array(Type.String(), { description: 'Orders whose personal data must go.' }),
  },
  {
    title: 'CustomersRedactData',
    description: "A customer asked to be erased: delete or anonymise their personal data, and their orders'.",
  },
);
export const StoreRedact = Type.Object(
  {
    id: Id('grant', 'The installation that ended (the same as grant_id).'),
    grant_id: Id('grant', 'The installation that ended.'),
    app_id: Id('app', 'The app.'),
    merchant_id: Id('mer', 'The merchant that uninstalled it.'),
    store_id: Type.Union([Type.String(), Type.Null()], { description: 'The store whose data must go.' }),
    uninstalled_at: Timestamp,
  },
  {
    title: 'StoreRedactData',
    description:
      'The app was uninstalled SVC_STORE_REDACT_AFTER ago (48 hours by default) and not installed again: ' +
      "erase everything it keeps about the store and its customers. Sent to the app's webhooks only.",
  },
);

const GRANT = 'grant_01jd8z6q4m5x2c7k9h3t0w1bca';
const installation = {
  id: GRANT,
  grant_id: GRANT,
  app_id: 'app_01jd8x2v6b9n3m5k7j9h1g3f5d',
  merchant_id: 'mer_01jd8x0a1b2c3d4e5f6g7h8j9k',
  store_id: 'store_01jd8z6q4m5x2c7k9h3t0w1bca',
  scopes: ['public:read', 'public:write'] as ('public:read' | 'public:write')[],
};
const customer = {
  id: 'cus_01jd8z5r2k7w4n6p8q0s3v5x7z',
  email: 'ada@example.com',
  phone: '+442079460958',
};

function payload<T extends TSchema>(schema: T, example: Static<T>) {
  return { schema, example: example as Record<string, unknown> };
}

/** By event type, merged into EVENT_PAYLOADS. */
export const APP_EVENT_PAYLOADS = {
  'app.installed': payload(AppInstalled, { ...installation, installed_at: '2026-11-21T10:00:00.000Z' }),
  'app.scopes_updated': payload(AppScopesUpdated, {
    ...installation,
    scopes: ['public:read'],
    previous_scopes: ['public:read', 'public:write'],
    cause: 'consent',
  }),
  'app.uninstalled': payload(AppUninstalled, {
    ...installation,
    reason: 'merchant_disconnected',
    uninstalled_at: '2026-11-25T08:30:00.000Z',
  }),
  'customers.data_request': payload(CustomersDataRequest, {
    id: 'dreq_01jd9a1b2c3d4e5f6g7h8j9k0m',
    store_id: installation.store_id,
    customer,
    orders_requested: ['ord_01jd8z6q4m5x2c7k9h3t0w1bcd'],
    requested_at: '2026-11-21T10:00:00.000Z',
  }),
  'customers.redact': payload(CustomersRedact, {
    id: 'rdct_01jd9a1b2c3d4e5f6g7h8j9k0n',
    store_id: installation.store_id,
    customer,
    orders_to_redact: ['ord_01jd8z6q4m5x2c7k9h3t0w1bcd'],
    requested_at: '2026-11-21T10:00:00.000Z',
  }),
  'store.redact': payload(StoreRedact, {
    id: GRANT,
    grant_id: GRANT,
    app_id: installation.app_id,
    merchant_id: installation.merchant_id,
    store_id: installation.store_id,
    uninstalled_at: '2026-11-25T08:30:00.000Z',
  }),
};
