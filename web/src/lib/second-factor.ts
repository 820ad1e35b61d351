// Second factors in the browser (API.md section 11.3): the factor a person types or a passkey gives, and the
// WebAuthn ceremonies, through @simplewebauthn/browser.
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { api } from './api.ts';

/** A factor as the API takes it: one of the three. */
export type Factor =
  { code: string } | { recovery_code: string } | { passkey: Awaited<ReturnType<typeof startAuthentication>> };

/** A typed code: 6 digits are a TOTP code, anything else a recovery code. */
export function typedFactor(text: string): Factor {
  const code = text.trim();
  return /^\d{6}$/.test(code) ? { code } : { recovery_code: code };
}

/** The browser's passkey for the options of `path` (sign-in, second step, step-up). */
export async function passkeyFactor(path: string, body: object = {}): Promise<Factor> {
  const options = await api<PublicKeyCredentialRequestOptionsJSON>('POST', path, body);
  return { passkey: await startAuthentication({ optionsJSON: options }) };
}

/** Registers a new passkey of the signed-in user under `name`. */
export async function registerPasskey(name: string): Promise<void> {
  const options = await api<PublicKeyCredentialCreationOptionsJSON>('POST', '/auth/passkeys/options', {});
  const credential = await startRegistration({ optionsJSON: options });
  await api('POST', '/auth/passkeys', { name, credential });
}
