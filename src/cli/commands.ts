// The subcommands of `svc`, one entry each.
import type { Command } from './svc.ts';
import { createMerchant } from '../modules/merchants/index.ts';
import { AppError } from '../lib/errors.ts';

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new AppError('validation_failed', `--${name} is required.`);
  return value;
}

const merchantCreate: Command = {
  name: 'merchant create',
  usage: '--name NAME --email EMAIL --password PASSWORD [--json]',
  options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
  async run(ctx, values) {
    const password = required(values, 'password');
    if (password.length < 10) throw new AppError('validation_failed', '--password must be at least 10 characters.');
    const { merchant, user, store } = await createMerchant(ctx, {
      merchantName: required(values, 'name'),
      email: required(values, 'email'),
      password,
    });
    return { merchant_id: merchant.id, user_id: user.id, store_id: store.id };
  },
};

export const COMMANDS: Command[] = [merchantCreate];
