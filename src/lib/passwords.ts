// scrypt from node:crypto: memory-hard, no native addon. N=2^15, r=8 uses 32 MiB and takes about 60 ms on
// this machine's cores, which is the cost OWASP recommends for scrypt.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** log2 of scrypt's N for new hashes (Config.passwordCost); a stored hash names its own, and is checked with it. */
export const PASSWORD_COST = 15;
const PARAMS = { r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

// One hash at a time: each takes 32 MiB, and four in parallel (a burst of sign-ins, or the signups of a
// benchmark) lifted the process's peak RSS by 128 MB. One at a time still verifies ~16 sign-ins a second.
// Process-wide on purpose: the memory it guards is the process's, however many services it runs.
// eslint-disable-next-line no-restricted-syntax
let queue: Promise<unknown> = Promise.resolve();

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  const run = () =>
    new Promise<Buffer>((resolve, reject) => {
      scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) =>
        err ? reject(err) : resolve(key),
      );
    });
  const result = queue.then(run, run);
  queue = result.catch(() => {});
  return result;
}

export async function hashPassword(password: string, cost: number = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scrypt(password, salt, { ...PARAMS, N });
  return `scrypt$${N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a password nobody knows (random bytes, thrown away once hashed), verified when the email is unknown
 * so that an unknown email and a wrong password cost the same scrypt run and answer in the same time. A
 * constant: hashing one as every process started cost each start a scrypt run. Sign-in needs a user as well as
 * a matching password, so even the lost password would open nothing.
 */
export const DUMMY_PASSWORD_HASH =
  'scrypt$32768$8$1$8onrX8jLp1xqttc6XL7Lpg==$fkvYKxkQFD3ZhtgW5WqsxMQ0JPJqTd1ABe9DMo+8uTY=';
