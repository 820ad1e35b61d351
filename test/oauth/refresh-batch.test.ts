// The fast paths' failures and the grants' last uses: a failed rotation or exchange statement answers 500 for
// its batch, logged and counted, never retried one by one; the last uses gathered before a stop are written.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { captureLogs } from '../support/logs.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import {
  basic,
  createApp,
  exchange,
  getCode,
  readWith,
  REDIRECT,
  refresh,
  tokenCall,
  type TestApp,
} from './helpers.ts';

let svc: TestService;
let dev: TestMerchant;
let shop: TestMerchant;
let client: TestApp;
const { stream: logStream, lines } = captureLogs();

beforeAll(async () => {
  svc = await startTestService({ logStream, env: { SVC_LOG_LEVEL: 'error' } });
  dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Shop');
  client = await createApp(svc.app, dev);
});
afterAll(async () => svc?.close());

async function failures(batch: 'refresh' | 'exchange'): Promise<number> {
  const metric = await svc.ctx.metrics.registry.getSingleMetric('svc_batch_failures_total')!.get();
  return metric.values.find((v) => v.labels.batch === batch)?.value ?? 0;
}

/** Every new access token breaks a constraint while `during` runs: a statement issuing one fails as a whole. */
async function refusingAccessTokens(during: () => Promise<void>): Promise<void> {
  await sql`alter table oauth_tokens add constraint test_no_access check (kind <> 'access') not valid`.execute(
    svc.ctx.db,
  );
  try {
    await during();
  } finally {
    await sql`alter table oauth_tokens drop constraint test_no_access`.execute(svc.ctx.db);
  }
}

it('a failed rotation statement answers 500, logged and counted, and the token stays usable', async () => {
  const a = await getCode(svc.app, client, shop);
  const tokens = await exchange(svc.app, client, a.code, a.verifier);
  await refusingAccessTokens(async () => {
    const res = await refresh(svc.app, client, tokens.refresh_token);
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toBe('server_error');
  });
  expect(await failures('refresh')).toBe(1);
  const logged = lines.find((l) => String(l.msg).startsWith('refresh rotation failed'));
  expect(logged).toMatchObject({ size: 1, err: { message: expect.stringContaining('test_no_access') } });
  // Nothing of the failed statement committed: the same token refreshes now.
  expect((await refresh(svc.app, client, tokens.refresh_token)).statusCode).toBe(200);
});

it('a failed exchange statement answers 500, logged and counted, and the code stays unused', async () => {
  const a = await getCode(svc.app, client, shop);
  await refusingAccessTokens(async () => {
    const res = await tokenCall(
      svc.app,
      { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT, code_verifier: a.verifier },
      basic(client),
    );
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toBe('server_error');
  });
  expect(await failures('exchange')).toBe(1);
  const logged = lines.find((l) => String(l.msg).startsWith('code exchange failed'));
  expect(logged).toMatchObject({ size: 1, err: { message: expect.stringContaining('test_no_access') } });
  // Nothing of the failed statement committed: the code was not used, and is exchanged now.
  const tokens = await exchange(svc.app, client, a.code, a.verifier);
  expect(await readWith(svc.app, tokens.access_token)).toBe(200);
});

// On PGlite a service sharing the database does not stop its modules (the database is the other's).
it.skipIf(DB_KIND === 'pglite')('writes the grants used since the last flush when it stops', async () => {
  const other = await startTestService({ shareWith: svc });
  const a = await getCode(other.app, client, shop);
  const tokens = await exchange(other.app, client, a.code, a.verifier);
  await sql`update oauth_grants set last_used_at = null`.execute(svc.ctx.db);
  expect(await readWith(other.app, tokens.access_token)).toBe(200);
  await other.close();
  const row = await svc.ctx.db
    .selectFrom('oauth_grants')
    .select('last_used_at')
    .where('merchant_id', '=', shop.merchantId)
    .executeTakeFirstOrThrow();
  expect(row.last_used_at).not.toBeNull();
});
