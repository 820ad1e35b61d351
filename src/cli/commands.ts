// The subcommands of `svc`, one entry each.
import type { Command } from './svc.ts';
import { checkPassword, createMerchant } from '../modules/merchants/index.ts';
import { AppError } from '../lib/errors.ts';
import { ingestEvent } from '../modules/events/index.ts';
import { rotateMasterKey } from '../master-keys.ts';

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '')
    throw new AppError('validation_failed', `--${name} is required.`);
  return value;
}

const merchantCreate: Command = {
  name: 'merchant create',
  usage: '--name NAME --email EMAIL --password PASSWORD [--json]',
  options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
  async run(ctx, values) {
    const password = required(values, 'password');
    const email = required(values, 'email');
    checkPassword(password, email, '--password');
    const { merchant, user, store } = await createMerchant(ctx, {
      merchantName: required(values, 'name'),
      email,
      password,
    });
    return { merchant_id: merchant.id, user_id: user.id, store_id: store.id };
  },
};

// `svc events emit`: the same ingestion as POST /internal/v1/events (API.md section 7), for operators.
const eventsEmit: Command = {
  name: 'events emit',
  usage: "--merchant MERCHANT_ID --mode test|live --type EVENT_TYPE --data '{...}' [--id evt_...] [--json]",
  options: {
    merchant: { type: 'string' },
    mode: { type: 'string' },
    type: { type: 'string' },
    data: { type: 'string' },
    id: { type: 'string' },
  },
  async run(ctx, values) {
    const mode = required(values, 'mode');
    if (mode !== 'test' && mode !== 'live')
      throw new AppError('validation_failed', '--mode must be test or live.');
    let data: unknown;
    try {
      data = JSON.parse(typeof values.data === 'string' ? values.data : '{}');
    } catch {
      throw new AppError('validation_failed', '--data must be a JSON object.');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new AppError('validation_failed', '--data must be a JSON object.');
    const id = typeof values.id === 'string' ? values.id : undefined;
    return ingestEvent(ctx, {
      merchantId: required(values, 'merchant'),
      mode,
      type: required(values, 'type'),
      data,
      ...(id ? { id } : {}),
    });
  },
};

// `svc rotate-master-key`: with SVC_MASTER_KEY=NEW,OLD, re-seals every stored secret under NEW, reporting
// progress on standard error; stopped half-way, it is simply run again. Servers may keep running meanwhile.
const rotateMasterKeyCommand: Command = {
  name: 'rotate-master-key',
  usage: '[--batch N] [--json]',
  options: { batch: { type: 'string' } },
  async run(ctx, values) {
    const batch = values.batch === undefined ? 500 : Number(values.batch);
    if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
      throw new AppError('validation_failed', '--batch must be an integer between 1 and 10000.');
    return rotateMasterKey(ctx, {
      batch,
      onProgress: (p) =>
        process.stderr.write(
          `re-sealed ${p.resealed} ${p.kind === 'webhooks' ? 'webhooks' : 'idempotent answers'}` +
            (p.left !== undefined ? `, ${p.left} left` : '') +
            '\n',
        ),
    });
  },
};

export const COMMANDS: Command[] = [merchantCreate, eventsEmit, rotateMasterKeyCommand];
