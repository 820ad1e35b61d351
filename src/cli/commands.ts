// The subcommands of `svc`, one entry each.
// The database commands load the service's modules when they run, so that `svc --help` and the commands
// that only talk HTTP start in a fraction of the time.
import { loadConfig } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import { CliError, printResult, withDatabase, type Command, type Values } from './command.ts';
import { auditVerifyCommand } from './audit-verify.ts';
import { listenCommand } from './listen.ts';
import { logsTailCommand } from './logs-tail.ts';
import { loginCommand, logoutCommand, triggerCommand } from './remote.ts';
import { membersInvite, membersList, membersRemove } from './members.ts';
import { startCommand } from './start.ts';
import { attemptsCommand, webhooksReplay } from './webhooks.ts';

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '')
    throw new AppError('validation_failed', `--${name} is required.`);
  return value;
}

const merchantCreate: Command = {
  name: 'merchant create',
  summary: 'Create a merchant, its owner user and a first store (writes the database directly).',
  usage: '--name NAME --email EMAIL --password PASSWORD [--json]',
  help: `Options:
  --name NAME          the merchant's name
  --email EMAIL        the owner's sign-in email
  --password PASSWORD  the owner's password: at least 10 characters, not a common one
  --json               print {"merchant_id","user_id","store_id"} on one line

Runs against DATABASE_URL (PostgreSQL) at any time, or against the embedded database in SVC_DATA_DIR while
no server has it open. With the server running on the embedded database it refuses and exits 1: sign up
through the server instead (the dashboard, or POST /api/v1/merchant/auth/signup).`,
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const password = required(values, 'password');
    const email = required(values, 'email');
    // The policy of the HTTP routes (NIST SP 800-63B), checked before the database is opened.
    const { checkPassword } = await import('../modules/identity/index.ts');
    checkPassword(password, email, '--password');
    const input = { merchantName: required(values, 'name'), email, password };
    const result = await withDatabase(
      'merchant create',
      'Stop the server and run the command again, or sign up through the running server: the dashboard, or POST /api/v1/merchant/auth/signup.',
      async (ctx) => {
        const { createMerchant } = await import('../modules/identity/index.ts');
        const { merchant, user, store } = await createMerchant(ctx, input);
        return { merchant_id: merchant.id, user_id: user.id, store_id: store.id };
      },
    );
    printResult(values, result);
    return 0;
  },
};

// `svc events emit`: the same ingestion as POST /internal/v1/events (API.md section 7), for operators.
const eventsEmit: Command = {
  name: 'events emit',
  summary:
    'Record an event of any merchant and mode, as POST /internal/v1/events does (writes the database).',
  usage:
    "--merchant MERCHANT_ID --mode test|live --type EVENT_TYPE --data '{...}' [--id evt_...] [--ordering-key KEY] [--json]",
  help: `Options:
  --merchant MERCHANT_ID  the merchant (mer_...)
  --mode test|live        the mode of the event
  --type EVENT_TYPE       an event type of the catalog, e.g. order.created
  --data JSON             the event's data object
  --id evt_...            an id of your own, for idempotent ingestion
  --ordering-key KEY      what orders its deliveries to per_object webhooks (default: data.id)
  --json                  print the answer on one line

Database access as for \`svc merchant create\`. With the server running on the embedded database it refuses:
use \`svc trigger\` (test mode, through the server) or POST /internal/v1/events.`,
  options: {
    merchant: { type: 'string' },
    mode: { type: 'string' },
    type: { type: 'string' },
    data: { type: 'string' },
    id: { type: 'string' },
    'ordering-key': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
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
    const orderingKey = values['ordering-key'];
    const event = {
      merchantId: required(values, 'merchant'),
      mode,
      type: required(values, 'type'),
      data,
      ...(id ? { id } : {}),
      ...(typeof orderingKey === 'string' ? { orderingKey } : {}),
    } as const;
    const result = await withDatabase(
      'events emit',
      'Stop the server and run the command again, or record the event through the running server: `svc trigger` (test mode) or POST /internal/v1/events.',
      async (ctx) => {
        const { createOutbox } = await import('../modules/outbox/index.ts');
        const outbox = createOutbox(ctx);
        try {
          return await outbox.ingest(event);
        } finally {
          await outbox.stop();
        }
      },
    );
    printResult(values, result);
    return 0;
  },
};

/** How the rotation's progress names each kind of sealed secret. */
const SEALED_KINDS = {
  webhooks: 'webhooks',
  idempotent_answers: 'idempotent answers',
  totp_secrets: 'TOTP secrets',
} as const;

