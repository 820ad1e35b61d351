// `svc login`, `svc logout` and `svc trigger`: the commands that go through a running service's HTTP API.
import { createInterface } from 'node:readline';
import { CliError, printResult, type Command } from './command.ts';
import {
  apiUrl,
  callApi,
  readSession,
  removeSession,
  requireSession,
  sessionPath,
  writeSession,
} from './session.ts';

/** One line from the terminal, echo off for a password. */
async function askTerminal(question: string, secret: boolean): Promise<string> {
  const input = process.stdin;
  // Echo goes off before the question shows: a password typed (or pasted) the moment it appears is not echoed.
  if (secret) input.setRawMode(true);
  process.stderr.write(question);
  if (!secret) {
    const rl = createInterface({ input, output: process.stderr, terminal: false });
    for await (const line of rl) {
      rl.close();
      return line;
    }
    return '';
  }
  return new Promise((resolve) => {
    let value = '';
    input.resume();
    input.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          input.setRawMode(false);
          input.pause();
          input.off('data', onData);
          process.stderr.write('\n');
          resolve(value);
          return;
        }
        if (ch === '\u0003') process.exit(130);
        value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
      }
    };
    input.on('data', onData);
  });
}

/**
 * The answers to a command's questions: from the terminal, or from stdin line after line when it is not one
 * (a script: `printf '%s\n' "$EMAIL" "$PASSWORD" | svc login`). One reader for all the questions, since a
 * reader takes every line that has arrived, not just the first.
 */
function answers(): (question: string, secret: boolean) => Promise<string> {
  if (process.stdin.isTTY) return askTerminal;
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  return async (question) => {
    const next = await lines.next();
    if (next.done) throw new CliError(`${question.replace(/: $/, '')} is required (stdin ended).`);
    return next.value;
  };
}

export const loginCommand: Command = {
  name: 'login',
  summary: 'Sign in to a running service and keep the session for the other commands.',
  usage: '[--email EMAIL] [--merchant MERCHANT_ID] [--api-url URL]',
  help: `Options:
  --email EMAIL          the merchant user's email (asked when absent)
  --merchant MERCHANT_ID the merchant to open (mer_...), for a user of several: default, the one used last
  --api-url URL          the service (default: SVC_API_URL, else http://127.0.0.1:4000)

The email (without --email) and the password are asked on the terminal, or read line by line from stdin
when it is not one:
  printf '%s\\n' "$PASSWORD" | npx svc login --email you@example.com
A user with a second factor is then asked for a code of the authenticator app (or a recovery code), on the
next line of stdin when it is not a terminal. A passkey signs in on the dashboard only.
The session is stored in $XDG_CONFIG_HOME/svc/session.json (or ~/.config/svc/session.json), mode 0600.`,
  options: { email: { type: 'string' }, merchant: { type: 'string' }, 'api-url': { type: 'string' } },
  async run(values) {
    const base = apiUrl(values['api-url']);
    const ask = answers();
    const email = typeof values.email === 'string' ? values.email : await ask('Email: ', false);
    const password = await ask('Password: ', true);
    let data = await signIn(base, ask, email, password);
    const wanted = typeof values.merchant === 'string' ? values.merchant : undefined;
    if (wanted !== undefined && wanted !== data.merchant.id) {
      // Sign-in opens the membership used last; a switch replaces that session with one of the merchant asked.
      const signedIn = {
        api_url: base,
        token: data.token,
        expires_at: data.expires_at,
        email,
        merchant_id: '',
      };
      data = await callApi<SignedIn>(base, signedIn, 'POST', '/api/v1/merchant/auth/switch', {
        merchant_id: wanted,
      }).catch((err: unknown) => {
        void callApi(base, signedIn, 'POST', '/api/v1/merchant/auth/logout').catch(() => {});
        throw err instanceof CliError && err.message.startsWith('not_found')
          ? new CliError(
              `${email} is not a member of ${wanted}: \`svc login\` without --merchant opens the one used last.`,
            )
          : err;
      });
    }
    const stored = {
      api_url: base,
      token: data.token,
      expires_at: data.expires_at,
      email,
      merchant_id: data.merchant.id,
    };
    const path = writeSession(stored);
    const me = await callApi<{ memberships: { merchant: { id: string; name: string } }[] }>(
      base,
      stored,
      'GET',
      '/api/v1/merchant/me',
    );
    process.stdout.write(
      `Signed in to ${base} as ${email} (${data.merchant.name}, ${data.merchant.id}, ${data.user.role}); the session, valid until ${data.expires_at}, is in ${path}.\n`,
    );
    const others = me.memberships.filter((m) => m.merchant.id !== data.merchant.id);
    if (others.length > 0) {
      const list = others.map((m) => `${m.merchant.name} (${m.merchant.id})`).join(', ');
      process.stdout.write(`Also a member of ${list}: \`svc login --merchant ID\` opens another.\n`);
    }
    return 0;
  },
};

