// `svc --help`, `svc <command> --help` and `svc <group> --help` exit 0 and print usage; every command is in
// the README; `svc --version` prints the package's version; the completion scripts complete every command,
// group, option and event type in a real bash and a real zsh.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { EVENT_CATALOG } from '../../src/modules/events/index.ts';
import { runSvc } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const target = { dataDir: '/nonexistent-svc-help' };

it('svc --help lists every command, each with its own --help, each in the README', () => {
  const top = runSvc(['--help'], target);
  expect(top.status).toBe(0);
  expect(top.stdout).toMatch(/^usage: svc <command>/);
  const names = [...top.stdout.matchAll(/^ {2}(\S+(?: [a-z]+)?) {2,}/gm)].map((m) => m[1]!);
  expect(names).toEqual([
    'start',
    'login',
    'logout',
    'members list',
    'members invite',
    'members remove',
    'listen',
    'logs tail',
    'webhooks replay',
    'attempts',
    'trigger',
    'demo',
    'merchant create',
    'events emit',
    'rotate-master-key',
    'mfa reset',
    'audit verify',
  ]);
  expect(names).toEqual(COMMANDS.map((c) => c.name));
  for (const name of names) {
    const help = runSvc([...name.split(' '), '--help'], target);
    expect(help.status, name).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^usage: svc ${name}`));
    expect(README).toContain(`svc ${name}`);
  }
  expect(runSvc(['help', 'listen'], target).stdout).toMatch(/^usage: svc listen --forward-to URL/);
}, 180_000);

it('every group answers --help with its commands, exit 0; a bare group exits 2 with the same', () => {
  const groups = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];
  expect(groups).toEqual(['members', 'logs', 'webhooks', 'merchant', 'events', 'mfa', 'audit']);
  for (const group of groups) {
    for (const args of [
      [group, '--help'],
      [group, '-h'],
      ['help', group],
    ]) {
      const help = runSvc(args, target);
      expect(help.status, args.join(' ')).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: svc ${group} <command>`));
      // Names are padded to the group's longest one.
      for (const c of COMMANDS.filter((x) => x.name.startsWith(`${group} `)))
        expect(help.stdout).toMatch(
          new RegExp(`^  ${c.name} {2,}${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
        );
    }
    const bare = runSvc([group], target);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(new RegExp(`^usage: svc ${group} <command>`));
  }
  const unknown = runSvc(['merchant', 'delete'], target);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toMatch(
    /^svc: unknown command 'merchant delete'\.\n\nusage: svc merchant <command>/,
  );
}, 120_000);

it('svc --version prints the version of the package', () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    const run = runSvc([flag], target);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^svc ${version.replaceAll('.', '\\.')} \\(Node \\d+\\.`));
  }
}, 60_000);

it('an unknown command or option exits 2 with the usage', () => {
  const unknown = runSvc(['nope'], target);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toMatch(/unknown command 'nope'[\s\S]*usage: svc <command>/);
  const option = runSvc(['trigger', '--nope'], target);
  expect(option.status).toBe(2);
  expect(option.stderr).toMatch(/Unknown option '--nope'[\s\S]*usage: svc trigger/);
}, 60_000);

// Each case: the words typed so far (the last one being completed), and what must be offered.
const CASES: [string[], string[]][] = [
  [['mer'], ['merchant']],
  [[''], [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!)), 'help', 'completion', '--version']],
  [
    ['merchant', ''],
    ['create', '--help'],
  ],
  [['events', 'e'], ['emit']],
  [['merchant', 'create', '--e'], ['--email']],
  [['trigger', 'order.p'], ['order.paid']],
  [['trigger', ''], EVENT_CATALOG.map((e) => e.id)],
  [
    ['completion', ''],
    ['bash', 'zsh'],
  ],
  [['listen', '--f'], ['--forward-to']],
  [
    ['webhooks', ''],
    ['replay', '--help'],
  ],
  [
    ['webhooks', 'replay', '--st'],
    ['--status', '--store'],
  ],
  [['attempts', '--status'], ['--status-class']],
];

it('bash completion, sourced in a real bash, completes commands, groups, options and event types', () => {
  const script = runSvc(['completion', 'bash'], target);
  expect(script.status).toBe(0);
  for (const [typed, expected] of CASES) {
    const words = ['svc', ...typed].map((w) => `'${w}'`).join(' ');
    const run = spawnSync(
      'bash',
      [
        '-c',
        `${script.stdout}\nCOMP_WORDS=(${words}); COMP_CWORD=${typed.length}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr, typed.join(' ')).toBe('');
    const offered = run.stdout.split('\n').filter(Boolean);
    for (const word of expected) expect(offered, typed.join(' ')).toContain(word);
    for (const word of offered) expect(word.startsWith(typed.at(-1)!), word).toBe(true);
  }
}, 60_000);

// zsh runs completion functions only inside its line editor: compdef and compadd are stood in for, so the
// generated function itself runs, with the words and cursor zsh would give it.
it.runIf(existsSync('/usr/bin/zsh') || existsSync('/bin/zsh'))(
  'zsh completion, sourced in a real zsh, offers the same candidates',
  () => {
    const script = runSvc(['completion', 'zsh'], target);
    expect(script.status).toBe(0);
    for (const [typed, expected] of CASES) {
      const words = ['svc', ...typed].map((w) => `'${w}'`).join(' ');
      const run = spawnSync(
        'zsh',
        [
          '-f',
          '-c',
          `compdef() { :; }\ncompadd() { [[ $1 == -- ]] && shift; printf '%s\\n' "$@"; }\n${script.stdout}\n` +
            `words=(${words}); CURRENT=${typed.length + 1}; _svc`,
        ],
        { encoding: 'utf8' },
      );
      expect(run.stderr, typed.join(' ')).toBe('');
      const offered = run.stdout.split('\n').filter(Boolean);
      // compadd filters by the typed prefix itself: every candidate of the position is offered to it.
      for (const word of expected) expect(offered, typed.join(' ')).toContain(word);
    }
  },
  60_000,
);
