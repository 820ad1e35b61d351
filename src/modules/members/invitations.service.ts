// Invitations (API.md section 11.2): a single-use `svc_inv_` token (checksummed, stored as SHA-256) valid for
// seven days, shown once in the answer and sent by email when a mail server is configured. Accepting it makes
// the membership: for an email without an account, with the password set here; for an existing user, who
// proves it with its password (the one password check, with its failure budgets and `member.auth_failed`) or
// with a session of that user. Every outcome that is not a pending token answers `invalid_invitation` alike.
import type { Context } from '../../context.ts';
import type { Role } from '../../http/roles.ts';
import type { FastifyBaseLogger } from 'fastify';
import { userActor, type MerchantPrincipal, type RequestMeta } from '../../http/request.ts';
import { hashCredential, makeCredential, parseCredential, type Mode } from '../../lib/credentials.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../../lib/passwords.ts';
import type { Page, Scope } from '../../lib/scope.ts';
import { iso } from '../../lib/time.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import { merchantName } from '../merchants/index.ts';
import {
  checkPassword,
  confirmPassword,
  createUser,
  findMember,
  findUserByEmail,
  joinMerchant,
  openSession,
  type LoginResult,
  type SignInLimits,
  type UserRow,
} from '../identity/index.ts';
import * as repo from './invitations.repository.ts';
import type { Mailer } from './mailer.ts';
import { mayManage, type Manager } from './manager.ts';

const INVITATION_TTL_MS = 7 * 86_400_000;

export const presentInvitation = (row: repo.InvitationRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  created_at: iso(row.created_at),
  expires_at: iso(row.expires_at),
});

const invalid = () =>
  new AppError(
    'invalid_invitation',
    'This invitation is unknown, used, withdrawn or expired: ask for a new one.',
  );

// Said to the holder of a replaced link only: it names no one, and the newer link went to the same address.
const replaced = () =>
  new AppError(
    'invalid_invitation',
    'This invitation was replaced by a newer one sent to the same address: use the link of the newest ' +
      'invitation, or ask for a new one.',
  );

/**
 * A new invitation, replacing a pending one to the same email (its link stops working, and the answer's
 * `replaced` names it); the new link appears in this answer only. 409 `conflict` for an email that is a
 * member already.
 */
export async function invite(
  ctx: Context,
  mailer: Mailer,
  by: Manager,
  input: { email: string; role: Role },
) {
  mayManage(by.role, input.role);
  const { audit } = by;
  const now = ctx.clock.now();
  const token = makeCredential('invitation');
  const user = await findUserByEmail(ctx.db, input.email);
  const { created: row, pending } = await ctx.db.transaction().execute(async (trx) => {
    if (user && (await findMember(trx, audit.merchantId, user.id))) {
      throw new AppError('conflict', 'This email belongs to a member of this merchant already.');
    }
    // A second invitation replaces the first and says so; the first link then says it was replaced
    // (docs/decisions/0186-second-invitation-replaces-and-says-so.md).
    const pending = await repo.findPendingByEmail(trx, audit.merchantId, input.email, new Date(now));
    if (pending) mayManage(by.role, pending.role);
    const created = await repo.insertInvitation(trx, {
      id: newId('inv', now),
      merchant_id: audit.merchantId,
      email: input.email,
      role: input.role,
      token_hash: token.hash,
      invited_by: audit.actor.id,
      created_at: new Date(now),
      expires_at: new Date(now + INVITATION_TTL_MS),
    });
    await writeAudit(trx, audit, {
      action: 'member.invited',
      entityType: 'member',
      entityId: created.id,
      fields: {
        invitation_id: created.id,
        email: created.email,
        role: created.role,
        user_id: user?.id ?? null,
        replaces: pending?.id ?? null,
      },
    });
    if (pending) {
      await repo.markReplaced(trx, pending.id, created.id, new Date(now));
      await writeAudit(trx, audit, withdrawnEntry(pending, 'replaced'));
    }
    return { created, pending };
  });
  const url = `${ctx.config.publicUrl}/dashboard/join#token=${token.token}`;
  const emailed = mailer.sendInvitation({
    to: row.email,
    merchantName: (await merchantName(ctx.db, audit.merchantId)) ?? 'a merchant',
    role: row.role,
    inviter: audit.actor.email ?? 'A member',
    url,
    expiresAt: iso(row.expires_at),
  });
  const replacedOne = pending
    ? {
        id: pending.id,
        role: pending.role,
        created_at: iso(pending.created_at),
        expires_at: iso(pending.expires_at),
      }
    : null;
  return { ...presentInvitation(row), url, emailed, replaced: replacedOne };
}

function withdrawnEntry(row: repo.InvitationRow, reason: 'withdrawn' | 'replaced') {
  return {
    action: 'member.invitation_withdrawn' as const,
    entityType: 'member' as const,
    entityId: row.id,
    fields: { invitation_id: row.id, email: row.email, role: row.role, reason },
  };
}

/** The merchant's pending invitations, the newest first. */
export async function listInvitations(
  ctx: Context,
  scope: Scope,
): Promise<Page<ReturnType<typeof presentInvitation>>> {
  const rows = await repo.pendingInvitations(ctx.db, scope.merchantId, new Date(ctx.clock.now()));
  const items = rows.map(presentInvitation);
  return { items, count: items.length, has_more: false, next_cursor: null };
}

