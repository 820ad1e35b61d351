// `svc login` for a user with a second factor (API.md section 11.3): the password, then a code of the
// authenticator app read from the terminal (a real pseudo-terminal, allocated by util-linux `script`, so that
// the password is read with echo off and the code as a line), or from stdin's next line in a script; a
// recovery code works too, and a wrong code signs nobody in. The service's clock stands still; the test moves
// it to the next 30-second step before each code, as a user waits for the next one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { eventually } from '../support/eventually.ts';
import { signupMerchant, type TestMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { codeAt, enrolTotp, type Enrolled } from '../merchants/factors-support.ts';
import { runCli } from './cli-processes.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const clock = new TestClock();
let svc: TestService;
let m: TestMerchant;
let factor: Enrolled;
const configHome = mkdtempSync(join(tmpdir(), 'svc-cli-mfa-'));
const env = { XDG_CONFIG_HOME: configHome, HOME: configHome };

beforeAll(async () => {
  svc = await startTestService({ listen: true, clock });
  m = await signupMerchant(svc.app, 'CLI MFA');
  factor = await enrolTotp(svc.app, m.auth, clock);
}, 180_000);
afterAll(async () => {
  await svc?.close();
  rmSync(configHome, { recursive: true, force: true });
});

function nextCode(): string {
  clock.advance(30_000);
  return codeAt(factor.secret, clock.now());
}

it('reads the code from the terminal after the password', async () => {
  const command = ['node', 'bin/svc.js', 'login', '--email', m.email, '--api-url', svc.url].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, TERM: 'dumb', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const prompt = (text: string) =>
    eventually(async () => (out.includes(text) ? true : undefined), { timeoutMs: 20_000, what: () => out });
  await prompt('Password: ');
  child.stdin.write(`${m.password}\r`);
  await prompt('Code from the authenticator app, or a recovery code: ');
  child.stdin.write(`${nextCode()}\r`);
  expect(await exited).toBe(0);
  expect(out).toContain(`Signed in to ${svc.url} as ${m.email} (CLI MFA, ${m.merchantId}, owner)`);
  // Echo was off for the password, on for the code.
  expect(out).not.toContain(m.password);
  const whoami = await runCli(['members', 'list'], env);
  expect([whoami.status, whoami.stdout]).toEqual([0, expect.stringContaining(m.email)]);
});

it('reads the code, or a recovery code, from the next line of stdin in a script', async () => {
  const login = (second: string) =>
    runCli(['login', '--email', m.email, '--api-url', svc.url], env, `${m.password}\n${second}\n`);
  const byCode = await login(nextCode());
  expect(byCode.status).toBe(0);
  const byRecovery = await login(factor.recoveryCodes[0]!);
  expect(byRecovery.status).toBe(0);
  expect(byRecovery.stdout).toContain(`as ${m.email}`);
  const wrong = await login('000000');
  expect(wrong.status).toBe(1);
  expect(wrong.stderr).toContain('invalid_credentials');
});
