// The second-factor checks of API.md section 11.3, declared per merchant route beside its role (roles.ts) and
// run by the same hook (merchant-auth.ts), from what the session check already read: no query of their own.
//
// - `stepUp: 'always' | 'live'`: the route needs, from a user with a second factor, a factor verified within
//   the last STEP_UP_WINDOW_MS in this session (`live`: only when the call is in live mode); 403
//   `step_up_required` otherwise, and POST /auth/step-up opens the window. The list is in docs/decisions/0127-step-up-and-require-mfa.md.
// - `enrolment: true`: the route stays open to a member of a merchant that requires a second factor before the
//   member has one (enrolling, signing out, reading who one is); every other route answers 403
//   `mfa_enrolment_required` to such a member.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import type { MerchantPrincipal } from './request.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs a recent factor (API.md section 11.3): always, or in live mode only. */
    stepUp?: 'always' | 'live';
    /** The route is open to a member who must still enrol a second factor. */
    enrolment?: boolean;
  }
}

export const STEP_UP_WINDOW_MS = 10 * 60_000;

/** Whether the session verified a factor recently enough for a step-up route. */
export const steppedUp = (merchant: MerchantPrincipal, now: number): boolean =>
  merchant.steppedUpAt !== null && now - merchant.steppedUpAt < STEP_UP_WINDOW_MS;

export function checkSecondFactor(request: FastifyRequest, merchant: MerchantPrincipal): void {
  const config = request.routeOptions.config;
  if (merchant.requireMfa && !merchant.hasFactor && config.enrolment !== true) {
    throw new AppError(
      'mfa_enrolment_required',
      'This merchant requires a second factor: enrol one (Settings → Account) before anything else.',
    );
  }
  const stepUp = config.stepUp;
  if (stepUp === undefined || !merchant.hasFactor) return;
  if (stepUp === 'live' && request.mode !== 'live') return;
  if (!steppedUp(merchant, request.server.ctx.clock.now())) {
    throw new AppError(
      'step_up_required',
      'This needs a second factor verified in the last 10 minutes: POST /auth/step-up, then retry.',
    );
  }
}
