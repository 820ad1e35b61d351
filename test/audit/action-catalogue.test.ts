// One catalogue of audit actions (src/modules/audit/actions.ts): the Logs tab's filter imports it and offers
// exactly its actions, family by family, and every action the service's code names is in it: the code is read
// for every string literal of an audit family (`'member.removed'`), wherever it is passed from, so a module
// that starts writing a new action fails here until the catalogue has it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_AUDIT_ACTIONS, AUDIT_ACTIONS } from '../../src/modules/audit/index.ts';
import { FAMILIES, FAMILY_LABELS } from '../../web/src/pages/logs/actions.ts';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Every string literal of the code that names an action of an audit family: `'webhook.created'`. */
function writtenActions(): Set<string> {
  const families = Object.keys(AUDIT_ACTIONS).join('|');
  const literal = new RegExp(`'((?:${families})\\.[a-z_]+)'`, 'g');
  const found = new Set<string>();
  for (const file of sources(SRC)) {
    if (file.endsWith(join('audit', 'actions.ts'))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(literal)) found.add(m[1]!);
  }
  return found;
}

describe('the audit actions catalogue', () => {
  it('is what the Logs filter offers, family by family, each family labelled', () => {
    expect(FAMILIES).toBe(AUDIT_ACTIONS);
    expect(Object.keys(FAMILY_LABELS).sort()).toEqual(Object.keys(AUDIT_ACTIONS).sort());
    // the dashboard imports the file itself: it must stay data, bringing nothing else of the service along
    expect(readFileSync(join(SRC, 'modules/audit/actions.ts'), 'utf8')).not.toMatch(
      /^\s*(import|export .* from)\b/m,
    );
  });

  it('files each action under the family its name starts with, once', () => {
    for (const [family, actions] of Object.entries(AUDIT_ACTIONS)) {
      for (const action of actions) expect(action.startsWith(`${family}.`), action).toBe(true);
    }
    expect(new Set(ALL_AUDIT_ACTIONS).size).toBe(ALL_AUDIT_ACTIONS.length);
  });

  it('holds every action the code writes, and the families the team journey needs', () => {
    const written = writtenActions();
    // The scan finds the writers: if it found none, it would prove nothing.
    expect(written.size).toBeGreaterThan(30);
    const missing = [...written].filter((a) => !(ALL_AUDIT_ACTIONS as readonly string[]).includes(a));
    expect(missing).toEqual([]);
    for (const family of ['member', 'merchant', 'webhook', 'developer_app', 'api_key', 'audit_log']) {
      expect(Object.keys(AUDIT_ACTIONS)).toContain(family);
    }
    expect(ALL_AUDIT_ACTIONS).toContain('webhook.listener_opened');
  });
});