/**
 * The password, then for a user with a second factor its code (API.md section 11.3): a TOTP code of 6 digits,
 * else a recovery code.
 */
async function signIn(
  base: string,
  ask: (question: string, secret: boolean) => Promise<string>,
  email: string,
  password: string,
): Promise<SignedIn> {
  const first = await callApi<SignedIn | SecondStep>(base, undefined, 'POST', '/api/v1/merchant/auth/login', {
    email,
    password,
  });
  if (!('mfa_required' in first)) return first;
  const code = (await ask('Code from the authenticator app, or a recovery code: ', false)).trim();
  return callApi<SignedIn>(base, undefined, 'POST', '/api/v1/merchant/auth/login/mfa', {
    mfa_token: first.mfa_token,
    ...(/^\d{6}$/.test(code) ? { code } : { recovery_code: code }),
  });
}

/** What a sign-in's first step answers for a user with a second factor. */
interface SecondStep {
  mfa_required: true;
  mfa_token: string;
  methods: string[];
}

/** What a sign-in answers (login, switch). */
interface SignedIn {
  token: string;
  expires_at: string;
  user: { role: string };
  merchant: { id: string; name: string };
}

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'End the stored session and forget it.',
  usage: '',
  help: 'Signs the session out on the service (when it answers) and removes the stored file.',
  options: {},
  async run() {
    const session = readSession();
    if (session) {
      await callApi(session.api_url, session, 'POST', '/api/v1/merchant/auth/logout').catch(() => {});
      removeSession();
    }
    process.stdout.write(session ? `Signed out; removed ${sessionPath()}.\n` : 'Not signed in.\n');
    return 0;
  },
};

/** The catalog's event types, loaded only when a command needs them (the catalog loads its validators). */
async function eventTypes(): Promise<string[]> {
  const { EVENT_CATALOG } = await import('../modules/events/index.ts');
  return EVENT_CATALOG.map((e) => e.id);
}

const listed = (types: string[]) => types.map((t) => `  ${t}`).join('\n');

export const triggerCommand: Command = {
  name: 'trigger',
  summary:
    'Record a real test-mode event with data from your store: every subscribed endpoint and listener gets it.',
  usage: "<event-type> [--object ID] [--data '{...}'] [--api-url URL] [--json]",
  help: async () => `Arguments:
  event-type      an event type of the catalog (below)

Options:
  --object ID     the object the event is about, e.g. the ord_... of an earlier order.created: the event
                  continues that object (same ids, lines and creation time)
  --data JSON     fields merged over the data, field by field; a field the type's schema does not name is
                  refused with its path
  --api-url URL   the service (default: where \`svc login\` signed in)
  --json          print the recorded event as JSON

The data is the type's example made yours: your store's id, fresh ids, the current time. Test mode only.
Needs \`svc login\` first. For example:
  ORDER=$(npx svc trigger order.created --json | jq -r .data.id)
  npx svc trigger order.paid --object "$ORDER"

Event types:
${listed(await eventTypes())}`,
  options: {
    object: { type: 'string' },
    data: { type: 'string' },
    'api-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: true,
  values: eventTypes,
  async run(values, positionals) {
    const [type, ...extra] = positionals;
    if (!type || extra.length > 0)
      throw new CliError('give exactly one event type, e.g. `svc trigger order.created`.');
    const types = await eventTypes();
    if (!types.includes(type))
      throw new CliError(`${type} is not an event type of the catalog. Event types:\n${listed(types)}`);
    let data: unknown;
    if (typeof values.data === 'string') {
      try {
        data = JSON.parse(values.data);
      } catch {
        throw new CliError('--data must be a JSON object.');
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        throw new CliError('--data must be a JSON object.');
    }
    const session = requireSession();
    const base = apiUrl(values['api-url'], session);
    const event = await callApi<{ id: string; type: string; data: { id?: unknown } }>(
      base,
      session,
      'POST',
      '/api/v1/merchant/events/trigger',
      {
        type,
        ...(typeof values.object === 'string' ? { object: values.object } : {}),
        ...(data !== undefined ? { data } : {}),
      },
    );
    if (values.json) printResult(values, event);
    else process.stdout.write(`Triggered ${event.type}: ${event.id} (object ${String(event.data.id)})\n`);
    return 0;
  },
};
