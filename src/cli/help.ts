// What `svc` says about itself, all derived from the command table (commands.ts): the overview, a group's
// commands (`svc merchant --help`), one command's help, and the lookup of a command by its words. A command
// added to the table appears in all of them, and in shell completion (completion.ts), with no other edit.
import type { Command } from './command.ts';

/** What the dispatcher itself answers, beside the table: named in the overview, completed like commands. */
export const BUILTINS = ['help', 'completion'] as const;

/** A group is the first word of commands named by two words or more: `merchant` of `merchant create`. */
export function groupsOf(commands: readonly Command[]): Map<string, Command[]> {
  const groups = new Map<string, Command[]>();
  for (const c of commands) {
    const [first, ...rest] = c.name.split(' ');
    if (rest.length > 0) groups.set(first!, [...(groups.get(first!) ?? []), c]);
  }
  return groups;
}

function table(rows: readonly { name: string; summary: string }[]): string[] {
  const width = Math.max(...rows.map((r) => r.name.length));
  return rows.map((r) => `  ${r.name.padEnd(width)}  ${r.summary}`);
}

export function overview(commands: readonly Command[]): string {
  return [
    'usage: svc <command> [options]',
    '',
    'Commands:',
    ...table(commands),
    '',
    'Run `svc <command> --help` for the options of one command, `svc <group> --help` for the commands of',
    `a group (${[...groupsOf(commands).keys()].join(', ')}). \`svc --version\` prints the version;`,
    '`svc completion bash|zsh` prints a shell completion script.',
    '',
  ].join('\n');
}

export function groupHelp(group: string, commands: readonly Command[]): string {
  const members = groupsOf(commands).get(group) ?? [];
  return [
    `usage: svc ${group} <command> [options]`,
    '',
    'Commands:',
    ...table(members),
    '',
    `Run \`svc ${group} <command> --help\` for the options of one.`,
    '',
  ].join('\n');
}

export async function commandHelp(c: Command): Promise<string> {
  const help = typeof c.help === 'string' ? c.help : await c.help();
  return `usage: svc ${c.name} ${c.usage}\n\n${c.summary}\n\n${help.trimEnd()}\n`;
}

/** The command whose words the arguments start with, the longest first: `merchant create` before `merchant`. */
export function findCommand(commands: readonly Command[], argv: readonly string[]): Command | undefined {
  return [...commands]
    .sort((a, b) => b.name.length - a.name.length)
    .find((c) => c.name.split(' ').every((w, i) => argv[i] === w));
}
