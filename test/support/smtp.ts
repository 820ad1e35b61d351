// A real SMTP server for the tests (the `smtp-server` package) on a free local port: it accepts every message,
// without TLS or login, and keeps each one parsed (mailparser), as a mail provider's inbox would hold it.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Inbox {
  /** `smtp://127.0.0.1:<port>`, for SVC_SMTP_URL. */
  url: string;
  messages: ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<Inbox> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          done();
        },
        (err: Error) => done(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
