// Password hashes: scrypt at N = 2^15 unless a service is told otherwise in code (the suite's services are, to
// 2^10: test/support/service.ts); a stored hash is checked with the cost it names.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DUMMY_PASSWORD_HASH, PASSWORD_COST, hashPassword, verifyPassword } from '../../src/lib/passwords.ts';
import { signupMerchant } from '../support/merchants.ts';
import { startTestService, type TestService } from '../support/service.ts';

const services: TestService[] = [];
afterAll(() => Promise.all(services.map((s) => s.close())));

async function storedHash(overrides: { passwordCost?: number }): Promise<string> {
  const svc = await startTestService({ overrides });
  services.push(svc);
  const m = await signupMerchant(svc.app);
  const { rows } = await sql<{
    password_hash: string;
  }>`select password_hash from users where id = ${m.userId}`.execute(svc.ctx.db);
  return rows[0]!.password_hash;
}

describe('password hashes', () => {
  it('cost 2^15 by default, in the configuration from the environment and in a hash made without one', async () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    expect(PASSWORD_COST).toBe(15);
    expect(config.passwordCost).toBe(15);
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('checks a hash with the cost it names', async () => {
    const cheap = await hashPassword('correct horse battery', 10);
    expect(cheap.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
    expect(await verifyPassword('wrong horse battery', cheap)).toBe(false);
  });

  it('burns a full-cost run on the dummy hash, which opens nothing known', async () => {
    expect(DUMMY_PASSWORD_HASH.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).toBe(false);
    expect(await verifyPassword('correct horse battery', DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('a service stores its accounts at the cost of its configuration', async () => {
    expect((await storedHash({})).startsWith('scrypt$1024$')).toBe(true);
    expect((await storedHash({ passwordCost: 15 })).startsWith('scrypt$32768$')).toBe(true);
  });
});
