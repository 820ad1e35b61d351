// What every change of a user's factors ends with: the `has_factor` flag and the recovery codes kept in step
// with the factors left, and the change's `member.*` audit entry.
import type { Executor } from '../../db/database.ts';
import { writeAudit, type AuditContext } from '../audit/index.ts';
import * as repo from './factors.repository.ts';

export async function afterFactorRemoved(trx: Executor, userId: string): Promise<void> {
  await repo.syncHasFactor(trx, userId);
  const user = await repo.findFactors(trx, userId);
  if (!user?.has_factor) await repo.deleteRecoveryCodes(trx, userId);
}

/** An entry of the `member.*` family about the acting user itself. */
export async function memberAudit(
  trx: Executor,
  audit: AuditContext,
  action: string,
  fields: Record<string, unknown>,
) {
  await writeAudit(trx, audit, { action, entityType: 'member', entityId: audit.actor.id, fields });
}
