// SVC_MASTER_KEY across its life: at start, every stored secret must open with a listed key (else the start
// fails naming the variable and the missing key id, rather than deliveries later carrying garbled signatures);
// `svc rotate-master-key` re-seals every stored secret under the first listed key, in batches, resumably
// (it only ever picks what is not yet under that key), after which the previous keys can be dropped.
import { ConfigError } from './config.ts';
import type { Context } from './context.ts';
import { answersToReseal, foreignSealedAnswers, resealAnswer } from './modules/idempotency/index.ts';
import { decryptSecret, encryptSecret, masterKeyId, UnknownMasterKeyError } from './lib/secrets.ts';
import {
  resealWebhookBatch,
  webhookSecretsUnreadable,
  webhooksLeftToReseal,
} from './modules/webhooks/index.ts';

function missingKey(err: UnknownMasterKeyError, what: string): ConfigError {
  return new ConfigError(
    err.keyId
      ? `SVC_MASTER_KEY does not list master key ${err.keyId}, which sealed stored ${what}; ` +
          'list the new key first and the previous keys after it, comma-separated'
      : `SVC_MASTER_KEY lists no key that opens the stored ${what} (sealed before key ids existed); ` +
          'add the previous master key after the new one, comma-separated',
  );
}

async function answersUnreadable(ctx: Context): Promise<UnknownMasterKeyError | undefined> {
  const { foreign, legacy } = await foreignSealedAnswers(ctx.db, ctx.config.masterKeys.map(masterKeyId));
  for (const sealed of [foreign, legacy]) {
    if (sealed === undefined) continue;
    try {
      decryptSecret(ctx.config.masterKeys, sealed);
    } catch (err) {
      if (err instanceof UnknownMasterKeyError) return err;
      throw err;
    }
  }
  return undefined;
}

/** Fails with a ConfigError naming SVC_MASTER_KEY when some stored secret opens with none of its keys. */
export async function checkMasterKeys(ctx: Context): Promise<void> {
  const webhooks = await webhookSecretsUnreadable(ctx);
  if (webhooks) throw missingKey(webhooks, 'webhook secrets');
  const answers = await answersUnreadable(ctx);
  if (answers) throw missingKey(answers, 'idempotent answers');
}

export interface RotationProgress {
  kind: 'webhooks' | 'idempotent_answers';
  resealed: number;
  /** Still to re-seal after this batch (webhooks only; answers expire within 24 h anyway). */
  left?: number;
}

/** Re-seals every stored secret under the current (first) key, `batch` rows per step. Safe to run again. */
export async function rotateMasterKey(
  ctx: Context,
  options: { batch?: number; onProgress?: (p: RotationProgress) => void } = {},
): Promise<{ key_id: string; webhooks: number; idempotent_answers: number }> {
  await checkMasterKeys(ctx);
  const batch = options.batch ?? 500;
  let webhooks = 0;
  for (let after = ''; ;) {
    const { last, resealed } = await resealWebhookBatch(ctx, after, batch);
    if (last === undefined) break;
    webhooks += resealed;
    after = last;
    options.onProgress?.({ kind: 'webhooks', resealed: webhooks, left: await webhooksLeftToReseal(ctx) });
  }
  let answers = 0;
  const current = masterKeyId(ctx.config.masterKey);
  for (;;) {
    const rows = await answersToReseal(ctx.db, current, batch);
    if (rows.length === 0) break;
    for (const row of rows) {
      await resealAnswer(
        ctx.db,
        row,
        encryptSecret(ctx.config.masterKey, decryptSecret(ctx.config.masterKeys, row.body)),
      );
    }
    answers += rows.length;
    options.onProgress?.({ kind: 'idempotent_answers', resealed: answers });
  }
  return { key_id: current, webhooks, idempotent_answers: answers };
}
