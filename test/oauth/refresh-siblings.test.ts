// Refresh grace without a silent takeover (API.md section 5, RFC 9700 4.14.2): a rotated refresh token
// presented again within 60 s issues a sibling pair and the pair issued before it stays valid; the first
// sibling refreshed revokes the others, which stay as tombstones; presenting a tombstone, or a token whose
// branch was already used, revokes the whole family and writes `oauth.refresh_reuse_detected`.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { TestClock } from '../support/clock.ts';
import { hashCredential } from '../../src/lib/credentials.ts';
import { sweepExpired } from '../../src/modules/oauth/index.ts';
import { createApp, exchange, getCode, readWith, refresh, type TestApp } from './helpers.ts';

let svc: TestService;
let shop: TestMerchant;
let client: TestApp;
const clock = new TestClock();

beforeAll(async () => {
  svc = await startTestService({ clock });
  const dev = await signupMerchant(svc.app, 'Dev Co');
  shop = await signupMerchant(svc.app, 'Shop');
  client = await createApp(svc.app, dev);
}, 180_000); // an embedded database starts slowly on a loaded machine
afterAll(async () => svc?.close());

interface Pair {
  access_token: string;
  refresh_token: string;
}

async function install(): Promise<Pair> {
  const a = await getCode(svc.app, client, shop);
  return exchange(svc.app, client, a.code, a.verifier);
}

async function rotate(token: string): Promise<Pair> {
  const res = await refresh(svc.app, client, token);
  if (res.statusCode !== 200) throw new Error(`refresh: ${res.statusCode} ${res.body}`);
  return res.json<Pair>();
}

async function refused(token: string): Promise<void> {
  const res = await refresh(svc.app, client, token);
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toBe('invalid_grant');
}

async function reuseEntries(): Promise<{ entity_id: string; metadata: string }[]> {
  const res = await svc.app.inject({
    url: '/api/v1/merchant/developer/logs?action=oauth.refresh_reuse_detected&limit=200',
    headers: shop.auth,
  });
  return res.json().data.items;
}

