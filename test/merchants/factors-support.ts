// Second factors through the real routes, as a user with an authenticator app would: the TOTP codes are
// computed by `otpauth` from the secret the enrolment answered, at the service's (test) clock.
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { Clock } from '../../src/lib/time.ts';
import { call } from '../members/support.ts';

/** The code an authenticator shows at `at` (epoch ms). */
export const codeAt = (secret: string, at: number) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), digits: 6, period: 30, timestamp: at });

export interface Enrolled {
  secret: string;
  recoveryCodes: string[];
}

/** TOTP on for the signed-in user of `auth`, confirmed with the code of the clock's present step. */
export async function enrolTotp(
  app: FastifyInstance,
  auth: Record<string, string>,
  clock: Clock,
): Promise<Enrolled> {
  const started = await call(app, auth, 'POST', '/auth/mfa/totp');
  if (started.status !== 200) throw new Error(`enrol: ${started.status} ${JSON.stringify(started.body)}`);
  const secret = started.body.data.secret as string;
  const confirmed = await call(app, auth, 'POST', '/auth/mfa/totp/confirm', {
    code: codeAt(secret, clock.now()),
  });
  if (confirmed.status !== 200)
    throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { secret, recoveryCodes: confirmed.body.data.recovery_codes as string[] };
}

/** The first step of a sign-in: its `mfa_token`. */
export async function firstStep(app: FastifyInstance, who: { email: string; password: string }) {
  const res = await call(app, undefined, 'POST', '/auth/login', { email: who.email, password: who.password });
  if (res.status !== 200 || res.body.data.mfa_required !== true) {
    throw new Error(`login: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.data as { mfa_token: string; methods: string[] };
}
