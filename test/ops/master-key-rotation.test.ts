// Master-key rotation on both databases: webhooks made under key A, a restart with B,A and the rotation, a
// restart with B alone, and every webhook still signs deliveries that the official `standardwebhooks` library
// verifies, a stored idempotent answer (it carries a secret key) still replays, and a user's TOTP secret still
// checks its codes. A start with keys that
// open nothing stored fails naming SVC_MASTER_KEY.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AUDIT_SIGNING_KEY, DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { createWebhook, emit, INTERNAL_TOKEN, type CreatedWebhook } from '../webhooks/helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { rotateMasterKey, type RotationProgress } from '../../src/master-keys.ts';
import { masterKeyId } from '../../src/lib/secrets.ts';
import { codeAt, enrolTotp, firstStep, type Enrolled } from '../merchants/factors-support.ts';
import { systemClock } from '../../src/lib/time.ts';

const A = randomBytes(32);
const B = randomBytes(32);
const C = randomBytes(32);
const HOOKS = 5;

let first: TestService; // owns the database throughout; started under key A
let rx: Receiver;
let m: TestMerchant;
const hooks: CreatedWebhook[] = [];
const others: TestService[] = [];
// A key pair made with an Idempotency-Key: its answer, secret key included, is stored sealed.
const keyRequest = () =>
  ({
    method: 'POST',
    url: '/api/v1/merchant/api-keys',
    headers: { ...m.auth, 'idempotency-key': 'sealed-answer' },
    payload: {},
  }) as const;
let keyAnswer: string;
// A user with an authenticator app, in a merchant of its own (the webhooks' owner keeps no second factor).
let totpUser: TestMerchant;
let totp: Enrolled;

const start = async (keys: Buffer[], extra: Parameters<typeof startTestService>[0] = {}) => {
  const svc = await startTestService({
    shareWith: first,
    overrides: { masterKeys: keys },
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN },
    ...extra,
  });
  others.push(svc);
  return svc;
};

beforeAll(async () => {
  rx = await startReceiver();
  first = await startTestService({
    overrides: { masterKeys: [A] },
    env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN },
  });
  m = await signupMerchant(first.app);
  for (let i = 0; i < HOOKS; i++) hooks.push(await createWebhook(first, m, `${rx.url}/h${i}`));
  const made = await first.app.inject(keyRequest());
  expect(made.statusCode).toBe(201);
  keyAnswer = made.body;
  totpUser = await signupMerchant(first.app);
  totp = await enrolTotp(first.app, totpUser.auth, systemClock);
}, 180_000);

afterAll(async () => {
  for (const svc of others.reverse()) await svc.close();
  await first?.close();
  await rx?.close();
});

it('refuses to start without the key that sealed the stored secrets, naming the variable', async () => {
  await expect(start([B])).rejects.toThrow(/SVC_MASTER_KEY does not list master key [\w-]{8}/);
  await expect(start([C])).rejects.toThrow(/SVC_MASTER_KEY/);
});

it('re-seals every secret under the new key, in batches, and B alone then signs verifiable deliveries', async () => {
  const during = await start([B, A]);
  const progress: RotationProgress[] = [];
  const result = await rotateMasterKey(during.ctx, { batch: 2, onProgress: (p) => progress.push(p) });
  expect(result).toMatchObject({
    key_id: masterKeyId(B),
    webhooks: HOOKS,
    idempotent_answers: 1,
    totp_secrets: 1,
  });
  // three batches of at most two, the count left going down to zero
  expect(progress.filter((p) => p.kind === 'webhooks').map((p) => p.left)).toEqual([3, 1, 0]);
  expect(progress.filter((p) => p.kind === 'idempotent_answers')).toEqual([
    { kind: 'idempotent_answers', resealed: 1, left: 0 },
  ]);
  // resumable: a second run finds nothing left
  expect((await rotateMasterKey(during.ctx)).webhooks).toBe(0);
  await during.close();

  const after = await start([B], { workers: true, env: { SVC_INTERNAL_TOKEN: INTERNAL_TOKEN } });
  await emit(after, m);
  const received = await rx.waitFor(HOOKS, 20_000);
  for (const h of hooks) {
    const r = received.find((x) => x.path === new URL(h.url).pathname);
    expect(r, h.url).toBeDefined();
    expect(new Webhook(h.secret).verify(r!.body, r!.headers as Record<string, string>)).toMatchObject({
      type: 'order.created',
    });
  }
  // The secret a merchant sees is the one sealed under B.
  const reveal = await after.app.inject({
    method: 'POST',
    url: `/api/v1/merchant/webhooks/${hooks[0]!.id}/reveal-secret`,
    headers: m.auth,
    payload: { password: m.password },
  });
  expect(reveal.json().data.secret).toBe(hooks[0]!.secret);
  // and the stored answer, re-sealed under B, replays as it was first given
  const replayed = await after.app.inject(keyRequest());
  expect(replayed.headers['idempotent-replayed']).toBe('true');
  expect(replayed.body).toBe(keyAnswer);
  // and the TOTP secret, re-sealed under B, checks a code (the next step's: the enrolment took this one's)
  const { mfa_token } = await firstStep(after.app, totpUser);
  const signedIn = await after.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/login/mfa',
    payload: { mfa_token, code: codeAt(totp.secret, Date.now() + 30_000) },
  });
  expect(signedIn.statusCode).toBe(200);
  await after.close();
  // and A alone no longer opens anything
  await expect(start([A])).rejects.toThrow(/SVC_MASTER_KEY does not list master key/);
});

it.runIf(DB_KIND === 'pg')('runs as `svc rotate-master-key`, reporting progress', () => {
  const run = spawnSync(process.execPath, ['bin/svc.js', 'rotate-master-key', '--json'], {
    cwd: `${import.meta.dirname}/../..`,
    env: {
      PATH: process.env.PATH!,
      DATABASE_URL: first.databaseUrl!,
      SVC_MASTER_KEY: `${C.toString('base64')},${B.toString('base64')}`,
      SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
    },
    encoding: 'utf8',
  });
  expect(run.stderr).toContain(`re-sealed ${HOOKS} webhooks, 0 left`);
  expect(JSON.parse(run.stdout)).toMatchObject({ key_id: masterKeyId(C), webhooks: HOOKS });
  const missing = spawnSync(process.execPath, ['bin/svc.js', 'rotate-master-key'], {
    cwd: `${import.meta.dirname}/../..`,
    env: {
      PATH: process.env.PATH!,
      DATABASE_URL: first.databaseUrl!,
      SVC_MASTER_KEY: A.toString('base64'),
      SVC_AUDIT_SIGNING_KEYS: AUDIT_SIGNING_KEY,
    },
    encoding: 'utf8',
  });
  expect(missing.status).not.toBe(0);
  expect(missing.stderr).toMatch(/SVC_MASTER_KEY does not list master key/);
});
