// The merchant's settings (API.md section 11.3): today one, whether every member must have a second factor.
import type { Context } from '../../context.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import * as repo from './merchants.repository.ts';

export async function merchantSettings(ctx: Context, merchantId: string) {
  const row = await repo.findMerchantSettings(ctx.db, merchantId);
  return { require_mfa: row?.require_mfa ?? false };
}

export async function setRequireMfa(ctx: Context, audit: AuditContext, requireMfa: boolean) {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.setRequireMfa(trx, audit.merchantId, requireMfa);
    await writeAudit(trx, audit, {
      action: 'merchant.settings_updated',
      entityType: 'merchant',
      entityId: audit.merchantId,
      fields: { require_mfa: requireMfa },
    });
  });
  return { require_mfa: requireMfa };
}
