// The routes of second factors (API.md section 11.3): the second step of a sign-in and a sign-in with a passkey
// alone, TOTP and recovery codes, passkeys, and step-up. What they check and write is the identity module's
// (users, sessions, recovery codes, passkeys, WebAuthn challenges, and the sign-in failure budgets every check
// draws on): these routes call its services through its index.ts.
import type { Context } from '../../context.ts';
import type { Module } from '../module.ts';
import type { SignInLimits } from '../identity/index.ts';
import { passkeyRoutes } from './passkeys.routes.ts';
import { signInFactorRoutes } from './sign-in-factors.routes.ts';
import { stepUpRoutes } from './step-up.routes.ts';
import { totpRoutes } from './totp.routes.ts';

export interface SecondFactorsDeps {
  /** The identity module's sign-in failure budgets, which every check of a code draws on. */
  readonly signIns: SignInLimits;
}

export function createSecondFactors(_ctx: Context, deps: SecondFactorsDeps): Module {
  const { signIns } = deps;
  return {
    name: 'second-factors',
    merchantRoutes: async (app) => {
      for (const routes of [signInFactorRoutes, totpRoutes, passkeyRoutes, stepUpRoutes]) {
        await app.register(routes, { signIns });
      }
    },
  };
}
