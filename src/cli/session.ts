// The merchant session of `svc login`, kept in the user's config directory ($XDG_CONFIG_HOME/svc, or
// ~/.config/svc) in a file only its owner can read (0600, directory 0700): it is a bearer credential.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCliConfig } from '../config.ts';
import { systemClock } from '../lib/time.ts';
import { CliError } from './command.ts';

export interface StoredSession {
  api_url: string;
  token: string;
  expires_at: string;
  email: string;
  merchant_id: string;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:4000';

// Who calls, in the user agent: the Account page names the CLI's sessions "svc CLI" by it (Node's fetch says
// only "node", as any script would).
const CLI_USER_AGENT = `svc-cli (${process.platform}; node ${process.versions.node})`;

export function sessionPath(): string {
  return join(loadCliConfig().configDir, 'session.json');
}

export function readSession(): StoredSession | undefined {
  try {
    return JSON.parse(readFileSync(sessionPath(), 'utf8')) as StoredSession;
  } catch {
    return undefined;
  }
}

export function writeSession(session: StoredSession): string {
  const path = sessionPath();
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600); // a file that existed keeps its old mode through writeFileSync
  return path;
}

export function removeSession(): void {
  rmSync(sessionPath(), { force: true });
}

/** --api-url, else SVC_API_URL, else where `svc login` signed in, else the default of `npm start`. */
export function apiUrl(flag: string | boolean | undefined, session?: StoredSession): string {
  const url =
    (typeof flag === 'string' ? flag : undefined) ??
    loadCliConfig().apiUrl ??
    session?.api_url ??
    DEFAULT_API_URL;
  if (!URL.canParse(url)) throw new CliError(`--api-url must be an absolute URL, e.g. ${DEFAULT_API_URL}.`);
  return url.replace(/\/+$/, '');
}

/** The stored session, for a command that needs one. */
export function requireSession(): StoredSession {
  const session = readSession();
  if (!session) throw new CliError('not signed in: run `svc login` first.');
  return session;
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: { field: string; issue: string }[] };
}

/**
 * A JSON call to the merchant interface with the session, in test mode unless a command says otherwise (a
 * replay or the attempts of live endpoints); the envelope's `data`, or a CliError.
 */
export async function callApi<T>(
  base: string,
  session: StoredSession | undefined,
  method: string,
  path: string,
  body?: unknown,
  mode: 'test' | 'live' = 'test',
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(base + path, {
      method,
      headers: {
        accept: 'application/json',
        'user-agent': CLI_USER_AGENT,
        'x-svc-mode': mode,
        ...(session ? { authorization: `Bearer ${session.token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw new CliError(
      `cannot reach the service at ${base} (${(err as Error).cause ? String((err as Error & { cause: unknown }).cause) : (err as Error).message}). Is it running? Start it with \`npm start\`, or pass --api-url.`,
    );
  }
  const text = await res.text();
  let parsed: ({ data?: T } & ErrorEnvelope) | undefined;
  try {
    parsed = text ? (JSON.parse(text) as { data?: T } & ErrorEnvelope) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.ok) return parsed?.data as T;
  throw apiError(res.status, parsed, { base, session });
}

/** Why the service refused the stored session, in words that say what to do. */
function refusedSession(base: string, session: StoredSession | undefined): string {
  if (!session) return 'the service asks for a session: run `svc login` first.';
  if (session.api_url !== base) {
    // Another service, or another database behind it: it has never seen this session.
    return (
      `the service at ${base} does not know this session: \`svc login\` signed in at ${session.api_url}. ` +
      `Run \`svc login --api-url ${base}\`, or leave --api-url out to use ${session.api_url}.`
    );
  }
  if (Date.parse(session.expires_at) <= systemClock.now()) {
    return `the session expired at ${session.expires_at}: run \`svc login\` again.`;
  }
  return `the service at ${base} no longer accepts this session (signed out, or its data was reset): run \`svc login\` again.`;
}

/** The error of a refused call: the contract's code and message, and the details the message does not say. */
export function apiError(
  status: number,
  parsed: ErrorEnvelope | undefined,
  call?: { base: string; session: StoredSession | undefined },
): CliError {
  const code = parsed?.error?.code ?? `http_${status}`;
  if (status === 401 && code !== 'invalid_credentials')
    return new CliError(`${code}: ${refusedSession(call?.base ?? '', call?.session)}`);
  const message = parsed?.error?.message ?? `the service answered ${status}.`;
  const details = (parsed?.error?.details ?? [])
    .filter((d) => !(message.includes(d.field) && message.includes(d.issue)))
    .map((d) => ` ${d.field}: ${d.issue}.`)
    .join('');
  return new CliError(`${code}: ${message}${details}`);
}