describe('refresh siblings', () => {
  it('lost response: a retry within the grace gets a sibling, both work until one is refreshed', async () => {
    const t0 = await install();
    const t1 = await rotate(t0.refresh_token); // the answer never reached the client
    const t2 = await rotate(t0.refresh_token); // the client retries with t0
    expect(t2.refresh_token).not.toBe(t1.refresh_token);
    // both branches are valid: the pair issued before the retry is not revoked
    expect(await readWith(svc.app, t1.access_token)).toBe(200);
    expect(await readWith(svc.app, t2.access_token)).toBe(200);
    const before = (await reuseEntries()).length;
    // the client goes on with t2: the first sibling refreshed revokes the other branch
    const t3 = await rotate(t2.refresh_token);
    expect(await readWith(svc.app, t1.access_token)).toBe(401);
    expect(await readWith(svc.app, t2.access_token)).toBe(200);
    expect(await readWith(svc.app, t3.access_token)).toBe(200);
    const t4 = await rotate(t3.refresh_token);
    expect(await readWith(svc.app, t4.access_token)).toBe(200);
    expect((await reuseEntries()).length).toBe(before);
  });

  it('racing refreshes: two concurrent uses of t0 both get a pair; the branch used first survives', async () => {
    const t0 = await install();
    const [x, y] = await Promise.all([
      refresh(svc.app, client, t0.refresh_token),
      refresh(svc.app, client, t0.refresh_token),
    ]);
    expect([x.statusCode, y.statusCode]).toEqual([200, 200]);
    const [px, py] = [x.json<Pair>(), y.json<Pair>()];
    expect(px.refresh_token).not.toBe(py.refresh_token);
    expect(await readWith(svc.app, px.access_token)).toBe(200);
    expect(await readWith(svc.app, py.access_token)).toBe(200);
    // the client kept y's answer (the last one written)
    const next = await rotate(py.refresh_token);
    expect(await readWith(svc.app, px.access_token)).toBe(401);
    expect(await readWith(svc.app, next.access_token)).toBe(200);
    expect(await readWith(svc.app, (await rotate(next.refresh_token)).access_token)).toBe(200);
  });

  it('many racing refreshes of one token: every answer is a pair, and exactly one branch lives on', async () => {
    const t0 = await install();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => refresh(svc.app, client, t0.refresh_token)),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    const pairs = answers.map((r) => r.json<Pair>());
    expect(new Set(pairs.map((p) => p.refresh_token)).size).toBe(6);
    const kept = pairs[3]!;
    await rotate(kept.refresh_token);
    const reads = await Promise.all(pairs.map((p) => readWith(svc.app, p.access_token)));
    expect(reads).toEqual(pairs.map((p) => (p === kept ? 200 : 401)));
  });

  it('attacker after the legitimate client moved on: replaying t0 revokes the family and is audited', async () => {
    const t0 = await install();
    const t1 = await rotate(t0.refresh_token); // legitimate rotation
    const t2 = await rotate(t1.refresh_token); // legitimate use of t1
    const before = (await reuseEntries()).length;
    await refused(t0.refresh_token); // the attacker replays t0 within the grace
    expect(await readWith(svc.app, t1.access_token)).toBe(401);
    expect(await readWith(svc.app, t2.access_token)).toBe(401);
    await refused(t2.refresh_token);
    const entries = await reuseEntries();
    expect(entries.length).toBe(before + 1);
    expect(JSON.parse(entries[0]!.metadata)).toMatchObject({
      family_revoked: true,
      reason: 'branch_already_used',
      client_id: client.client_id,
    });
  });

  it('attacker first: the replay gets a sibling, the legitimate refresh tombstones it, and its use is caught', async () => {
    const t0 = await install();
    const legit = await rotate(t0.refresh_token);
    const stolen = await rotate(t0.refresh_token); // within the grace: a sibling, nothing revoked yet
    expect(await readWith(svc.app, legit.access_token)).toBe(200);
    const legitNext = await rotate(legit.refresh_token); // the legitimate client refreshes first
    expect(await readWith(svc.app, stolen.access_token)).toBe(401);
    const before = (await reuseEntries()).length;
    await refused(stolen.refresh_token); // the tombstone: the whole family goes
    expect(await readWith(svc.app, legitNext.access_token)).toBe(401);
    await refused(legitNext.refresh_token);
    const entries = await reuseEntries();
    expect(entries.length).toBe(before + 1);
    expect(JSON.parse(entries[0]!.metadata)).toMatchObject({ reason: 'revoked_sibling' });
  });

  it('the other order: the attacker refreshes the sibling first, and the legitimate client is the one caught', async () => {
    const t0 = await install();
    const legit = await rotate(t0.refresh_token);
    const stolen = await rotate(t0.refresh_token);
    const stolenNext = await rotate(stolen.refresh_token);
    expect(await readWith(svc.app, legit.access_token)).toBe(401);
    await refused(legit.refresh_token);
    // the family is revoked: the attacker's branch stops too
    expect(await readWith(svc.app, stolenNext.access_token)).toBe(401);
    await refused(stolenNext.refresh_token);
  });

  it('a replay of t0 after the grace is reuse even when its branches are unused', async () => {
    const t0 = await install();
    const t1 = await rotate(t0.refresh_token);
    clock.advance(60_001); // the grace is 60 s of the service's clock
    await refused(t0.refresh_token);
    expect(await readWith(svc.app, t1.access_token)).toBe(401);
    expect(JSON.parse((await reuseEntries())[0]!.metadata)).toMatchObject({ reason: 'after_grace' });
  });

  it('a tombstone outlives its own expiry while its family lives, and goes when the family ends', async () => {
    const db = svc.ctx.db;
    const present = async (token: string) =>
      (
        await sql<{ n: number }>`select count(*)::int as n from oauth_tokens
                                  where hash = ${hashCredential(token)}`.execute(db)
      ).rows[0]!.n === 1;
    const past = () => new Date(clock.now() - 1000);
    const expire = (token: string) =>
      sql`update oauth_tokens set expires_at = ${past()}
           where hash = ${hashCredential(token)}`.execute(db);

    // family A: the tombstone expires, the live chain does not: the tombstone stays and still catches reuse
    const a0 = await install();
    const lost = await rotate(a0.refresh_token);
    const kept = await rotate(a0.refresh_token);
    const next = await rotate(kept.refresh_token); // `lost` becomes a tombstone
    await expire(lost.refresh_token);
    await sweepExpired(svc.ctx);
    expect(await present(lost.refresh_token)).toBe(true);
    await refused(lost.refresh_token);
    expect(await readWith(svc.app, next.access_token)).toBe(401);

    // family B: every other token of it expires too: the family is over and the sweep takes the tombstone
    const b0 = await install();
    const bLost = await rotate(b0.refresh_token);
    const bKept = await rotate(b0.refresh_token);
    const bNext = await rotate(bKept.refresh_token);
    await expire(bLost.refresh_token);
    await expire(bNext.refresh_token);
    await sweepExpired(svc.ctx);
    expect(await present(bLost.refresh_token)).toBe(true); // the spent tokens of the family still live
    await sql`update oauth_tokens set expires_at = ${past()}
               where family_id = (select family_id from oauth_tokens where hash = ${hashCredential(bLost.refresh_token)})`.execute(
      db,
    );
    await sweepExpired(svc.ctx);
    expect(await present(bLost.refresh_token)).toBe(false);
  });
});
