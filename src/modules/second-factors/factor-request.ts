// What the routes of second factors share: one factor out of a body, where a check came from, and the check
// before a factor is turned off (API.md section 11.3).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.ts';
import { auditContext, merchantOf } from '../../http/request.ts';
import { steppedUp } from '../../http/second-factor.ts';
import { AppError, invalid } from '../../lib/errors.ts';
import {
  confirmFactor,
  confirmPassword,
  deviceCookieOf,
  type FactorProof,
  type SignInLimits,
} from '../identity/index.ts';

export const ACCOUNT = ['Merchant account'];
export const SIGNED_IN = { role: 'viewer', enrolment: true } as const;

/** Exactly one factor in a body: 400 otherwise. */
export function oneFactor(body: FactorProof): FactorProof {
  const given = [body.code, body.recovery_code, body.passkey].filter((f) => f !== undefined).length;
  if (given !== 1) throw invalid('code', 'or recovery_code or passkey: give exactly one');
  return { code: body.code, recovery_code: body.recovery_code, passkey: body.passkey };
}

/** Where a check came from: its budgets (address, device cookie) and its log. */
export const origin = (request: FastifyRequest) => ({
  ip: request.ip,
  device: deviceCookieOf(request.cookies),
  log: request.log,
});

export const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

/** The password and a current factor of the signed-in user (a recent step-up counts): 403 otherwise. */
export async function checkTurnOff(
  signIns: SignInLimits,
  ctx: Context,
  request: FastifyRequest,
  body: { password: string } & FactorProof,
): Promise<void> {
  const audit = auditContext(request);
  const check = { ...origin(request), check: 'disable_factor', audit } as const;
  if (!(await confirmPassword(signIns, ctx, { ...check, password: body.password }))) {
    throw new AppError('forbidden', 'The password is wrong.');
  }
  const noFactor = body.code === undefined && body.recovery_code === undefined && !body.passkey;
  if (noFactor && steppedUp(merchantOf(request), ctx.clock.now())) return;
  if (!(await confirmFactor(signIns, ctx, { ...check, proof: oneFactor(body) }))) {
    throw new AppError('forbidden', 'The second factor is wrong.');
  }
}
