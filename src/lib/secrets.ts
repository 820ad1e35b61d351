// Webhook secrets are needed in clear to sign, so they are stored encrypted (AES-256-GCM under the master
// key) rather than hashed. The stored form is `v2.<key id>.<iv>.<tag>.<ciphertext>`, base64url each: the key
// id names the master key that sealed it, so SVC_MASTER_KEY can list a new key and the previous ones while
// `svc rotate-master-key` re-seals everything, and a missing key is named at start instead of showing up as
// a garbled signature. `v1.<iv>.<tag>.<ciphertext>` (before rotation existed) names no key: it is opened with
// whichever listed key authenticates it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export class UnknownMasterKeyError extends Error {
  // the type a log line names (the logger's err serializer reads `name`)
  override readonly name = 'UnknownMasterKeyError';
  readonly keyId: string | undefined;
  constructor(keyId: string | undefined) {
    super(
      keyId
        ? `sealed under master key ${keyId}, which SVC_MASTER_KEY does not list`
        : 'sealed (v1, no key id) under a master key that SVC_MASTER_KEY does not list',
    );
    this.keyId = keyId;
  }
}

/**
 * A short, non-secret name of a master key: 8 characters of a hash of it (48 bits; collisions are moot).
 * Computed at each use: one SHA-256 of 32 bytes costs about a microsecond, less than a memo is worth.
 */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256')
    .update('svc master key id\0')
    .update(key)
    .digest()
    .subarray(0, 6)
    .toString('base64url');
}

/** The key id a sealed secret names; undefined for the legacy `v1` form. */
export function sealedKeyId(sealed: string): string | undefined {
  return sealed.startsWith('v2.') ? sealed.split('.', 2)[1] : undefined;
}

export function encryptSecret(masterKey: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v2', masterKeyId(masterKey), iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

function open(key: Buffer, iv: string, tag: string, data: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** Opens a sealed secret with the key it names among `keys` (for `v1`, the first listed key that fits). */
export function decryptSecret(keys: Buffer | readonly Buffer[], sealed: string): string {
  const list = Buffer.isBuffer(keys) ? [keys] : keys;
  const parts = sealed.split('.');
  if (parts[0] === 'v2' && parts.length === 5) {
    const [, id, iv, tag, data] = parts as [string, string, string, string, string];
    const key = list.find((k) => masterKeyId(k) === id);
    if (!key) throw new UnknownMasterKeyError(id);
    return open(key, iv, tag, data);
  }
  if (parts[0] === 'v1' && parts.length === 4) {
    const [, iv, tag, data] = parts as [string, string, string, string];
    for (const key of list) {
      try {
        return open(key, iv, tag, data);
      } catch {
        // not this key: GCM's tag check refuses it; try the next
      }
    }
    throw new UnknownMasterKeyError(undefined);
  }
  throw new Error('unknown sealed secret format');
}

/** Whether `sealed` is already sealed under `current` (a rotation skips it). */
export function isSealedUnder(current: Buffer, sealed: string): boolean {
  return sealedKeyId(sealed) === masterKeyId(current);
}
