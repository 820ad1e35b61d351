// Master-key rotation for the webhook secrets: the start-up check that SVC_MASTER_KEY can open every stored
// secret, and the re-sealing of a batch under the current key (the `svc rotate-master-key` command drives it).
import type { Context } from '../../context.ts';
import { decryptSecret, encryptSecret, masterKeyId, UnknownMasterKeyError } from '../../lib/secrets.ts';
import * as repo from './master-keys.repository.ts';

/** The first stored secret that no listed key opens, as an error; undefined when every one opens. */
export async function webhookSecretsUnreadable(ctx: Context): Promise<UnknownMasterKeyError | undefined> {
  const keys = ctx.config.masterKeys;
  const { foreign, legacy } = await repo.foreignSealed(ctx.db, keys.map(masterKeyId));
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

const reseal = (ctx: Context, sealed: string) =>
  encryptSecret(ctx.config.masterKey, decryptSecret(ctx.config.masterKeys, sealed));

/** Re-seals up to `limit` webhooks after `after` (by id) under the current key; returns the last id seen. */
export async function resealWebhookBatch(
  ctx: Context,
  after: string,
  limit: number,
): Promise<{ last: string | undefined; resealed: number }> {
  const rows = await repo.webhooksToReseal(ctx.db, masterKeyId(ctx.config.masterKey), after, limit);
  let resealed = 0;
  for (const row of rows) {
    const next = {
      id: row.id,
      secret_sealed: reseal(ctx, row.secret_sealed),
      previous_secret_sealed: row.previous_secret_sealed && reseal(ctx, row.previous_secret_sealed),
    };
    // A merchant's rotation in between already sealed the new secret under the current key: nothing to do.
    if (await repo.resealWebhook(ctx.db, row, next)) resealed++;
  }
  return { last: rows.at(-1)?.id, resealed };
}

export async function webhooksLeftToReseal(ctx: Context): Promise<number> {
  return repo.countToReseal(ctx.db, masterKeyId(ctx.config.masterKey));
}
