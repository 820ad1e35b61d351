import { Type } from 'typebox';
import { Body, Data, List, PlainText, Timestamp } from '../../http/schemas.ts';
import { Email, Role } from '../identity/index.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const Member = Type.Object(
  {
    id: Type.String({ examples: ['usr_01jd8z6q4m0000000000000000'] }),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: Role,
    joined_at: Timestamp,
    last_active_at: Type.Union([Timestamp, Type.Null()], {
      description: 'The last use of one of its sessions in this merchant (written in batches).',
    }),
  },
  { title: 'Member' },
);
export const MemberList = List(Member);
export const MemberAnswer = Data(Member);
export const MemberParams = Type.Object({ userID: Type.String({ maxLength: 64 }) });
export const RoleBody = Body({ role: Role });

export const ExposedCredential = Type.Object(
  {
    type: Type.Union([
      Type.Literal('api_key'),
      Type.Literal('client_secret'),
      Type.Literal('webhook_secret'),
    ]),
    id: Type.String({ description: 'The key pair (key_), app (app_) or webhook (wh_).' }),
    name: Nullable(Type.String()),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    seen_at: Timestamp,
    how: Type.Union([Type.Literal('created'), Type.Literal('rotated'), Type.Literal('revealed')]),
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'Null while the secret seen is the current one; else the end of the grace it works within.',
    }),
  },
  { title: 'ExposedCredential' },
);
export const ExposedList = List(ExposedCredential);
export const RemovedAnswer = Data(
  Type.Object({ removed: Member, exposed_credentials: Type.Array(ExposedCredential) }),
);

export const FormerMember = Type.Object(
  {
    id: Type.String({ description: 'The former member’s user id (usr_).' }),
    email: Type.String(),
    removed_at: Timestamp,
    removed_by: Nullable(Type.String({ description: 'The user who removed the member (usr_).' })),
    removed_by_email: Nullable(Type.String()),
    exposed_credentials: Type.Array(ExposedCredential, {
      description: 'As the removal’s answer: what the member saw in clear that still works now.',
    }),
  },
  { title: 'FormerMember' },
);
export const FormerMemberList = List(FormerMember);

export const RotateExposedBody = Body({
  previous_expires_in: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 604_800,
      default: 0,
      description: 'Seconds each replaced secret keeps working (0: it stops now).',
    }),
  ),
});
export const RotatedAnswer = Data(
  Type.Object({
    credentials: Type.Array(
      Type.Object(
        {
          type: ExposedCredential.properties.type,
          id: Type.String(),
          name: Nullable(Type.String()),
          mode: ExposedCredential.properties.mode,
          outcome: Type.Union([Type.Literal('rotated'), Type.Literal('ended'), Type.Literal('skipped')], {
            description:
              'rotated: a new secret; ended: a key pair already replaced, revoked; skipped: it changed meanwhile.',
          }),
          secret: Type.Union([Type.String(), Type.Null()], {
            description: 'The new secret, shown this once.',
          }),
          new_id: Type.Union([Type.String(), Type.Null()], { description: 'A rotated key pair’s new id.' }),
          error: Type.Union([Type.String(), Type.Null()]),
        },
        { title: 'RotatedCredential' },
      ),
    ),
  }),
);

export const Invitation = Type.Object(
  {
    id: Type.String({ examples: ['inv_01jd8z6q4m0000000000000000'] }),
    email: Type.String(),
    role: Role,
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  { title: 'Invitation' },
);
export const InvitationList = List(Invitation);
export const InvitationCreated = Data(
  Type.Object({
    ...Invitation.properties,
    url: Type.String({ description: 'The link with the single-use token (svc_inv_): in this answer only.' }),
    emailed: Type.Boolean({ description: 'Whether an email is on its way (SVC_SMTP_URL is set).' }),
    replaced: Type.Union(
      [
        Type.Object(
          { id: Type.String(), role: Role, created_at: Timestamp, expires_at: Timestamp },
          { title: 'ReplacedInvitation' },
        ),
        Type.Null(),
      ],
      {
        description:
          'The pending invitation to the same address this one replaced: its link no longer works. Null ' +
          'when there was none.',
      },
    ),
  }),
);
export const InviteBody = Body({ email: Email, role: Role });
export const InvitationParams = Type.Object({ invitationID: Type.String({ maxLength: 64 }) });

const Token = Type.String({ minLength: 1, maxLength: 200 });
export const InvitationTokenBody = Body({ token: Token });
export const InvitationPreview = Data(
  Type.Object({
    email: Type.String(),
    role: Role,
    merchant: Type.Object({ id: Type.String(), name: Type.String() }),
    expires_at: Timestamp,
    account_exists: Type.Boolean({
      description: 'Whether the email has an account, which accepts with its password.',
    }),
  }),
);
export const AcceptBody = Body({
  token: Token,
  // An existing user's password, or a new account's (the policy is checked then: 400 naming it).
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  name: Type.Optional(PlainText({ minLength: 1, maxLength: 100 })),
});
