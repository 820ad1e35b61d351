// What the chain's tests share: sealing on demand (test services run without their loops), the contract's
// hash rule written out independently of src/lib/audit-chain.ts, and the merchant interface's reads.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { TestService } from '../support/service.ts';
import type { TestMerchant } from '../support/merchants.ts';
import type { AuditModule } from '../../src/modules/audit/index.ts';

export interface ChainedEntry {
  id: string;
  action: string;
  entity_type: string;
  entity_id: string;
  metadata: string;
  created_at: string;
  sequence: number | null;
  hash: string | null;
  prev_hash: string | null;
}

export function auditModule(svc: TestService): AuditModule {
  return svc.modules.find((m): m is AuditModule => m.name === 'audit')!;
}

/** Seals everything committed so far, as the sealer loop would in its next runs. */
export async function sealAll(svc: TestService): Promise<void> {
  const { sealer } = auditModule(svc).state;
  for (let i = 0; i < 100 && (await unsealed(svc)) > 0; i++) await sealer.catchUp();
}

async function unsealed(svc: TestService): Promise<number> {
  const row = await svc.ctx.db
    .selectFrom('audit_pending')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** API.md section 11.5, as an auditor would write it from the contract alone. */
export function contractHash(prevHash: string, e: ChainedEntry): string {
  const { id, action, entity_type, entity_id, metadata, created_at, sequence } = e;
  const json = canonicalize({ id, action, entity_type, entity_id, metadata, created_at, sequence })!;
  return createHash('sha256')
    .update(Buffer.from(prevHash + json, 'utf8'))
    .digest('hex');
}

/** Every entry of the merchant's log in the mode, newest first, through the list route. */
export async function allEntries(
  svc: TestService,
  m: TestMerchant,
  mode: 'test' | 'live' = 'test',
): Promise<ChainedEntry[]> {
  const out: ChainedEntry[] = [];
  let cursor: string | null = null;
  do {
    const res: { json<T>(): T } = await svc.app.inject({
      url: `/api/v1/merchant/developer/logs?limit=200${cursor ? `&starting_after=${cursor}` : ''}`,
      headers: { ...m.auth, 'x-svc-mode': mode },
    });
    const page: { items: ChainedEntry[]; next_cursor: string | null } = res.json<{
      data: { items: ChainedEntry[]; next_cursor: string | null };
    }>().data;
    out.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}
