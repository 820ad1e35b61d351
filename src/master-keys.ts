// SVC_MASTER_KEY across its life, for every sealed secret the service stores: at start, every one must open
// with a listed key (else the start fails naming the variable and the missing key id, rather than deliveries
// later carrying garbled signatures); `svc rotate-master-key` re-seals every one under the first listed key,
// in batches, resumably (it only ever picks what is not yet under that key), after which the previous keys can
// be dropped. The statements are src/db/sealed-columns.ts.
import { ConfigError } from './config.ts';
import type { Context } from './context.ts';
import {
  countNotSealedUnder,
  foreignSealed,
  nextNotSealedUnder,
  replaceSealed,
  sealedColumns,
  type SealedColumns,
  type SealedRow,
} from './db/sealed-columns.ts';
import {
  decryptSecret,
  encryptSecret,
  isSealedUnder,
  masterKeyId,
  UnknownMasterKeyError,
} from './lib/secrets.ts';

// Every column that holds a secret sealed under the master key. A new one is listed here, and both the
// start-up check and the rotation cover it.
const SEALED = [
  sealedColumns('webhooks', {
    name: 'webhooks',
    what: 'webhook secrets',
    key: ['id'],
    columns: ['secret_sealed', 'previous_secret_sealed'],
  }),
  // A user's TOTP secret: the service computes the codes it checks.
  sealedColumns('users', {
    name: 'totp_secrets',
    what: 'TOTP secrets',
    key: ['id'],
    columns: ['totp_sealed', 'totp_pending_sealed'],
  }),
  // Merchant answers carry secrets (a created key pair, a revealed webhook secret).
  sealedColumns('idempotency_keys', {
    name: 'idempotent_answers',
    what: 'idempotent answers',
    key: ['merchant_id', 'mode', 'principal', 'key'],
    columns: ['response_body'],
  }),
];

type SealedName = (typeof SEALED)[number]['name'];

function missingKey(err: UnknownMasterKeyError, what: string): ConfigError {
  return new ConfigError(
    err.keyId
      ? `SVC_MASTER_KEY does not list master key ${err.keyId}, which sealed stored ${what}; ` +
          'list the new key first and the previous keys after it, comma-separated'
      : `SVC_MASTER_KEY lists no key that opens the stored ${what} (sealed before key ids existed); ` +
          'add the previous master key after the new one, comma-separated',
  );
}

/** The first secret of `set` that no listed key opens, as an error; undefined when every one opens. */
async function unreadable(ctx: Context, set: SealedColumns): Promise<UnknownMasterKeyError | undefined> {
  const keys = ctx.config.masterKeys;
  const { foreign, legacy } = await foreignSealed(ctx.db, set, keys.map(masterKeyId));
  for (const sealed of [foreign, legacy]) {
    if (sealed === undefined) continue;
    try {
      decryptSecret(keys, sealed);
    } catch (err) {
      if (err instanceof UnknownMasterKeyError) return err;
      throw err;
    }
  }
  return undefined;
}

/** Fails with a ConfigError naming SVC_MASTER_KEY when some stored secret opens with none of its keys. */
export async function checkMasterKeys(ctx: Context): Promise<void> {
  for (const set of SEALED) {
    const err = await unreadable(ctx, set);
    if (err) throw missingKey(err, set.what);
  }
}

export interface RotationProgress {
  kind: SealedName;
  resealed: number;
  /** Rows still to visit, of those that needed it when the rotation began. */
  left: number;
}

/** The row with each secret not under the current key sealed again under it. */
function resealed(ctx: Context, set: SealedColumns, row: SealedRow): SealedRow {
  const { masterKey, masterKeys } = ctx.config;
  const next = { ...row };
  for (const column of set.columns) {
    const sealed = row[column];
    if (sealed && !isSealedUnder(masterKey, sealed))
      next[column] = encryptSecret(masterKey, decryptSecret(masterKeys, sealed));
  }
  return next;
}

/** Re-seals every secret of `set` not under the current key, `batch` rows per step; how many rows changed. */
async function resealAll(
  ctx: Context,
  set: (typeof SEALED)[number],
  batch: number,
  onProgress: ((p: RotationProgress) => void) | undefined,
): Promise<number> {
  const current = masterKeyId(ctx.config.masterKey);
  let left = await countNotSealedUnder(ctx.db, set, current);
  let changed = 0;
  for (let after: SealedRow | undefined; ;) {
    const rows = await nextNotSealedUnder(ctx.db, set, current, after, batch);
    if (rows.length === 0) return changed;
    // A row changed since it was read (its merchant rotated the secret) is left: a second run takes the rest.
    for (const row of rows) if (await replaceSealed(ctx.db, set, row, resealed(ctx, set, row))) changed++;
    left = Math.max(0, left - rows.length);
    after = rows.at(-1);
    onProgress?.({ kind: set.name, resealed: changed, left });
  }
}

/** Re-seals every stored secret under the current (first) key, `batch` rows per step. Safe to run again. */
export async function rotateMasterKey(
  ctx: Context,
  options: { batch?: number; onProgress?: (p: RotationProgress) => void } = {},
): Promise<{ key_id: string } & Record<SealedName, number>> {
  await checkMasterKeys(ctx);
  const totals = {} as Record<SealedName, number>;
  for (const set of SEALED)
    totals[set.name] = await resealAll(ctx, set, options.batch ?? 500, options.onProgress);
  return { key_id: masterKeyId(ctx.config.masterKey), ...totals };
}
