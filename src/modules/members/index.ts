// The members module: a merchant's team (API.md section 11.2). It owns invitations, and manages memberships
// (the merchants module's table, read with every session) through the merchants module's functions: roles,
// removal, the credentials a member saw (from the audit trail) and their rotation, the invitation email.
import type { Context } from '../../context.ts';
import type { KeyState } from '../api-keys/index.ts';
import type { SignInLimits } from '../identity/index.ts';
import type { AppsCache } from '../oauth-apps/index.ts';
import type { Module } from '../module.ts';
import { invitationRoutes } from './invitations.routes.ts';
import { createMailer } from './mailer.ts';
import { memberRoutes } from './members.routes.ts';

export interface MembersDeps {
  /** The sign-in failure budgets, which accepting with a password draws on. */
  readonly signIns: SignInLimits;
  /** What rotating the credentials a member saw goes through: the key and app caches to evict. */
  readonly keys: KeyState;
  readonly apps: AppsCache;
}

export function createMembers(ctx: Context, deps: MembersDeps): Module {
  const mailer = createMailer(ctx);
  return {
    name: 'members',
    merchantRoutes: async (app) => {
      await app.register(memberRoutes({ keys: deps.keys, apps: deps.apps }));
      await app.register(invitationRoutes({ mailer, signIns: deps.signIns }));
    },
    stop: () => mailer.close(),
  };
}
