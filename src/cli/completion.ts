// `svc completion bash|zsh`: a completion script for the shell, generated from the command table, so a new
// command completes with no other edit (re-source the script after an upgrade). The script is static: a TAB
// costs the shell a `case`, never a Node start. Words are completed by what precedes them: the commands and
// groups first, then a group's commands, then a command's options (and the values of its argument, such as
// the event types of `trigger`).
import type { Command } from './command.ts';
import { BUILTINS, groupsOf } from './help.ts';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

const SAFE = /^[A-Za-z0-9._:-]+$/;

/** After which words (joined by spaces) which candidates come: the most specific first. */
async function cases(commands: readonly Command[]): Promise<[string, string[]][]> {
  const out: [string, string[]][] = [];
  for (const c of [...commands].sort((a, b) => b.name.length - a.name.length)) {
    const values = c.values ? await c.values() : [];
    const options = Object.keys(c.options ?? {}).map((o) => `--${o}`);
    out.push([c.name, [...values, ...options, '--help']]);
  }
  for (const [group, members] of groupsOf(commands)) {
    out.push([group, [...members.map((m) => m.name.split(' ')[1]!), '--help']]);
  }
  const top = [...new Set([...commands.map((c) => c.name.split(' ')[0]!), ...BUILTINS])];
  out.push(['completion', [...SHELLS]]);
  out.push(['help', top.filter((w) => w !== 'help' && w !== 'completion')]);
  out.push(['', [...top, '--help', '--version']]);
  return out.map(([after, words]) => [after, words.filter((w) => SAFE.test(w))]);
}

// `" a b "*`: the words before the cursor begin with `a b`; the empty case is the first word.
const pattern = (after: string) => (after ? `" ${after} "*` : '"  "');

export async function completionScript(shell: Shell, commands: readonly Command[]): Promise<string> {
  const branches = (await cases(commands)).map(([after, words]) =>
    shell === 'bash'
      ? `    ${pattern(after)}) words="${words.join(' ')}" ;;`
      : `    ${pattern(after)}) candidates=(${words.join(' ')}) ;;`,
  );
  if (shell === 'bash') {
    return [
      '# bash completion of svc, generated from its command table: source <(npx svc completion bash)',
      '_svc() {',
      '  local cur="${COMP_WORDS[COMP_CWORD]}" words=""',
      '  case " ${COMP_WORDS[*]:1:COMP_CWORD-1} " in',
      ...branches,
      '  esac',
      '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
      '}',
      'complete -F _svc svc',
      '',
    ].join('\n');
  }
  return [
    '#compdef svc',
    '# zsh completion of svc, generated from its command table: source <(npx svc completion zsh)',
    '# (after compinit, which defines compdef)',
    '_svc() {',
    '  local -a candidates',
    '  case " ${(j: :)words[2,CURRENT-1]} " in',
    ...branches,
    '  esac',
    '  compadd -- "${candidates[@]}"',
    '}',
    'compdef _svc svc',
    '',
  ].join('\n');
}
