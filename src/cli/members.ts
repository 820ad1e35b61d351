// `svc members list|invite|remove`: the team of the merchant `svc login` opened (API.md section 11.2),
// through the running service with the stored session; the role the routes need is the session's to have.
import { CliError, printResult, type Command, type Values } from './command.ts';
import { apiUrl, callApi, requireSession } from './session.ts';

interface Member {
  id: string;
  email: string;
  name: string | null;
  role: string;
  joined_at: string;
  last_active_at: string | null;
}

interface Exposed {
  type: string;
  id: string;
  name: string | null;
  mode: string;
  how: string;
  seen_at: string;
  expires_at: string | null;
}

/** The service and the session of a command that talks to it. */
function target(values: Values) {
  const session = requireSession();
  return { base: apiUrl(values['api-url'], session), session };
}

const API_URL_HELP = '  --api-url URL  the service (default: where `svc login` signed in)';

function columns(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export const membersList: Command = {
  name: 'members list',
  summary: "List the signed-in merchant's members and their roles.",
  usage: '[--api-url URL] [--json]',
  help: `Options:
${API_URL_HELP}
  --json         print the members as JSON`,
  options: { 'api-url': { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const { base, session } = target(values);
    const page = await callApi<{ items: Member[] }>(base, session, 'GET', '/api/v1/merchant/members');
    if (values.json) {
      printResult(values, page.items);
      return 0;
    }
    const rows = page.items.map((m) => [m.email, m.role, m.last_active_at ?? 'never', m.id]);
    process.stdout.write(columns([['EMAIL', 'ROLE', 'LAST ACTIVE', 'ID'], ...rows]));
    return 0;
  },
};

export const membersInvite: Command = {
  name: 'members invite',
  summary: 'Invite someone to the team: prints the single-use link (valid 7 days).',
  usage: '--email EMAIL --role owner|admin|developer|viewer [--api-url URL] [--json]',
  help: `Options:
  --email EMAIL  whom to invite
  --role ROLE    viewer (reads), developer (also changes, secrets, exports), admin (also installs apps and
                 manages members), owner (everything, owners too)
${API_URL_HELP}
  --json         print the invitation as JSON

The link is shown once; the service also emails it when it has a mail server (SVC_SMTP_URL). Inviting an
address that has a pending invitation replaces it: its link stops working, and the output says so. Needs
the admin role (owner to invite an owner).`,
  options: {
    email: { type: 'string' },
    role: { type: 'string' },
    'api-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    if (typeof values.email !== 'string' || typeof values.role !== 'string') {
      throw new CliError(
        'give --email and --role, e.g. `svc members invite --email ann@example.com --role developer`.',
      );
    }
    const { base, session } = target(values);
    const made = await callApi<{
      url: string;
      expires_at: string;
      emailed: boolean;
      role: string;
      replaced: { id: string; role: string; created_at: string } | null;
    }>(base, session, 'POST', '/api/v1/merchant/members/invitations', {
      email: values.email,
      role: values.role,
    });
    if (values.json) {
      printResult(values, made);
      return 0;
    }
    // A second invitation to the address replaces the first: said, so that nobody sends the dead link.
    const replacedLine = made.replaced
      ? `It replaces the invitation sent ${made.replaced.created_at} (${made.replaced.id}, as ${made.replaced.role}), whose link no longer works.\n`
      : '';
    process.stdout.write(
      `Invited ${values.email} as ${made.role}${made.emailed ? ' (an email is on its way)' : ''}. The link works once, until ${made.expires_at}:\n${made.url}\n${replacedLine}`,
    );
    return 0;
  },
};

export const membersRemove: Command = {
  name: 'members remove',
  summary: 'Remove a member: its sessions end at once; lists the credentials it saw that still work.',
  usage: '<usr_...|email> [--api-url URL] [--json]',
  help: `Arguments:
  member         the member's id (usr_...) or email

Options:
${API_URL_HELP}
  --json         print the answer as JSON

Rotate what the member saw in clear from the dashboard (Settings -> Team) or with
POST /api/v1/merchant/members/{userID}/exposed-credentials/rotate. Needs the admin role (owner for an owner).`,
  options: { 'api-url': { type: 'string' }, json: { type: 'boolean' } },
  positionals: true,
  async run(values, positionals) {
    const [who, ...extra] = positionals;
    if (!who || extra.length > 0) throw new CliError('give one member, by id (usr_...) or email.');
    const { base, session } = target(values);
    let id = who;
    if (!who.startsWith('usr_')) {
      const page = await callApi<{ items: Member[] }>(base, session, 'GET', '/api/v1/merchant/members');
      const found = page.items.find((m) => m.email.toLowerCase() === who.toLowerCase());
      if (!found) throw new CliError(`${who} is not a member of this merchant.`);
      id = found.id;
    }
    const answer = await callApi<{ removed: Member; exposed_credentials: Exposed[] }>(
      base,
      session,
      'DELETE',
      `/api/v1/merchant/members/${encodeURIComponent(id)}`,
    );
    if (values.json) {
      printResult(values, answer);
      return 0;
    }
    const exposed = answer.exposed_credentials;
    process.stdout.write(
      `Removed ${answer.removed.email} (${answer.removed.role}); its sessions have ended.\n`,
    );
    if (exposed.length === 0) {
      process.stdout.write('It saw no credential in clear that still works.\n');
      return 0;
    }
    process.stdout.write(`It saw in clear ${exposed.length} credential(s) that still work:\n`);
    const rows = exposed.map((e) => [e.type, e.id, e.name ?? '', e.mode, `${e.how} ${e.seen_at}`]);
    process.stdout.write(columns([['TYPE', 'ID', 'NAME', 'MODE', 'SEEN'], ...rows]));
    process.stdout.write(
      `Rotate them: Settings -> Team in the dashboard, or POST /api/v1/merchant/members/${id}/exposed-credentials/rotate\n`,
    );
    return 0;
  },
};
