// Apps for the app-webhook measures (API.md section 11.1): apps with a webhook each, installed through the
// real consent endpoints; and, for ten thousand installations, stores seeded straight into the database
// (10,000 sign-ups through HTTP would spend minutes hashing passwords before the measure starts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { authorize, createApp, inParallel, type Api, type Merchant, type OAuthApp } from './api.ts';

export interface AppWithWebhook extends OAuthApp {
  webhookId: string;
  secret: string;
}

/** An app of `owner` with one webhook on `url` subscribed to `event`. */
export async function appWithWebhook(
  api: Api,
  owner: Merchant,
  url: string,
  event: string,
): Promise<AppWithWebhook> {
  const app = await createApp(api, owner);
  const { data } = await api.expect(201, 'POST', '/api/v1/merchant/webhooks', {
    token: owner.token,
    body: { url, events: [event], app_id: app.id },
  });
  return { ...app, webhookId: data.id as string, secret: data.secret as string };
}

/** `count` apps, each with a webhook, each installed by `merchant` through the consent endpoints. */
export async function installedApps(
  api: Api,
  owner: Merchant,
  merchant: Merchant,
  count: number,
  url: (i: number) => string,
  event: string,
): Promise<AppWithWebhook[]> {
  return inParallel(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const app = await appWithWebhook(api, owner, url(i), event);
      await authorize(api, merchant, app);
      return app;
    },
  );
}

/**
 * `count` merchants, each with a store and an installation (read access) of the app, written in three
 * statements; answers the merchants' ids. The fan-out reads them as it reads any grant.
 */
export async function seedInstallations(
  databaseUrl: string,
  appId: string,
  count: number,
): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ id: string }>(
      `insert into merchants (id, name)
       select 'mer_bn' || $1 || lpad(i::text, 7, '0'), 'Bench store ' || i from generate_series(1, $2) i
       returning id`,
      [tag, count],
    );
    await client.query(
      `insert into stores (id, merchant_id, name)
       select 'store_bn' || substr(id, 7), id, name from merchants where id like 'mer_bn' || $1 || '%'`,
      [tag],
    );
    await client.query(
      `insert into oauth_grants (id, app_id, merchant_id, mode, scopes, store_id)
       select 'grant_bn' || substr(m.id, 7), $2, m.id, 'test', 'public:read', 'store_bn' || substr(m.id, 7)
       from merchants m where m.id like 'mer_bn' || $1 || '%'`,
      [tag, appId],
    );
    await client.query('commit');
    // Vacuumed now rather than by autovacuum in the middle of the measure that follows; the checkpoint
    // writes the seed's WAL out before it too.
    await client.query('vacuum (analyze) merchants, stores, oauth_grants');
    await client.query('checkpoint');
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}
