import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_KINDS,
  hashCredential,
  makeCredential,
  parseCredential,
  type CredentialKind,
} from '../../src/lib/credentials.ts';
import { idFloor, isId, newId } from '../../src/lib/ids.ts';
import { decryptSecret, encryptSecret } from '../../src/lib/secrets.ts';
import { randomBytes } from 'node:crypto';

const PREFIXES: [CredentialKind, 'test' | 'live' | undefined, string][] = [
  ['secret_key', 'test', 'svc_test_sk_'],
  ['secret_key', 'live', 'svc_live_sk_'],
  ['publishable_key', 'test', 'svc_test_pk_'],
  ['publishable_key', 'live', 'svc_live_pk_'],
  ['client_secret', 'test', 'svc_test_cs_'],
  ['client_secret', 'live', 'svc_live_cs_'],
  ['authorization_code', undefined, 'svc_oac_'],
  ['access_token', undefined, 'svc_oat_'],
  ['refresh_token', undefined, 'svc_ort_'],
  ['merchant_session', undefined, 'svc_mst_'],
  ['invitation', undefined, 'svc_inv_'],
];

describe('credentials', () => {
  it.each(PREFIXES)('%s (%s) carries the prefix %s and parses back', (kind, mode, prefix) => {
    const { token, hash, last4 } = makeCredential(kind, mode);
    expect(token.startsWith(prefix)).toBe(true);
    expect(token.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{36}$/);
    expect(parseCredential(token)).toEqual({ kind, mode });
    expect(hash).toEqual(hashCredential(token));
    expect(last4).toBe(token.slice(-4));
  });

  it('covers every kind', () => {
    expect(new Set(PREFIXES.map((p) => p[0]))).toEqual(new Set(Object.keys(CREDENTIAL_KINDS)));
  });

  it('refuses a mistyped, truncated or extended credential by its checksum alone', () => {
    const { token } = makeCredential('secret_key', 'live');
    const i = token.length - 10;
    const typo = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
    for (const bad of [
      typo,
      token.slice(0, -1),
      `${token}x`,
      token.replace('svc_live_', 'svc_test_'),
      '',
      'svc_',
      'Bearer',
    ]) {
      expect(parseCredential(bad)).toBeUndefined();
    }
  });

  it('makes different credentials every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => makeCredential('access_token').token));
    expect(tokens.size).toBe(1000);
  });
});

describe('ids', () => {
  it('are prefixed, random and sort by creation time', () => {
    const at = Date.now();
    const a = newId('log', at);
    const b = newId('log', at + 1);
    expect(isId('log', a)).toBe(true);
    expect(a < b).toBe(true);
    expect(idFloor('log', new Date(at + 1)) > a).toBe(true);
    expect(idFloor('log', new Date(at)) <= a).toBe(true);
  });

  it('made in one burst list in the order they were made', () => {
    const at = Date.now();
    const ids = Array.from({ length: 5000 }, () => newId('evt', at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('sealed secrets', () => {
  it('round-trip under the master key and fail under another', () => {
    const key = randomBytes(32);
    const sealed = encryptSecret(key, 'whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(decryptSecret(key, sealed)).toBe('whsec_abc');
    expect(() => decryptSecret(randomBytes(32), sealed)).toThrow();
  });
});
