// A merchant's team (API.md section 11.2): its members' roles, and removal. Owners are an owner's to manage
// (manager.ts); a merchant keeps at least one owner (the merchants module's `setRole` and `removeMembership`,
// under a lock).
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Role } from '../../http/roles.ts';
import { notFound } from '../../lib/errors.ts';
import { writeAudit } from '../audit/index.ts';
import { findMember, presentMember, removeMembership, setRole, type Member } from '../identity/index.ts';
import { credentialsSeenBy, type ExposedCredential } from './exposure.service.ts';
import { mayManage, type Manager } from './manager.ts';

async function memberOf(db: Executor, merchantId: string, userId: string) {
  const member = await findMember(db, merchantId, userId);
  if (!member) throw notFound('member');
  return member;
}

export async function changeRole(ctx: Context, by: Manager, userId: string, role: Role): Promise<Member> {
  const { audit } = by;
  return ctx.db.transaction().execute(async (trx) => {
    const member = await memberOf(trx, audit.merchantId, userId);
    mayManage(by.role, member.role, role);
    if (member.role === role) return presentMember(member);
    await setRole(trx, member, role);
    await writeAudit(trx, audit, {
      action: 'member.role_changed',
      entityType: 'member',
      entityId: member.id,
      fields: { email: member.email, role, previous_role: member.role },
    });
    return presentMember({ ...member, role });
  });
}

/**
 * Removes the member: its sessions end at once on every process (they go with the membership, and every call
 * reads its session). The answer lists the credentials it saw in clear that still work.
 */
export async function removeMember(
  ctx: Context,
  by: Manager,
  userId: string,
): Promise<{ removed: Member; exposed_credentials: ExposedCredential[] }> {
  const { audit } = by;
  const member = await memberOf(ctx.db, audit.merchantId, userId);
  mayManage(by.role, member.role);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await removeMembership(trx, member))) throw notFound('member');
    await writeAudit(trx, audit, {
      action: 'member.removed',
      entityType: 'member',
      entityId: member.id,
      fields: { email: member.email, role: member.role },
    });
  });
  return {
    removed: presentMember(member),
    exposed_credentials: await credentialsSeenBy(ctx, audit.merchantId, member.id),
  };
}
