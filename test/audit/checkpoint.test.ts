// Checkpoints and what verifies them (API.md section 11.5): an Ed25519 signature over the chain's tip that the
// published JWKS verifies, and that no longer verifies once any part of it changes; keys kept after a
// rotation; the service's own check of the chain, which finds a row edited or removed in the database. The
// services here set SVC_AUDIT_SIGNING_KEYS explicitly, on both databases (keys derived from the master key:
// derived-keys.test.ts).
import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_SIGNING_KEY, startTestService, type TestService } from '../support/service.ts';
import { eventually } from '../support/eventually.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import {
  allEntries,
  checkpointOf,
  jwks,
  sealAll,
  verifies,
  type Checkpoint,
  type Jwk,
} from './chain-support.ts';
import { loadConfig } from '../../src/config.ts';

let svc: TestService;
let m: TestMerchant;

const createKeys = (n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: m.auth,
        payload: { name: `key ${i}` },
      }),
    ),
  );

beforeAll(async () => {
  svc = await startTestService({ env: { SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY } });
  m = await signupMerchant(svc.app);
});
afterAll(() => svc?.close());

describe('checkpoints', () => {
  it('sign the tip of the chain, verify with the JWKS key, and fail once changed', async () => {
    await createKeys(5);
    const c = await checkpointOf(svc, m);
    // entries committed before the call are sealed first, so the checkpoint is the newest entry
    const newest = (await allEntries(svc, m))[0]!;
    expect(c).toMatchObject({
      merchant_id: m.merchantId,
      mode: 'test',
      sequence: 5,
      hash: newest.hash,
    });
    expect(newest.sequence).toBe(5);
    expect(c.signed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const keys = await jwks(svc);
    expect(verifies(c, keys)).toBe(true);

    const changed: Checkpoint[] = [
      { ...c, sequence: c.sequence + 1 },
      { ...c, hash: c.hash.replace(/^./, (d) => (d === '0' ? '1' : '0')) },
      { ...c, signed_at: new Date(Date.parse(c.signed_at) + 1).toISOString() },
      { ...c, mode: 'live' },
      { ...c, merchant_id: 'mer_someone_else' },
      { ...c, key_id: 'unknown' },
    ];
    for (const bad of changed) expect(verifies(bad, keys)).toBe(false);
  });

  it('of an empty chain: sequence 0 and 64 zeros, per mode', async () => {
    const c = await checkpointOf(svc, m, 'live');
    expect(c).toMatchObject({ mode: 'live', sequence: 0, hash: '0'.repeat(64) });
    expect(verifies(c, await jwks(svc))).toBe(true);
  });

  it('publish public keys only, as OKP Ed25519 with their thumbprint as kid', async () => {
    const res = await svc.app.inject({ url: '/.well-known/svc-audit-keys' });
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const keys = res.json<{ keys: Jwk[] }>().keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
      x: expect.stringMatching(/^[\w-]{43}$/),
      kid: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(keys[0]!.d).toBeUndefined();
  });

  it('signed before a rotation still verify with the keys published after it', async () => {
    const before = await checkpointOf(svc, m);
    const next = randomBytes(32).toString('base64');
    const rotated = await startTestService({
      shareWith: svc,
      env: { SVC_AUDIT_SIGNING_KEYS: `${next},${AUDIT_SIGNING_KEY}` },
    });
    let after: Checkpoint | undefined;
    try {
      const keys = await jwks(rotated);
      expect(keys).toHaveLength(2);
      expect(verifies(before, keys)).toBe(true);
      after = await checkpointOf(rotated, m);
      expect(after.key_id).toBe(keys[0]!.kid);
      expect(after.key_id).not.toBe(before.key_id);
      expect(verifies(after, keys)).toBe(true);
      // the retired key alone does not verify what the new one signed
      const retired = (await jwks(svc)).filter((k) => k.kid === before.key_id);
      expect(verifies(after, retired)).toBe(false);
      // a process still on the old key publishes the new one too, once recorded (its cache heard of it)
      await eventually(async () => verifies(after!, await jwks(svc)), {
        what: 'the new key in the JWKS of the process that was not restarted',
      });
    } finally {
      await rotated.close();
    }
    // The old key dropped from the list: still published, as recorded when a process started with it.
    const only = await startTestService({ shareWith: svc, env: { SVC_AUDIT_SIGNING_KEYS: next } });
    try {
      const keys = await jwks(only);
      expect(keys.map((k) => k.kid)).toEqual([after.key_id, before.key_id]);
      expect(verifies(before, keys)).toBe(true);
      expect((await checkpointOf(only, m)).key_id).toBe(after.key_id);
    } finally {
      await only.close();
    }
  });
});

describe('the chain check', () => {
  it('verifies the whole chain, and finds a row edited or removed in the database', async () => {
    const merchant = await signupMerchant(svc.app);
    for (let i = 0; i < 3; i++) {
      await svc.app.inject({
        method: 'POST',
        url: '/api/v1/merchant/api-keys',
        headers: merchant.auth,
        payload: { name: `k${i}` },
      });
    }
    await sealAll(svc);
    const check = async () => {
      const res = await svc.app.inject({
        url: '/api/v1/merchant/developer/logs/chain',
        headers: merchant.auth,
      });
      expect(res.statusCode).toBe(200);
      return res.json<{ data: Record<string, unknown> }>().data;
    };
    const entries = await allEntries(svc, merchant);
    expect(await check()).toMatchObject({
      state: 'verified',
      verified_through: { sequence: 3, hash: entries[0]!.hash, created_at: entries[0]!.created_at },
      broken: null,
      unsealed: 0,
    });

    const second = entries.find((e) => e.sequence === 2)!;
    await sql`update audit_logs set metadata = ${second.metadata.replace('"k1"', '"k9"')} where id = ${second.id}`.execute(
      svc.ctx.db,
    );
    expect(await check()).toMatchObject({
      state: 'broken',
      verified_through: { sequence: 1 },
      broken: { sequence: 2, id: second.id, issue: expect.stringMatching(/edited/) },
    });

    await sql`update audit_logs set metadata = ${second.metadata} where id = ${second.id}`.execute(
      svc.ctx.db,
    );
    expect((await check()).state).toBe('verified');
    await sql`delete from audit_logs where id = ${second.id}`.execute(svc.ctx.db);
    expect(await check()).toMatchObject({
      state: 'broken',
      verified_through: { sequence: 1 },
      broken: { sequence: 3, issue: expect.stringMatching(/sequence 3 follows 1/) },
    });
  });
});

describe('signing keys in the configuration', () => {
  const pgEnv = { DATABASE_URL: 'postgres://x/y', SVC_MASTER_KEY: randomBytes(32).toString('base64') };

  it('are derived from the master keys with PostgreSQL unless set, and a bad one is named', () => {
    // docs/operations.md: HKDF-SHA256 of each master key, no salt, this info, 32 bytes; the first signs
    const derived = (key: string) =>
      Buffer.from(
        hkdfSync(
          'sha256',
          Buffer.from(key, 'base64'),
          Buffer.alloc(0),
          'svc audit checkpoint signing key v1',
          32,
        ),
      );
    expect(loadConfig(pgEnv).auditSigningKeys).toEqual([derived(pgEnv.SVC_MASTER_KEY)]);
    const old = randomBytes(32).toString('base64');
    expect(
      loadConfig({ ...pgEnv, SVC_MASTER_KEY: `${pgEnv.SVC_MASTER_KEY},${old}` }).auditSigningKeys,
    ).toEqual([derived(pgEnv.SVC_MASTER_KEY), derived(old)]);
    expect(() =>
      loadConfig({ ...pgEnv, SVC_AUDIT_SIGNING_KEYS: `${randomBytes(32).toString('base64')},short` }),
    ).toThrow('SVC_AUDIT_SIGNING_KEYS (key 2 of 2) must be 32 bytes in base64');
    const two = [randomBytes(32), randomBytes(32)];
    expect(
      loadConfig({ ...pgEnv, SVC_AUDIT_SIGNING_KEYS: two.map((k) => k.toString('base64')).join(', ') })
        .auditSigningKeys,
    ).toEqual(two);
  });

  it('are generated into the data directory on the embedded default, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-keys-'));
    try {
      const env = { SVC_DATA_DIR: dir, SVC_MASTER_KEY: randomBytes(32).toString('base64') };
      const first = loadConfig(env).auditSigningKeys;
      expect(first).toHaveLength(1);
      expect(Buffer.from(readFileSync(join(dir, 'audit-signing.key'), 'utf8'), 'base64')).toEqual(first[0]);
      expect(loadConfig(env).auditSigningKeys).toEqual(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
