// `svc start [--role all|api|worker]`: the service, as `npm start` runs it, with the role given here rather
// than in SVC_ROLE (API.md 12.1). It runs until SIGTERM or SIGINT, like `npm start`.
import { ROLES, loadConfigWith, type Role } from '../config.ts';
import { CliError, type Command } from './command.ts';

export const startCommand: Command = {
  name: 'start',
  summary: 'Run the service (as `npm start` does), optionally in one role of a fleet: all, api or worker.',
  usage: '[--role all|api|worker]',
  help: `Options:
  --role all|api|worker  what this process does (default: SVC_ROLE, else all):
                           all     the HTTP interfaces and every background loop
                           api     the HTTP interfaces only: no delivery, sealing, sweeping or retention
                           worker  the background loops only: /healthz, /readyz and /metrics on
                                   SVC_METRICS_PORT (else PORT), nothing else

Every other setting comes from the environment, as for \`npm start\` (README, "Configuration"). The api and
worker roles need DATABASE_URL: run as many of each as you like on one PostgreSQL (docs/operations.md).
Stops on SIGTERM: no new work, every claim finished or given back, exit 0.`,
  options: { role: { type: 'string' } },
  async run(values) {
    const role = values.role;
    if (role !== undefined && !(ROLES as readonly unknown[]).includes(role))
      throw new CliError(`--role must be all, api or worker, got "${String(role)}".`);
    const config = loadConfigWith(role === undefined ? {} : { SVC_ROLE: role as Role });
    const { serve } = await import('../serve.ts');
    await serve(config);
    // The service runs until a signal, whose handler exits the process.
    return new Promise<number>(() => {});
  },
};
