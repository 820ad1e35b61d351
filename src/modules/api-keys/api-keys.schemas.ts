import { Type } from 'typebox';
import {
  Body,
  Data,
  List,
  Mode,
  NullableTimestamp,
  PageQuery,
  PlainText,
  Scopes,
  Timestamp,
} from '../../http/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const ApiKey = Type.Object(
  {
    id: Type.String({ examples: ['key_01jd8z6q4m0000000000000000'] }),
    name: Nullable(Type.String()),
    mode: Mode,
    publishable_key: Type.String({
      description: 'svc_test_pk_... or svc_live_pk_...; read-only, browser-safe.',
    }),
    secret_key_last4: Type.String(),
    scopes: Scopes,
    status: Type.Union([
      Type.Literal('active'),
      Type.Literal('expiring'),
      Type.Literal('expired'),
      Type.Literal('revoked'),
    ]),
    rotated_from: Nullable(Type.String({ description: 'The key pair this one replaced.' })),
    created_at: Timestamp,
    last_used_at: NullableTimestamp,
    expires_at: NullableTimestamp,
    revoked_at: NullableTimestamp,
  },
  { title: 'KeyPair', description: 'A secret/publishable key pair.' },
);

export const ApiKeyWithSecret = Type.Object(
  {
    ...ApiKey.properties,
    secret_key: Type.String({
      description: 'svc_test_sk_... or svc_live_sk_...; shown only in this answer.',
    }),
  },
  { title: 'KeyPairWithSecret' },
);

export const CreateKeyBody = Body({
  name: Type.Optional(PlainText({ minLength: 1, maxLength: 100 })),
  scopes: Type.Optional(Scopes),
});

export const RotateKeyBody = Body({
  previous_key_expires_in: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 604_800,
      default: 0,
      description: 'Seconds the old pair keeps working; 0 stops it at once.',
    }),
  ),
});

export const KeyParams = Type.Object({ keyID: Type.String({ minLength: 1, maxLength: 64 }) });
export const KeyQuery = Type.Object(PageQuery);
export const KeyAnswer = Data(ApiKey);
export const KeyWithSecretAnswer = Data(ApiKeyWithSecret);
export const KeyPage = List(ApiKey);
