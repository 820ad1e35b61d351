// Second factors, two-step sign-in, step-up and the team's requirement (API.md section 11.3).
import { Type } from 'typebox';
import { Body, Data, List, PlainText, Timestamp } from '../../http/schemas.ts';
import { Method } from '../identity/index.ts';

const Code = Type.String({ pattern: '^[0-9]{6}$', description: 'A 6-digit TOTP code.' });
const RecoveryCode = Type.String({ minLength: 1, maxLength: 64, description: 'One of the recovery codes.' });
const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: "The signed-in user's password.",
});

const Base64Url = Type.String({ maxLength: 16_384, pattern: '^[A-Za-z0-9_-]*={0,2}$' });
const Attachment = Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')]);
const Loose = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** A browser's answer to `navigator.credentials.get()`, as @simplewebauthn/browser gives it. */
export const PasskeyAssertion = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url,
        authenticatorData: Base64Url,
        signature: Base64Url,
        userHandle: Type.Optional(Base64Url),
      },
      { additionalProperties: false },
    ),
    clientExtensionResults: Loose('The authenticator’s extension results.'),
    authenticatorAttachment: Type.Optional(Attachment),
  },
  {
    additionalProperties: false,
    title: 'PasskeyAssertion',
    description: 'The browser’s WebAuthn assertion.',
  },
);

/** A browser's answer to `navigator.credentials.create()`. */
const PasskeyAttestation = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url,
        attestationObject: Base64Url,
        authenticatorData: Type.Optional(Base64Url),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(Base64Url),
      },
      { additionalProperties: false },
    ),
    clientExtensionResults: Loose('The authenticator’s extension results.'),
    authenticatorAttachment: Type.Optional(Attachment),
  },
  { additionalProperties: false, title: 'PasskeyAttestation', description: 'The browser’s WebAuthn answer.' },
);

/** One factor, whichever: the shape of a second step, a step-up, and the factor of turning one off. */
const Factor = {
  code: Type.Optional(Code),
  recovery_code: Type.Optional(RecoveryCode),
  passkey: Type.Optional(PasskeyAssertion),
};

export const LoginMfaBody = Body({ mfa_token: Type.String({ minLength: 1, maxLength: 512 }), ...Factor });
export const StepUpBody = Body(Factor);
export const StepUp = Data(
  Type.Object({
    method: Method,
    stepped_up_at: Timestamp,
    expires_at: Timestamp,
  }),
);
export const AssertionOptionsBody = Body({
  mfa_token: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});
export const LoginPasskeyBody = Body({ passkey: PasskeyAssertion });

export const WebAuthnOptions = Data(
  Loose('PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON, for the browser.'),
);

export const TotpEnrolment = Data(
  Type.Object(
    {
      secret: Type.String({ description: 'Base32, for typing into an authenticator app.' }),
      otpauth_url: Type.String({ description: 'The same as an otpauth:// URL, for a QR code.' }),
    },
    { title: 'TotpEnrolment' },
  ),
);
export const ConfirmTotpBody = Body({ code: Code });
export const RecoveryCodes = Data(
  Type.Object(
    { recovery_codes: Type.Array(Type.String(), { description: 'Each works once. Shown only here.' }) },
    { title: 'RecoveryCodes' },
  ),
);

/** Turning a factor off: the password, and a factor unless the session stepped up in the last 10 minutes. */
export const TurnOffBody = Body({ password: Password, ...Factor });

export const Passkey = Type.Object(
  {
    id: Type.String({ examples: ['pk_01jd8z6q4m0000000000000000'] }),
    name: Type.String(),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Passkey' },
);
export const PasskeyData = Data(Passkey);
export const PasskeyList = List(Passkey);
export const AddPasskeyBody = Body({
  name: Type.Optional(PlainText({ minLength: 1, maxLength: 100 })),
  credential: PasskeyAttestation,
});
export const PasskeyParams = Type.Object({ passkeyID: Type.String({ maxLength: 64 }) });

export const Factors = Data(
  Type.Object(
    {
      totp: Type.Boolean(),
      passkeys: Type.Integer(),
      recovery_codes_left: Type.Integer(),
      stepped_up_until: Type.Union([Timestamp, Type.Null()]),
    },
    { title: 'Factors' },
  ),
);
