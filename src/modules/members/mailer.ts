// The invitation email, sent through SVC_SMTP_URL when it is set (nodemailer's SMTP transport, pooled off: a
// few invitations a day). Sent after the invitation commits and not awaited by the request: the answer carries
// the link anyway, and a mail server that is slow or down must not hold the inviter up. A failure is logged;
// the sends in flight are awaited by the module's stop. nodemailer is loaded only where a mail server is set
// (about 60 ms of every other process's start).
import type { Context } from '../../context.ts';
import type { Role } from '../../http/roles.ts';

export interface InvitationMail {
  to: string;
  merchantName: string;
  role: Role;
  inviter: string;
  url: string;
  expiresAt: string;
}

export interface Mailer {
  /** Sends in the background; `false` when no mail server is configured. */
  sendInvitation(mail: InvitationMail): boolean;
  /** Waits for the sends in flight, then closes the transport. */
  close(): Promise<void>;
}

function invitationText(mail: InvitationMail): string {
  return [
    `${mail.inviter} invited you to join ${mail.merchantName} on svc as ${mail.role}.`,
    '',
    `Accept the invitation here (the link works once, until ${mail.expiresAt}):`,
    mail.url,
    '',
    'If you did not expect this invitation, ignore this email: nothing happens unless the link is opened.',
    '',
  ].join('\n');
}

export function createMailer(ctx: Context): Mailer {
  const url = ctx.config.smtpUrl;
  if (!url) return { sendInvitation: () => false, close: async () => {} };
  const transport = import('nodemailer').then((m) => m.default.createTransport(url));
  const inFlight = new Set<Promise<void>>();
  return {
    sendInvitation(mail) {
      const sending = transport
        .then((t) =>
          t.sendMail({
            from: ctx.config.mailFrom,
            to: mail.to,
            subject: `You are invited to ${mail.merchantName} on svc`,
            text: invitationText(mail),
          }),
        )
        .then(
          () => ctx.log.info({ to_domain: mail.to.split('@')[1] }, 'invitation email sent'),
          (err: unknown) => ctx.log.warn({ err }, 'invitation email not sent'),
        )
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
      return true;
    },
    async close() {
      await Promise.all(inFlight);
      (await transport).close();
    },
  };
}