/** Withdraws a pending invitation: its link stops working at once. 404 for any other. */
export async function withdraw(ctx: Context, by: Manager, invitationId: string): Promise<void> {
  const now = new Date(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    const pending = await repo.pendingInvitations(trx, by.audit.merchantId, now);
    const row = pending.find((r) => r.id === invitationId);
    if (!row) throw notFound('invitation');
    mayManage(by.role, row.role);
    await repo.withdrawInvitations(trx, by.audit.merchantId, { id: row.id }, now);
    await writeAudit(trx, by.audit, withdrawnEntry(row, 'withdrawn'));
  });
}

async function pendingByToken(ctx: Context, token: string) {
  if (parseCredential(token)?.kind !== 'invitation') throw invalid();
  const hash = hashCredential(token);
  const row = await repo.findPendingByHash(ctx.db, hash, new Date(ctx.clock.now()));
  if (row) return row;
  throw (await repo.findByHash(ctx.db, hash))?.replaced_by ? replaced() : invalid();
}

/** What the invitation's page shows before it is accepted; reading it uses nothing up. */
export async function readInvitation(ctx: Context, token: string) {
  const row = await pendingByToken(ctx, token);
  const [name, user] = await Promise.all([
    merchantName(ctx.db, row.merchant_id),
    findUserByEmail(ctx.db, row.email),
  ]);
  return {
    email: row.email,
    role: row.role,
    merchant: { id: row.merchant_id, name: name ?? '' },
    expires_at: iso(row.expires_at),
    account_exists: user !== undefined,
  };
}

export interface Acceptance {
  token: string;
  password: string | undefined;
  name: string | undefined;
  /** A session sent with the request, if any: it proves the invited user when it is that user's. */
  session: MerchantPrincipal | null;
  /** The client address (`request.ip`), the `svc_device` cookie and the logger, as at sign-in. */
  ip: string;
  device: string | undefined;
  log: FastifyBaseLogger;
  meta: RequestMeta;
  /** The mode of the request: the log the entries go to, as for every merchant-interface write. */
  mode: Mode;
}

/**
 * Accepts the invitation: the user made or proved, the invitation taken, the membership made and a session of
 * it opened, in one transaction with `member.joined`. Answers like login.
 */
export async function accept(ctx: Context, signIns: SignInLimits, input: Acceptance): Promise<LoginResult> {
  const invitation = await pendingByToken(ctx, input.token);
  const auditOf = (user: Pick<UserRow, 'id' | 'email'>): AuditContext => ({
    merchantId: invitation.merchant_id,
    mode: input.mode,
    actor: userActor({ userId: user.id, email: user.email }),
    ...input.meta,
    clock: ctx.clock,
  });
  const existing = await findUserByEmail(ctx.db, invitation.email);
  if (existing) await proveUser(ctx, signIns, existing, input, auditOf(existing));
  const passwordHash = existing ? undefined : await newPassword(ctx, invitation.email, input.password);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const user =
      existing ??
      (await createUser(
        trx,
        { email: invitation.email, passwordHash: passwordHash!, name: input.name ?? null },
        now,
      ));
    if (!user) throw new AppError('conflict', 'An account with this email was made meanwhile: accept again.');
    const taken = await repo.takeInvitation(trx, invitation.id, user.id, new Date(now));
    if (!taken) throw invalid();
    if (!(await joinMerchant(trx, taken.merchant_id, user.id, taken.role, now))) {
      throw new AppError('conflict', 'You are a member of this merchant already.');
    }
    await writeAudit(trx, auditOf(user), {
      action: 'member.joined',
      entityType: 'member',
      entityId: user.id,
      fields: {
        invitation_id: taken.id,
        role: taken.role,
        invited_by: taken.invited_by,
        new_account: !existing,
      },
    });
    return openSession(ctx, trx, { user, merchantId: taken.merchant_id, role: taken.role }, input.meta);
  });
}

/** An existing user proves it is the invited one: a session of it, or its password (the one check). */
async function proveUser(
  ctx: Context,
  signIns: SignInLimits,
  user: UserRow,
  input: Acceptance,
  audit: AuditContext,
): Promise<void> {
  if (input.session?.userId === user.id) return;
  if (input.password === undefined) {
    throw new AppError(
      'unauthenticated',
      'This email has an account: give its password, or accept while signed in as that user.',
    );
  }
  const right = await confirmPassword(signIns, ctx, {
    check: 'accept_invitation',
    password: input.password,
    ip: input.ip,
    device: input.device,
    log: input.log,
    audit,
  });
  if (!right) throw new AppError('invalid_credentials', 'The password is wrong.');
}

/** The password an email without an account sets as it accepts, hashed. */
async function newPassword(ctx: Context, email: string, password: string | undefined): Promise<string> {
  if (password === undefined) {
    throw new AppError('validation_failed', 'password is required to make the account.', {
      details: [{ field: 'password', issue: 'is required to make the account' }],
    });
  }
  checkPassword(password, email);
  return hashPassword(password, ctx.config.passwordCost);
}
