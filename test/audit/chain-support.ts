// What the chain's tests share: sealing on demand (test services run without their loops), the contract's
// hash rule and checkpoint signature written out independently of src/, and the merchant interface's reads.
import { createHash, createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestService } from '../support/service.ts';
import type { TestMerchant } from '../support/merchants.ts';
import type { AuditModule } from '../../src/modules/audit/index.ts';
import { newId } from '../../src/lib/ids.ts';

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

/** A checkpoint as the route answers it (API.md section 11.5). */
export interface Checkpoint {
  merchant_id: string;
  mode: string;
  sequence: number;
  hash: string;
  signed_at: string;
  key_id: string;
  signature: string;
}
export interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  d?: string;
}

/** The merchant's checkpoint of the mode, signed now. */
export async function checkpointOf(
  service: TestService,
  merchant: TestMerchant,
  mode = 'test',
): Promise<Checkpoint> {
  const res = await service.app.inject({
    url: '/api/v1/merchant/developer/logs/checkpoint',
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.json<{ data: Checkpoint }>().data;
}

/** The JWKS the service publishes. */
export async function jwks(service: TestService): Promise<Jwk[]> {
  const res = await service.app.inject({ url: '/.well-known/svc-audit-keys' });
  expect(res.statusCode).toBe(200);
  return res.json<{ keys: Jwk[] }>().keys;
}

/** The contract's signed string, verified with the published key of the checkpoint's key_id. */
export function verifies(c: Checkpoint, keys: Jwk[]): boolean {
  const jwk = keys.find((k) => k.kid === c.key_id);
  if (!jwk) return false;
  const message = `svc-audit-checkpoint.v1.${c.merchant_id}.${c.mode}.${c.sequence}.${c.hash}.${c.signed_at}`;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  return verify(null, Buffer.from(message), key, Buffer.from(c.signature, 'base64url'));
}

/**
 * A row written into the audit table with plain SQL, as an operator or an attacker with the database's
 * password would: no seal, no place in the sealer's queue. Its id and created_at as the API shows them.
 */
export async function insertByHand(
  svc: TestService,
  merchant: TestMerchant,
  fields: { action?: string; entityId?: string; at?: Date; mode?: 'test' | 'live' } = {},
): Promise<{ id: string; created_at: string }> {
  const at = fields.at ?? new Date();
  const id = newId('log', at.getTime());
  await sql`insert into audit_logs (id, merchant_id, mode, action, entity_type, entity_id, metadata, created_at)
            values (${id}, ${merchant.merchantId}, ${fields.mode ?? 'test'}, ${fields.action ?? 'api_key.revoked'},
                    'api_key', ${fields.entityId ?? 'key_by_hand'}, '{"actor":{"type":"user","id":"usr_x"}}',
                    ${at.toISOString()})`.execute(svc.ctx.db);
  return { id, created_at: at.toISOString() };
}

/** The service's own check of the merchant's chain (GET /developer/logs/chain). */
export async function chainState(
  svc: TestService,
  merchant: TestMerchant,
  mode: 'test' | 'live' = 'test',
): Promise<Record<string, unknown>> {
  const res = await svc.app.inject({
    url: '/api/v1/merchant/developer/logs/chain',
    headers: { ...merchant.auth, 'x-svc-mode': mode },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: Record<string, unknown> }>().data;
}
