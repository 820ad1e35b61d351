// `svc`: the command line of the service. `svc --help` lists the commands; `svc <command> --help` explains
// one. Commands that open the database run against DATABASE_URL, or the embedded database while no server
// holds it (src/db/data-dir-lock.ts); the others talk to a running service over HTTP with the session that
// `svc login` stored.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import { COMMANDS } from './commands.ts';
import { CliError, type Command } from './command.ts';

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: svc <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `svc <command> --help` for the options of one command.',
    '',
  ].join('\n');
}

export function commandHelp(c: Command): string {
  return `usage: svc ${c.name} ${c.usage}\n\n${c.summary}\n\n${c.help.trimEnd()}\n`;
}

function findCommand(argv: string[]): Command | undefined {
  // The longest name that the arguments start with: `merchant create` before a bare `merchant`.
  return [...COMMANDS]
    .sort((a, b) => b.name.length - a.name.length)
    .find((c) => {
      const words = c.name.split(' ');
      return words.every((w, i) => argv[i] === w);
    });
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write(overview());
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    const asked = argv[0] === 'help' ? findCommand(argv.slice(1)) : undefined;
    process.stdout.write(asked ? commandHelp(asked) : overview());
    return 0;
  }
  const command = findCommand(argv);
  if (!command) {
    process.stderr.write(`svc: unknown command '${argv.join(' ')}'.\n\n${overview()}`);
    return 2;
  }
  const rest = argv.slice(command.name.split(' ').length);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    const result = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.positionals !== undefined,
      strict: true,
    });
    parsed = {
      values: result.values,
      positionals: result.positionals,
    };
  } catch (err) {
    process.stderr.write(`svc ${command.name}: ${(err as Error).message}\n\n${commandHelp(command)}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  return command.run(parsed.values, parsed.positionals);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message =
      err instanceof CliError
        ? err.message
        : err instanceof AppError
          ? `${err.code}: ${err.message}`
          : err instanceof ConfigError
            ? `configuration: ${err.message}`
            : err instanceof Error
              ? err.message
              : String(err);
    process.stderr.write(`svc: ${message}\n`);
    process.exit(1);
  },
);
