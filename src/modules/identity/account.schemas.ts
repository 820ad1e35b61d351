import { Type } from 'typebox';
import { Body, Data, List, PlainText, Timestamp } from '../../http/schemas.ts';
import { Merchant, Store } from '../merchants/index.ts';

export const Role = Type.Union(
  [Type.Literal('viewer'), Type.Literal('developer'), Type.Literal('admin'), Type.Literal('owner')],
  { title: 'Role', description: 'A member’s role in a merchant (API.md section 11.2), from least to most.' },
);

export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    role: Role,
    created_at: Timestamp,
  },
  { title: 'User' },
);
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({ minLength: 10, maxLength: 1024 });

export const SignupBody = Body({
  merchant_name: PlainText({ minLength: 1, maxLength: 100 }),
  email: Email,
  password: Password,
});
export const LoginBody = Body({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const Session = Data(
  Type.Object({ token: Type.String(), expires_at: Timestamp, user: User, merchant: Merchant }),
);
export const Membership = Type.Object(
  {
    merchant: Type.Object({ id: Type.String(), name: Type.String() }),
    role: Role,
  },
  { title: 'Membership' },
);
export const Me = Data(
  Type.Object({
    user: User,
    merchant: Merchant,
    role: Role,
    memberships: Type.Array(Membership, { description: 'Every merchant the user belongs to.' }),
    stores: Type.Array(Store),
    mfa_enrolment_required: Type.Boolean({
      description:
        'The merchant requires a second factor and this user has none: every call but enrolment answers 403 ' +
        '`mfa_enrolment_required` until it enrols one (API.md 12.4).',
    }),
  }),
);

export const SwitchBody = Body({ merchant_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const SessionInfo = Type.Object(
  {
    id: Type.String({ examples: ['ses_01jd8z6q4m0000000000000000'] }),
    merchant_id: Type.String({ description: 'The merchant the session opens.' }),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()], {
      description: 'Written in batches: it may trail by some seconds.',
    }),
    expires_at: Timestamp,
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'The session of this call.' }),
  },
  { title: 'SessionInfo' },
);
export const SessionList = List(SessionInfo);
export const SessionParams = Type.Object({ sessionID: Type.String({ maxLength: 64 }) });

/** A way to give the second factor. */
export const Method = Type.Union(
  [Type.Literal('totp'), Type.Literal('passkey'), Type.Literal('recovery_code')],
  { description: 'A way to give the second factor.' },
);

/** The answer of a sign-in whose user has a second factor: the second step (the second-factors module's routes). */
export const SecondStep = Data(
  Type.Object(
    {
      mfa_required: Type.Literal(true),
      mfa_token: Type.String({ description: 'For POST /auth/login/mfa, within 5 minutes.' }),
      methods: Type.Array(Method),
    },
    { title: 'SecondStep' },
  ),
);
