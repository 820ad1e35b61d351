// Every credential of the contract (API.md section 4) is made and recognised here. The random part is
// 30 base62 characters (178 bits) followed by a 6-character base62 CRC-32 of everything before it, as
// GitHub's tokens do: a mistyped or truncated credential is refused before any lookup, and a leaked one
// can be recognised offline by its prefix and checksum.
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6;

export type Mode = 'test' | 'live';

export const CREDENTIAL_KINDS = {
  secret_key: { prefix: 'sk', moded: true },
  publishable_key: { prefix: 'pk', moded: true },
  client_secret: { prefix: 'cs', moded: true },
  authorization_code: { prefix: 'oac', moded: false },
  access_token: { prefix: 'oat', moded: false },
  refresh_token: { prefix: 'ort', moded: false },
  merchant_session: { prefix: 'mst', moded: false },
  invitation: { prefix: 'inv', moded: false },
} as const;
export type CredentialKind = keyof typeof CREDENTIAL_KINDS;

export interface ParsedCredential {
  kind: CredentialKind;
  /** Only for the kinds whose prefix names a mode (keys and client secrets). */
  mode: Mode | undefined;
}

/** `length` random base62 characters, each equally likely. */
export function randomBase62(length: number): string {
  return base62(randomBytes(length + 8), length);
}

function base62(bytes: Buffer, length: number): string {
  // 256 % 62 = 8: rejecting bytes >= 248 keeps every character equally likely.
  let out = '';
  let source = bytes;
  let i = 0;
  while (out.length < length) {
    if (i === source.length) {
      source = randomBytes(length);
      i = 0;
    }
    const byte = source[i++]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function prefixOf(kind: CredentialKind, mode: Mode | undefined): string {
  const spec = CREDENTIAL_KINDS[kind];
  if (spec.moded) {
    if (!mode) throw new Error(`credential ${kind} needs a mode`);
    return `svc_${mode}_${spec.prefix}_`;
  }
  return `svc_${spec.prefix}_`;
}

export function hashCredential(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * The same SHA-256 as base64 text, the key of the verification caches: the one-shot `hash` answering text
 * takes 0.3 us where a Hash object and its Buffer take 1.8 us, on every public call. A cache miss turns it
 * back into bytes for the lookup (`Buffer.from(key, 'base64')`).
 */
export function credentialKey(token: string): string {
  return hash('sha256', token, 'base64');
}

export interface NewCredential {
  token: string;
  hash: Buffer;
  last4: string;
}

export function makeCredential(kind: CredentialKind, mode?: Mode): NewCredential {
  const body = prefixOf(kind, mode) + base62(randomBytes(RANDOM_CHARS + 8), RANDOM_CHARS);
  const token = body + checksum(body);
  return { token, hash: hashCredential(token), last4: token.slice(-4) };
}

const PREFIXES: ReadonlyMap<string, ParsedCredential> = new Map(
  (Object.keys(CREDENTIAL_KINDS) as CredentialKind[]).flatMap((kind): [string, ParsedCredential][] =>
    CREDENTIAL_KINDS[kind].moded
      ? (['test', 'live'] as const).map((mode) => [prefixOf(kind, mode), { kind, mode }])
      : [[prefixOf(kind, undefined), { kind, mode: undefined }]],
  ),
);
const TAIL = new RegExp(`^[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/** Recognises a credential by shape and checksum alone; `undefined` for anything malformed. */
export function parseCredential(token: string): ParsedCredential | undefined {
  const cut = token.lastIndexOf('_') + 1;
  const parsed = PREFIXES.get(token.slice(0, cut));
  if (!parsed) return undefined;
  const tail = token.slice(cut);
  if (!TAIL.test(tail)) return undefined;
  const body = token.slice(0, token.length - CHECKSUM_CHARS);
  if (checksum(body) !== token.slice(-CHECKSUM_CHARS)) return undefined;
  return parsed;
}

export function sameHash(a: Buffer | Uint8Array, b: Buffer | Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

// A credential of ours, or any text that starts like one: the prefix and 8 characters of its alphabet. Wider
// than parseCredential (no checksum, any length, anywhere in the text) because it guards where a secret
// must never land (names, URLs, audit metadata), and a truncated or mistyped secret is still one there.
const SECRET_SHAPE =
  /svc_(?:test_|live_)?(?:sk|cs|oac|oat|ort|mst|inv)_[0-9A-Za-z]{8}|whsec_[A-Za-z0-9+/]{8}/;
const SECRET_SHAPES = new RegExp(
  `${SECRET_SHAPE.source.replace('{8}', '{8,}').replace('{8}', '{8,}')}=*`,
  'g',
);

/** True when the text holds something shaped like a secret credential (publishable keys are not secret). */
export function looksLikeSecret(text: string): boolean {
  return SECRET_SHAPE.test(text);
}

/** The text with every secret-shaped run replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_SHAPES, '[redacted]');
}