// `svc rotate-master-key`: with SVC_MASTER_KEY=NEW,OLD, re-seals every stored secret under NEW, reporting
// progress on standard error; stopped half-way, it is simply run again. Servers may keep running meanwhile.
const rotateMasterKeyCommand: Command = {
  name: 'rotate-master-key',
  summary:
    'Re-seal every stored secret under the first key of SVC_MASTER_KEY (writes the database directly).',
  usage: '[--batch N] [--json]',
  help: `Options:
  --batch N  secrets re-sealed per transaction (1-10000, default 500)
  --json     print the totals on one line

With SVC_MASTER_KEY=NEW,OLD, re-seals every webhook secret, TOTP secret and stored idempotent answer under
NEW, in batches, printing progress on standard error. Stopped half-way, run it again: it resumes. Servers may
keep running; on the embedded database stop the server first. Afterwards OLD can be removed
(docs/operations.md).`,
  options: { batch: { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const batch = values.batch === undefined ? 500 : Number(values.batch);
    if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
      throw new AppError('validation_failed', '--batch must be an integer between 1 and 10000.');
    const result = await withDatabase(
      'rotate-master-key',
      'Stop the server, run the command, then start the server again.',
      async (ctx) => {
        const { rotateMasterKey } = await import('../master-keys.ts');
        return rotateMasterKey(ctx, {
          batch,
          onProgress: (p) =>
            process.stderr.write(`re-sealed ${p.resealed} ${SEALED_KINDS[p.kind]}, ${p.left} left\n`),
        });
      },
    );
    printResult(values, result);
    return 0;
  },
};

// `svc mfa reset`: an operator's way back in for a user who lost every second factor (docs/operations.md).
const mfaReset: Command = {
  name: 'mfa reset',
  summary: 'Remove every second factor of a user who lost them all, audited (writes the database directly).',
  usage: '--email EMAIL --reason TEXT [--json]',
  help: `Options:
  --email EMAIL  the user's sign-in email
  --reason TEXT  why (the ticket, how the person was identified): kept in the audit entries
  --json         print {"user_id","merchants"} on one line

Removes the user's TOTP, passkeys and recovery codes and ends its sessions: it signs in with its password
alone, then enrols a factor again (at once, if a merchant of its requires one). Each merchant the user belongs
to gets a member.mfa_disabled entry in both modes, by the system actor, with the reason. Confirm who is asking
before running it (docs/operations.md).`,
  options: { email: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const email = required(values, 'email');
    const reason = required(values, 'reason');
    const result = await withDatabase(
      'mfa reset',
      'Stop the server, run the command, then start the server again.',
      async (ctx) => {
        const { resetFactors } = await import('../modules/identity/index.ts');
        return resetFactors(ctx, email, reason);
      },
    );
    if (values.json) printResult(values, result);
    else
      process.stdout.write(
        `Second factors of ${email} removed and its sessions ended; audited in ${result.merchants} merchant(s).\n`,
      );
    return 0;
  },
};

// `svc demo`: the demo merchant's sign-in, printed once at the first start, shown again (src/demo.ts).
const demoCommand: Command = {
  name: 'demo',
  summary: "Show the demo merchant's sign-in, made at the first start of the embedded database.",
  usage: '[--json]',
  help: `Options:
  --json  print {"email","password","dashboard"} on one line

Reads it from SVC_DATA_DIR (default ./.svc-data), so it works while the server runs. The demo merchant exists
only on the embedded database; a password changed since is not known here.`,
  options: { json: { type: 'boolean' } },
  async run(values) {
    // Only where the data is: no master key is needed, so none is made in an empty data directory.
    const config = loadConfig(undefined, { masterKey: Buffer.alloc(32), masterKeys: [Buffer.alloc(32)] });
    if (config.databaseUrl)
      throw new CliError('DATABASE_URL is set: the demo merchant exists only on the embedded database.');
    const { demoSignInText, readDemoSignIn } = await import('../demo.ts');
    const signIn = readDemoSignIn(config.dataDir);
    if (!signIn) {
      throw new CliError(
        `no demo sign-in in ${config.dataDir}: it is made at the first start of an empty embedded database ` +
          '(`npm start`). A data directory from an older version printed it once and did not keep it: sign up ' +
          `at ${config.publicUrl}/dashboard/signup, or remove ${config.dataDir} (and its data) to start afresh.`,
      );
    }
    if (values.json) printResult(values, { ...signIn, dashboard: `${config.publicUrl}/dashboard` });
    else process.stdout.write(`The demo merchant. ${demoSignInText(config.publicUrl, signIn)}`);
    return 0;
  },
};

export const COMMANDS: Command[] = [
  startCommand,
  loginCommand,
  logoutCommand,
  membersList,
  membersInvite,
  membersRemove,
  listenCommand,
  logsTailCommand,
  webhooksReplay,
  attemptsCommand,
  triggerCommand,
  demoCommand,
  merchantCreate,
  eventsEmit,
  rotateMasterKeyCommand,
  mfaReset,
  auditVerifyCommand,
];
