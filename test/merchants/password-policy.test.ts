// Passwords follow NIST SP 800-63B: at least 10 characters, no control characters, not a common, repetitive
// or sequential one, not the email. Refused with 400 validation_failed naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePassword, passwordProblem } from '../../src/lib/password-policy.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

let n = 0;
async function signup(password: string, email = `pw-${Date.now()}-${n++}@example.com`) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/v1/merchant/auth/signup',
    payload: { merchant_name: 'Policy shop', email, password },
  });
}

describe('signup refuses', () => {
  it.each([
    ['ten spaces', ' '.repeat(10)],
    ['ten NULs', '\u0000'.repeat(10)],
    ['a tab inside', 'long enough\tpw'],
    ['a line break inside', 'long enough\npw'],
    ['a common password', 'password123'],
    ['a common password with other case', 'PassWord123'],
    ['another common one', 'qwertyuiop'],
    ['digits in a row', '1234567890'],
    ['a run of letters', 'abcdefghijkl'],
    ['one character repeated', 'aaaaaaaaaaaa'],
    ['a short sequence repeated', 'abcabcabcabc'],
    ['nine characters', 'ninechars'],
  ])('%s with 400 validation_failed on the password field', async (_name, password) => {
    const res = await signup(password);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.details).toEqual([{ field: 'password', issue: expect.any(String) }]);
    expect(error.message).toMatch(/password/);
  });

  it('the email as the password', async () => {
    const email = `someone-long-${n++}@example.com`;
    const res = await signup(email, email);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('password must not be the email address.');
  });

  it('says why in words a person understands', async () => {
    expect((await signup('password123')).json().error.message).toBe(
      'password is one of the most commonly used passwords; choose another.',
    );
    expect((await signup(' '.repeat(10))).json().error.message).toBe(
      'password must not be one character or a short sequence repeated.',
    );
  });
});

describe('signup accepts', () => {
  it.each([
    ['a passphrase with spaces', 'correct horse battery'],
    ['non-ASCII letters', 'płatność w złotówkach'],
    ['an emoji passphrase', 'tacos 🌮 on tuesday'],
    ['ten random characters', 'q7#Lm2!xPz'],
  ])('%s', async (_name, password) => {
    expect((await signup(password)).statusCode).toBe(201);
  });
});

describe('the policy', () => {
  it('counts characters, not UTF-16 units: nine emoji are too short, ten are enough', () => {
    expect(passwordProblem('🌮'.repeat(4) + '🍕🌯🥗🍜🍣')).toMatch(/at least 10/);
    expect(passwordProblem('🌮🍕🌯🥗🍜🍣🍔🍟🥨🧀')).toBeUndefined();
  });

  it('refuses lone surrogates and DEL as well', () => {
    expect(passwordProblem('long enough\u007f')).toMatch(/control/);
    expect(passwordProblem('long enough\ud800')).toMatch(/control/);
  });

  it('passes every generated password (the demo merchant gets one)', () => {
    for (let i = 0; i < 500; i++) expect(passwordProblem(generatePassword())).toBeUndefined();
  });
});
