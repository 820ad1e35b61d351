// `svc`: the command line of the service. `svc --help` lists the commands; `svc <command> --help` explains
// one, `svc <group> --help` the commands of a group; `svc --version` prints the version; `svc completion`
// prints a shell completion script. All of it is derived from the command table (commands.ts). Commands
// that open the database run against DATABASE_URL, or the embedded database while no server holds it
// (src/db/data-dir-lock.ts); the others talk to a running service over HTTP with the session that
// `svc login` stored.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import { COMMANDS } from './commands.ts';
import { CliError } from './command.ts';
import { SHELLS, completionScript, type Shell } from './completion.ts';
import { commandHelp, findCommand, groupHelp, groupsOf, overview } from './help.ts';

const HELP = ['--help', '-h'];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `svc ${pkg.version} (Node ${process.versions.node})\n`;
}

/** `svc help [words]` and `svc <words> --help`: the command's help, a group's, or the overview. */
async function helpFor(words: readonly string[]): Promise<string> {
  const command = findCommand(COMMANDS, words);
  if (command) return commandHelp(command);
  if (words.length > 0 && groupsOf(COMMANDS).has(words[0]!)) return groupHelp(words[0]!, COMMANDS);
  return overview(COMMANDS);
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write(overview(COMMANDS));
    return 2;
  }
  const [first, ...rest] = argv as [string, ...string[]];
  if (first === '--version' || first === '-V' || first === 'version') {
    process.stdout.write(version());
    return 0;
  }
  if (HELP.includes(first) || first === 'help') {
    process.stdout.write(await helpFor(rest));
    return 0;
  }
  if (first === 'completion') {
    if (HELP.includes(rest[0] ?? '')) {
      process.stdout.write(`usage: svc completion ${SHELLS.join('|')}\n\n${completionUsage}`);
      return 0;
    }
    const shell = rest[0] as Shell;
    if (rest.length !== 1 || !SHELLS.includes(shell)) {
      process.stderr.write(`svc completion: give one shell, ${SHELLS.join(' or ')}.\n\n${completionUsage}`);
      return 2;
    }
    process.stdout.write(await completionScript(shell, COMMANDS));
    return 0;
  }
  const command = findCommand(COMMANDS, argv);
  if (!command) {
    const group = groupsOf(COMMANDS).has(first) ? first : undefined;
    if (group && (rest.length === 0 || HELP.includes(rest[0]!))) {
      // `svc merchant --help` explains the group; a bare `svc merchant` is a command left unfinished.
      const asked = rest.length > 0;
      (asked ? process.stdout : process.stderr).write(groupHelp(group, COMMANDS));
      return asked ? 0 : 2;
    }
    process.stderr.write(
      `svc: unknown command '${argv.join(' ')}'.\n\n${group ? groupHelp(group, COMMANDS) : overview(COMMANDS)}`,
    );
    return 2;
  }
  const args = argv.slice(command.name.split(' ').length);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    const result = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.positionals !== undefined,
      strict: true,
    });
    parsed = { values: result.values, positionals: result.positionals };
  } catch (err) {
    process.stderr.write(`svc ${command.name}: ${(err as Error).message}\n\n${await commandHelp(command)}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(await commandHelp(command));
    return 0;
  }
  return command.run(parsed.values, parsed.positionals);
}

const completionUsage = `Prints a completion script of every svc command, group, option and event type:
  source <(npx svc completion bash)    # in ~/.bashrc
  source <(npx svc completion zsh)     # in ~/.zshrc, after compinit
It completes the word \`svc\`: a global install, \`npm link\`, or \`alias svc='npx svc'\`.
`;

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
