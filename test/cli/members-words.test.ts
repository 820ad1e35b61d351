// The CLI in words (issue 47): a value the service refuses is named with what it accepts ("role must be one
// of ..."), not the validator's own text; a second invitation to an address says it replaces the first, whose
// link then says it was replaced; and the CLI's session is named "svc CLI" on the Account page, from the user
// agent it sends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { call, tokenOf } from '../members/support.ts';
import { describeUserAgent } from '../../web/src/lib/user-agent.ts';
import { runCli } from './cli-processes.ts';

let svc: TestService;
let owner: TestMerchant;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-words-'));
const env = { XDG_CONFIG_HOME: configHome, HOME: configHome };

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  owner = await signupMerchant(svc.app, 'Words Ltd');
  const login = await runCli(
    ['login', '--email', owner.email, '--api-url', svc.url],
    env,
    `${owner.password}\n`,
  );
  expect(login.status).toBe(0);
}, 180_000);
afterAll(async () => {
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

it('names the field and what it accepts', async () => {
  const refused = await runCli(
    ['members', 'invite', '--email', 'ann@example.com', '--role', 'superuser'],
    env,
  );
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('role must be one of viewer, developer, admin, owner');
  expect(refused.stderr).not.toMatch(/must be equal to constant|must match/);
  const badEmail = await runCli(['members', 'invite', '--email', 'not-an-email', '--role', 'viewer'], env);
  expect(badEmail.status).toBe(1);
  expect(badEmail.stderr).toMatch(/email /);
  expect(badEmail.stderr).not.toMatch(/must match format/);
});

it('says that a second invitation replaces the first, whose link no longer works', async () => {
  const first = await runCli(['members', 'invite', '--email', 'bob@example.com', '--role', 'viewer'], env);
  expect(first.status).toBe(0);
  expect(first.stdout).not.toContain('replaces');
  const firstUrl = /^(http\S+#token=svc_inv_\S+)$/m.exec(first.stdout)![1]!;
  const second = await runCli(
    ['members', 'invite', '--email', 'bob@example.com', '--role', 'developer'],
    env,
  );
  expect(second.status).toBe(0);
  expect(second.stdout).toMatch(
    /It replaces the invitation sent .* \(inv_\S+, as viewer\), whose link no longer works\./,
  );
  const old = await call(svc.app, undefined, 'POST', '/auth/invitation', { token: tokenOf(firstUrl) });
  expect(old.body.error.code).toBe('invalid_invitation');
  expect(old.body.error.message).toContain('replaced by a newer one sent to the same address');
});

it('names the CLI\'s session "svc CLI"', async () => {
  const sessions = await call(svc.app, owner.auth, 'GET', '/auth/sessions');
  const agents = (sessions.body.data.items as { user_agent: string | null }[]).map((s) => s.user_agent);
  const cli = agents.find((a) => a?.startsWith('svc-cli'));
  expect(cli).toBeDefined();
  expect(describeUserAgent(cli)).toBe('svc CLI');
});
