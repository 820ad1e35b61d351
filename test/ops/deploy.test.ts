// The reference deployment in deploy/ names only what exists (docs/operations.md, "Running a fleet"): the
// commands its units and containers run (files on disk, `svc start --role` with a role the command takes, the
// same as SVC_ROLE), the variables it sets (each read by src/config.ts, and together a configuration that
// loads), and the ports its probes and Service use (the ports the process listens on for its role: PORT for
// the API, SVC_METRICS_PORT for a worker's probes).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig, probePort, servesApi } from '../../src/config.ts';
import { COMMANDS } from '../../src/cli/commands.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Where the units and the image keep the checkout. */
const INSTALL = '/opt/svc/';
const PROBES = new Set(['/healthz', '/readyz']);

/** The variables src/config.ts reads: `env.NAME`, or a 'NAME' it passes to a reader. */
const CONFIG_VARIABLES = new Set(
  ['src/config.ts', 'src/config-values.ts', 'src/config-replicas.ts'].flatMap((file) =>
    [...read(file).matchAll(/(?:\benv\.|')([A-Z][A-Z0-9_]*[A-Z0-9])\b/g)].map((m) => m[1]!),
  ),
);

/** A configuration made of `env`, with a master key of the right shape for the placeholder. */
function configOf(env: Record<string, string>) {
  return loadConfig(env, { masterKey: Buffer.alloc(32), masterKeys: [Buffer.alloc(32)] });
}

/** `node bin/svc.js start --role R`: the files exist, and the command and role are the CLI's. */
function checkCommand(argv: string[], role: string | undefined) {
  const [node, script, ...args] = argv.map((a) => (a.startsWith(INSTALL) ? a.slice(INSTALL.length) : a));
  expect(existsSync(join(ROOT, node!)), node).toBe(true);
  expect(existsSync(join(ROOT, script!)), script).toBe(true);
  expect(script).toBe('bin/svc.js');
  expect(args.slice(0, 2)).toEqual(['start', '--role']);
  const start = COMMANDS.find((c) => c.name === 'start');
  expect(Object.keys(start?.options ?? {})).toContain('role');
  expect(['api', 'worker']).toContain(args[2]);
  expect(args[2]).toBe(role);
  expect(args).toHaveLength(3);
}

function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('systemd units', () => {
  const shared = envFile(read('deploy/systemd/svc.env'));

  it.each(['api', 'worker'])(
    'svc-%s.service runs svc start in its role, with variables svc reads',
    (role) => {
      const unit = read(`deploy/systemd/svc-${role}.service`);
      const lines = unit.split('\n').filter((l) => /^[A-Za-z]+=/.test(l));
      const values = (key: string) =>
        lines.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
      const env = Object.fromEntries(
        values('Environment').map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]),
      );
      expect(values('EnvironmentFile')).toEqual(['/etc/svc/svc.env']);
      checkCommand(values('ExecStart')[0]!.split(' '), env.SVC_ROLE);
      const all = { ...shared, ...env };
      expect(Object.keys(all).filter((name) => !CONFIG_VARIABLES.has(name))).toEqual([]);
      const config = configOf(all);
      expect(config.role).toBe(role);
      // The API's port and the metrics' differ; a worker's probes are on SVC_METRICS_PORT.
      if (servesApi(config)) expect(config.metricsPort).not.toBe(config.port);
      else expect(probePort(config)).toBe(Number(env.SVC_METRICS_PORT));
      // systemd waits past the grace before its SIGKILL.
      expect(Number(values('TimeoutStopSec')[0]) * 1000).toBeGreaterThan(config.shutdownGraceMs);
    },
  );
});

interface Port {
  name: string;
  containerPort: number;
}
interface Container {
  command: string[];
  env: { name: string; value: string }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports: Port[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec: {
    selector: Record<string, unknown> & { matchLabels?: Record<string, string> };
    template: { spec: { containers: Container[]; terminationGracePeriodSeconds: number } };
    ports: { targetPort: string }[];
  };
}

describe('the Kubernetes manifest', () => {
  const docs = parseAllDocuments(read('deploy/kubernetes/svc.yaml')).map((d) => d.toJS() as Manifest);
  const named = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name)!;

  it('has a Deployment of each role, a ConfigMap and a Secret, and a Service of the api', () => {
    expect(docs.map((d) => `${d.kind} ${d.metadata.name}`).toSorted()).toEqual([
      'ConfigMap svc-config',
      'Deployment svc-api',
      'Deployment svc-worker',
      'Secret svc-secrets',
      'Service svc-api',
    ]);
  });

  it.each(['api', 'worker'])('svc-%s runs svc start in its role, probes the port it listens on', (role) => {
    const deployment = named('Deployment', `svc-${role}`);
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    const env: Record<string, string> = {};
    for (const from of container!.envFrom) {
      const source = from.configMapRef
        ? named('ConfigMap', from.configMapRef.name).data
        : named('Secret', from.secretRef!.name).stringData;
      Object.assign(env, source);
    }
    for (const { name, value } of container!.env) env[name] = value;
    expect(Object.keys(env).filter((name) => !CONFIG_VARIABLES.has(name))).toEqual([]);
    checkCommand(container!.command, env.SVC_ROLE);
    const config = configOf(env);
    expect(config.role).toBe(role);
    const listens = servesApi(config) ? config.port : probePort(config);
    for (const probe of [container!.livenessProbe, container!.readinessProbe]) {
      expect(PROBES).toContain(probe.httpGet.path);
      const port = container!.ports.find((p) => p.name === probe.httpGet.port);
      expect(port?.containerPort, probe.httpGet.port).toBe(listens);
    }
    for (const port of container!.ports)
      expect([config.port, config.metricsPort]).toContain(port.containerPort);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownGraceMs);
  });

  it('routes the Service to the api pods’ HTTP port, never to a worker', () => {
    const service = named('Service', 'svc-api');
    const api = named('Deployment', 'svc-api');
    expect(service.spec.selector).toEqual(api.spec.selector.matchLabels);
    expect(named('Deployment', 'svc-worker').spec.selector.matchLabels).not.toEqual(service.spec.selector);
    const http = api.spec.template.spec.containers[0]!.ports.find(
      (p) => p.name === service.spec.ports[0]!.targetPort,
    );
    const port = api.spec.template.spec.containers[0]!.env.find((e) => e.name === 'PORT')!.value;
    expect(http?.containerPort).toBe(Number(port));
  });
});
