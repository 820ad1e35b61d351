// A user's passkeys (API.md section 11.3): WebAuthn through `@simplewebauthn/server`, the relying party being
// SVC_PUBLIC_URL's host and origin. Registration, the options of an assertion and its check; a passkey is one
// factor among those factors.service.ts checks.
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Context } from '../../context.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { iso } from '../../lib/time.ts';
import { type AuditContext } from '../audit/index.ts';
import * as repo from './factors.repository.ts';
import { afterFactorRemoved, memberAudit } from './factor-changes.ts';

/**
 * The WebAuthn library, loaded at the first ceremony: its 300 modules (ASN.1 and COSE parsers) cost every
 * process start about 140 ms, and most processes never see a passkey. Node loads it once.
 */
const webauthn = () => import('@simplewebauthn/server');

/** The name authenticators show, as TOTP apps show the issuer of factors.service.ts. */
const RP_NAME = 'svc';
/** A WebAuthn ceremony has five minutes to answer its challenge. */
const CHALLENGE_TTL_MS = 5 * 60_000;

/** The relying party: SVC_PUBLIC_URL's host name and origin (a browser needs a domain: not an IP address). */
function relyingParty(ctx: Context) {
  const url = new URL(ctx.config.publicUrl);
  return { id: url.hostname, origin: url.origin };
}

const transportsOf = (text: string | null): AuthenticatorTransport[] | undefined =>
  text === null ? undefined : (JSON.parse(text) as AuthenticatorTransport[]);

export async function registrationOptions(ctx: Context, userId: string) {
  const [user, existing] = await Promise.all([
    repo.findFactors(ctx.db, userId),
    repo.passkeysOfUser(ctx.db, userId),
  ]);
  if (!user) throw notFound('user');
  const rp = relyingParty(ctx);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({
      id: p.credential_id,
      transports: transportsOf(p.transports),
    })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await repo.insertChallenge(ctx.db, {
    challenge: options.challenge,
    user_id: userId,
    purpose: 'register',
    expires_at: new Date(ctx.clock.now() + CHALLENGE_TTL_MS),
  });
  return options;
}

const challengeOf = (clientDataJSON: string): string => {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
};

const refused = (what: string) =>
  new AppError('validation_failed', `${what} did not verify.`, {
    details: [{ field: 'credential', issue: 'did not verify' }],
  });

export async function addPasskey(
  ctx: Context,
  audit: AuditContext,
  input: { name?: string | undefined; credential: RegistrationResponseJSON },
) {
  const userId = audit.actor.id;
  const now = ctx.clock.now();
  const challenge = challengeOf(input.credential.response.clientDataJSON);
  const taken = await repo.takeChallenge(ctx.db, challenge, 'register', new Date(now));
  if (!taken || taken.user_id !== userId) throw refused('The passkey registration');
  const rp = relyingParty(ctx);
  const { verifyRegistrationResponse } = await webauthn();
  const result = await verifyRegistrationResponse({
    response: input.credential,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) throw refused('The passkey registration');
  const { credential } = result.registrationInfo;
  const id = newId('pk', now);
  return ctx.db.transaction().execute(async (trx) => {
    if (await repo.findPasskeyByCredential(trx, credential.id)) {
      throw new AppError('conflict', 'This passkey is registered already.');
    }
    const name = input.name ?? 'Passkey';
    await repo.insertPasskey(trx, {
      id,
      user_id: userId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      name,
      created_at: new Date(now),
    });
    await repo.syncHasFactor(trx, userId);
    await memberAudit(trx, audit, 'member.passkey_added', { passkey_id: id, name });
    return { id, name, created_at: iso(new Date(now)), last_used_at: null };
  });
}

export async function passkeysOfUser(ctx: Context, userId: string) {
  const rows = await repo.passkeysOfUser(ctx.db, userId);
  return rows.map((p) => ({
    id: p.id,
    name: p.name,
    created_at: iso(p.created_at),
    last_used_at: iso(p.last_used_at),
  }));
}

/** 404 unless the passkey is the user's: checked before the password, so another's answers alike. */
export async function findPasskey(ctx: Context, userId: string, id: string): Promise<void> {
  const own = await repo.passkeysOfUser(ctx.db, userId);
  if (!own.some((p) => p.id === id)) throw notFound('passkey');
}

/** Removes a passkey (the caller checked the password and a factor); the recovery codes go with the last. */
export async function removePasskey(ctx: Context, audit: AuditContext, id: string): Promise<void> {
  const userId = audit.actor.id;
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await repo.deletePasskey(trx, userId, id);
    if (!removed) throw notFound('passkey');
    await afterFactorRemoved(trx, userId);
    await memberAudit(trx, audit, 'member.passkey_removed', { passkey_id: id, name: removed.name });
  });
}

/**
 * Options for a passkey assertion: for a known user (a second step, a step-up) its passkeys are allowed;
 * for a sign-in with a passkey alone none is named, and the authenticator offers its discoverable ones.
 */
export async function assertionOptions(ctx: Context, userId: string | null) {
  const passkeys = userId === null ? [] : await repo.passkeysOfUser(ctx.db, userId);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).id,
    allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: transportsOf(p.transports) })),
    userVerification: 'preferred',
  });
  await repo.insertChallenge(ctx.db, {
    challenge: options.challenge,
    user_id: userId,
    purpose: 'assert',
    expires_at: new Date(ctx.clock.now() + CHALLENGE_TTL_MS),
  });
  return options;
}

/**
 * The user a passkey assertion proves (its challenge taken once, its signature and counter checked), or
 * undefined. `userId` narrows it to one user's passkeys (a second step, a step-up).
 */
export async function verifyPasskey(
  ctx: Context,
  assertion: AuthenticationResponseJSON,
  userId: string | undefined,
): Promise<string | undefined> {
  const now = ctx.clock.now();
  const challenge = challengeOf(assertion.response?.clientDataJSON ?? '');
  const taken = await repo.takeChallenge(ctx.db, challenge, 'assert', new Date(now));
  if (!taken || (taken.user_id !== null && taken.user_id !== userId)) return undefined;
  const passkey = await repo.findPasskeyByCredential(ctx.db, String(assertion.id));
  if (!passkey || (userId !== undefined && passkey.user_id !== userId)) return undefined;
  const rp = relyingParty(ctx);
  const { verifyAuthenticationResponse } = await webauthn();
  const result = await verifyAuthenticationResponse({
    response: assertion,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.credential_id,
      publicKey: new Uint8Array(passkey.public_key),
      counter: passkey.counter,
      transports: transportsOf(passkey.transports),
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) return undefined;
  await repo.recordPasskeyUse(ctx.db, passkey.id, result.authenticationInfo.newCounter, new Date(now));
  return passkey.user_id;
}
