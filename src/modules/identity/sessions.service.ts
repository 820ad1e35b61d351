// A user's sessions (API.md section 11.2): listed with where they were opened and when they were last used,
// ended one by one, and a switch to another membership. The check of each call stays one read: its use is
// noted in memory and written in batches (`LastUses`, as the key pairs' last uses), so `last_used_at` trails
// by at most FLUSH_EVERY_MS, and this process's own unwritten uses are shown at once.
import type { Context } from '../../context.ts';
import type { SessionResolver } from '../../http/merchant-auth.ts';
import { notFound } from '../../lib/errors.ts';
import { LastUses } from '../../lib/last-uses.ts';
import { warnOnFailure } from '../../lib/loop.ts';
import { iso } from '../../lib/time.ts';
import * as users from './users.repository.ts';
import { findMember } from './memberships.repository.ts';
import {
  authenticateSession,
  openSession,
  type LoginResult,
  type SessionOrigin,
  type SessionPrincipal,
} from './account.service.ts';
import * as sessions from './sessions.repository.ts';

// A session's last use to within 10 s is all its list says ("2 minutes ago"); a dashboard makes a few calls a
// second at most, each noted in memory.
const FLUSH_EVERY_MS = 10_000;

export function createSessionUses(ctx: Context): LastUses {
  return new LastUses({
    name: 'session last-use flush',
    everyMs: FLUSH_EVERY_MS,
    write: (uses) => sessions.recordSessionUses(ctx.db, uses),
    onError: warnOnFailure(ctx.log),
  });
}

/** The merchant interface's session check: the session's membership, its use noted for the next batch. */
export function sessionResolver(uses: LastUses): SessionResolver {
  return async (ctx, token) => {
    const session = await authenticateSession(ctx, token);
    if (session) uses.note(session.sessionId, ctx.clock.now());
    return session;
  };
}

/** The user's live sessions in every merchant, `current` marking the caller's. */
export async function sessionsOfUser(ctx: Context, uses: LastUses, who: SessionPrincipal) {
  const rows = await sessions.sessionsOfUser(ctx.db, who.userId, new Date(ctx.clock.now()));
  return rows.map((r) => {
    const pending = uses.pending(r.id);
    const lastUsed = pending !== undefined && pending > (r.last_used_at?.getTime() ?? 0) ? pending : null;
    return {
      id: r.id,
      merchant_id: r.merchant_id,
      created_at: iso(r.created_at),
      last_used_at: iso(lastUsed === null ? r.last_used_at : new Date(lastUsed)),
      expires_at: iso(r.expires_at),
      ip: r.ip,
      user_agent: r.user_agent,
      current: r.id === who.sessionId,
    };
  });
}

/** Ends one of the user's sessions at once (any of them, the caller's own included); 404 for any other. */
export async function endSession(ctx: Context, who: SessionPrincipal, sessionId: string): Promise<void> {
  if (!(await sessions.deleteUserSession(ctx.db, who.userId, sessionId))) throw notFound('session');
}

/**
 * A session of the user's membership in `merchantId`, in place of the caller's: one session, one membership.
 * Another merchant's id is not found, as everywhere (API.md section 11.2).
 */
export async function switchMerchant(
  ctx: Context,
  who: SessionPrincipal,
  merchantId: string,
  origin: SessionOrigin,
): Promise<LoginResult> {
  return ctx.db.transaction().execute(async (trx) => {
    const member = await findMember(trx, merchantId, who.userId);
    const user = await users.findUserById(trx, who.userId);
    if (!member || !user) throw notFound('merchant');
    await sessions.deleteSession(trx, who.merchantId, who.sessionId);
    return openSession(ctx, trx, { user, merchantId, role: member.role }, origin);
  });
}
