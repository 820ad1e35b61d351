// `npx svc merchant create ... --json` against the test's database (PostgreSQL on the pg project; an embedded
// data directory on the pglite project), then the new merchant signs in over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DB_KIND, startTestService, type TestService } from '../support/service.ts';
import { runSvc } from '../support/processes.ts';

let svc: TestService | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
beforeAll(async () => {
  if (DB_KIND === 'pg') svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('creates a merchant, its owner and a store, and prints their ids as JSON', async () => {
  const email = `cli-${Date.now()}@example.com`;
  const run = runSvc(
    ['merchant', 'create', '--name', 'CLI shop', '--email', email, '--password', 'long enough pw', '--json'],
    { databaseUrl: svc?.databaseUrl, dataDir },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const out = JSON.parse(run.stdout);
  expect(out).toEqual({
    merchant_id: expect.stringMatching(/^mer_/),
    user_id: expect.stringMatching(/^usr_/),
    store_id: expect.stringMatching(/^store_/),
  });
  if (svc) {
    const login = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/merchant/auth/login',
      payload: { email, password: 'long enough pw' },
    });
    expect(login.json().data.merchant.id).toBe(out.merchant_id);
  }
  const again = runSvc(
    ['merchant', 'create', '--name', 'x', '--email', email, '--password', 'long enough pw'],
    { databaseUrl: svc?.databaseUrl, dataDir },
  );
  expect(again.status).toBe(1);
  expect(again.stderr).toMatch(/conflict/);
}, 180_000);

it('explains its usage and refuses bad input', () => {
  const none = runSvc([], { databaseUrl: svc?.databaseUrl, dataDir });
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/usage/);
  const short = runSvc(['merchant', 'create', '--name', 'x', '--email', 'a@b.co', '--password', 'short'], {
    databaseUrl: svc?.databaseUrl,
    dataDir,
  });
  expect(short.status).toBe(1);
  expect(short.stderr).toMatch(/password/);
  // The password policy of the HTTP routes (NIST SP 800-63B): a common password is refused here too.
  const common = runSvc(
    ['merchant', 'create', '--name', 'x', '--email', 'c@b.co', '--password', 'password123'],
    { databaseUrl: svc?.databaseUrl, dataDir },
  );
  expect(common.status).toBe(1);
  expect(common.stderr).toMatch(/--password is one of the most commonly used passwords/);
}, 120_000);
