// Memberships, for the members module, which manages a team (invitations, roles, removal) and writes its
// audit entries in the transaction it passes here. This module owns the table because every merchant call
// reads it with the session, in one statement (sessions.repository.ts):
// docs/decisions/0120-users-memberships-sessions.md.
import type { Context } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { Role } from '../../http/roles.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Page, Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import * as users from './users.repository.ts';
import * as members from './memberships.repository.ts';

export type { MemberRow } from './memberships.repository.ts';

export const presentMember = (m: members.MemberRow) => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role,
  joined_at: iso(m.joined_at),
  last_active_at: iso(m.last_active_at),
});
export type Member = ReturnType<typeof presentMember>;

/** The merchant's members, the longest-standing first: a team is small, so one page holds it. */
export async function listMembers(ctx: Context, scope: Scope): Promise<Page<Member>> {
  const items = (await members.listMembers(ctx.db, scope.merchantId)).map(presentMember);
  return { items, count: items.length, has_more: false, next_cursor: null };
}

/** The members a require-MFA setting would hold to enrolment: those without a second factor. */
export async function membersWithoutSecondFactor(
  ctx: Context,
  merchantId: string,
): Promise<{ id: string; email: string }[]> {
  return members.listMembersWithoutFactor(ctx.db, merchantId);
}

export async function findMember(db: Executor, merchantId: string, userId: string) {
  return members.findMember(db, merchantId, userId);
}

export async function findUserByEmail(db: Executor, email: string) {
  return users.findUserByEmail(db, email);
}

/**
 * 409 `conflict` when the member is the merchant's last owner, about to stop being one. The owners are read
 * under a row lock (whatever role the member had when it was read), so two owners demoting or removing each
 * other at once leave one of them owner.
 */
async function keepAnOwner(trx: Executor, member: members.MemberRow): Promise<void> {
  const owners = await members.lockOwners(trx, member.merchant_id);
  if (owners.length === 1 && owners[0] === member.id) {
    throw new AppError('conflict', 'A merchant always has an owner: make another member owner first.');
  }
}

/** Gives the member `role`; 409 `conflict` when it would leave the merchant without an owner. */
export async function setRole(trx: Executor, member: members.MemberRow, role: Role): Promise<void> {
  if (role !== 'owner') await keepAnOwner(trx, member);
  await members.updateRole(trx, member.merchant_id, member.id, role);
}

/**
 * Removes the member, and its sessions with it (the foreign key's cascade): the next call of any of them, on
 * any process, finds no session. 409 `conflict` for the last owner. `false` when it was no longer a member.
 */
export async function removeMembership(trx: Executor, member: members.MemberRow): Promise<boolean> {
  await keepAnOwner(trx, member);
  return members.deleteMembership(trx, member.merchant_id, member.id);
}

/** A user with this email, made with its password's hash; `undefined` when the email is taken. */
export async function createUser(
  trx: Executor,
  input: { email: string; passwordHash: string; name: string | null },
  at: number,
) {
  return users.insertUser(trx, {
    id: newId('usr', at),
    email: input.email,
    password_hash: input.passwordHash,
    name: input.name,
    created_at: new Date(at),
  });
}

/** The user joins the merchant with `role`; `undefined` when it is a member already. */
export async function joinMerchant(
  trx: Executor,
  merchantId: string,
  userId: string,
  role: Role,
  at: number,
) {
  return members.insertMembership(trx, {
    merchant_id: merchantId,
    user_id: userId,
    role,
    joined_at: new Date(at),
  });
}
