// The merchant's settings (API.md section 11.3): today one, whether every member must have a second factor.
// Beside it, the members without one (API.md section 12.4), whom the setting holds to enrolment: the owner
// sees them before and after turning it on.
import type { Context } from '../../context.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import * as repo from './merchants.repository.ts';

/** The identity module's members without a second factor (identity imports this module, not the reverse). */
export type MembersWithoutFactor = (
  ctx: Context,
  merchantId: string,
) => Promise<{ id: string; email: string }[]>;

export async function merchantSettings(ctx: Context, without: MembersWithoutFactor, merchantId: string) {
  const [row, members] = await Promise.all([
    repo.findMerchantSettings(ctx.db, merchantId),
    without(ctx, merchantId),
  ]);
  return { require_mfa: row?.require_mfa ?? false, members_without_second_factor: members };
}

export async function setRequireMfa(
  ctx: Context,
  without: MembersWithoutFactor,
  audit: AuditContext,
  requireMfa: boolean,
) {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.setRequireMfa(trx, audit.merchantId, requireMfa);
    await writeAudit(trx, audit, {
      action: 'merchant.settings_updated',
      entityType: 'merchant',
      entityId: audit.merchantId,
      fields: { require_mfa: requireMfa },
    });
  });
  return { require_mfa: requireMfa, members_without_second_factor: await without(ctx, audit.merchantId) };
}
