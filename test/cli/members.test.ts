// `svc login --merchant` for a user of several merchants, and `svc members list|invite|remove` as an owner
// uses them against a running service: the invitation's link printed once, a member removed by email with the
// credentials it saw listed, and the role the routes need refused with the role named.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { addMember, call, invite, tokenOf, type TestMember } from '../members/support.ts';
import { runCli } from './cli-processes.ts';

let svc: TestService;
let owner: TestMerchant;
let client: TestMerchant;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-members-'));
const env = { XDG_CONFIG_HOME: configHome, HOME: configHome };

beforeAll(async () => {
  svc = await startTestService({ listen: true });
  owner = await signupMerchant(svc.app, 'CLI owner');
  client = await signupMerchant(svc.app, 'CLI client');
  // The owner is also a viewer of the client's merchant, joined last: sign-in opens that one.
  const invitation = await invite(svc.app, client, owner.email, 'viewer');
  const joined = await call(svc.app, undefined, 'POST', '/auth/accept-invitation', {
    token: tokenOf(invitation.url),
    password: owner.password,
  });
  expect(joined.status).toBe(200);
}, 180_000);
afterAll(async () => {
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

const login = (args: string[]) =>
  runCli(['login', '--email', owner.email, '--api-url', svc.url, ...args], env, `${owner.password}\n`);

it('signs in to the merchant used last, and to another with --merchant', async () => {
  const last = await login([]);
  expect(last.status).toBe(0);
  expect(last.stdout).toContain(`(CLI client, ${client.merchantId}, viewer)`);
  expect(last.stdout).toContain(`Also a member of CLI owner (${owner.merchantId})`);

  const refused = await runCli(['members', 'invite', '--email', 'x@example.com', '--role', 'viewer'], env);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('forbidden: This needs the admin role or above; you are a viewer.');

  const chosen = await login(['--merchant', owner.merchantId]);
  expect(chosen.status).toBe(0);
  expect(chosen.stdout).toContain(`(CLI owner, ${owner.merchantId}, owner)`);

  const stranger = await login(['--merchant', 'mer_0000000000aaaaaaaaaaaaaaaaaaaa']);
  expect(stranger.status).toBe(1);
  expect(stranger.stderr).toContain('is not a member of mer_0000000000aaaaaaaaaaaaaaaaaaaa');
});

it('invites, lists and removes members', async () => {
  expect((await login(['--merchant', owner.merchantId])).status).toBe(0);
  const invited = await runCli(
    ['members', 'invite', '--email', 'newdev@example.com', '--role', 'developer'],
    env,
  );
  expect(invited.stderr).toBe('');
  const url = /^(http\S+#token=svc_inv_\S+)$/m.exec(invited.stdout)?.[1];
  expect(url).toBeDefined();
  const accepted = await call(svc.app, undefined, 'POST', '/auth/accept-invitation', {
    token: tokenOf(url!),
    password: 'a developer password',
  });
  expect(accepted.status).toBe(200);
  const dev: TestMember = {
    ...owner,
    email: 'newdev@example.com',
    userId: accepted.body.data.user.id,
    auth: { authorization: `Bearer ${accepted.body.data.token as string}` },
    role: 'developer',
  };
  const key = await call(svc.app, dev.auth, 'POST', '/api-keys', { name: 'seen by the developer' });
  const viewer = await addMember(svc.app, owner, 'viewer');

  const listed = await runCli(['members', 'list', '--json'], env);
  const members = JSON.parse(listed.stdout) as { email: string; role: string }[];
  expect(members.map((m) => [m.email, m.role])).toEqual([
    [owner.email, 'owner'],
    ['newdev@example.com', 'developer'],
    [viewer.email, 'viewer'],
  ]);
  const table = await runCli(['members', 'list'], env);
  expect(table.stdout).toMatch(/^EMAIL\s+ROLE\s+LAST ACTIVE\s+ID$/m);

  const removed = await runCli(['members', 'remove', 'NewDev@example.com'], env);
  expect(removed.stderr).toBe('');
  expect(removed.status).toBe(0);
  expect(removed.stdout).toContain('Removed newdev@example.com (developer); its sessions have ended.');
  expect(removed.stdout).toMatch(
    new RegExp(`api_key\\s+${key.body.data.id as string}\\s+seen by the developer`),
  );
  expect((await call(svc.app, dev.auth, 'GET', '/me')).status).toBe(401);

  const json = await runCli(['members', 'remove', viewer.userId, '--json'], env);
  expect(JSON.parse(json.stdout)).toMatchObject({ removed: { id: viewer.userId }, exposed_credentials: [] });
  const gone = await runCli(['members', 'remove', 'nobody@example.com'], env);
  expect([gone.status, gone.stderr]).toEqual([
    1,
    'svc: nobody@example.com is not a member of this merchant.\n',
  ]);
});
