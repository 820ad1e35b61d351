// `svc --help` and `svc <command> --help` exit 0 and print usage; every command is in the README.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runSvc } from '../support/processes.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const target = { dataDir: '/nonexistent-svc-help' };

it('svc --help lists every command, each with its own --help, each in the README', () => {
  const top = runSvc(['--help'], target);
  expect(top.status).toBe(0);
  expect(top.stdout).toMatch(/^usage: svc <command>/);
  const names = [...top.stdout.matchAll(/^ {2}(\S+(?: [a-z]+)?) {2,}/gm)].map((m) => m[1]!);
  expect(names).toEqual([
    'login',
    'logout',
    'listen',
    'logs tail',
    'trigger',
    'merchant create',
    'events emit',
    'rotate-master-key',
    'audit verify',
  ]);
  for (const name of names) {
    const help = runSvc([...name.split(' '), '--help'], target);
    expect(help.status, name).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^usage: svc ${name}`));
    expect(README).toContain(`svc ${name}`);
  }
  expect(runSvc(['help', 'listen'], target).stdout).toMatch(/^usage: svc listen --forward-to URL/);
}, 180_000);

it('an unknown command or option exits 2 with the usage', () => {
  const unknown = runSvc(['nope'], target);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toMatch(/unknown command 'nope'[\s\S]*usage: svc <command>/);
  const option = runSvc(['trigger', '--nope'], target);
  expect(option.status).toBe(2);
  expect(option.stderr).toMatch(/Unknown option '--nope'[\s\S]*usage: svc trigger/);
}, 60_000);
