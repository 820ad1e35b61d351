// SVC_SHUTDOWN_DELAY_MS: from SIGTERM (here `close(delay)`, which serve.ts calls on it) the API keeps serving
// for the delay while /readyz answers 503 `draining` and every answer closes its connection, so that a load
// balancer takes the process out of rotation before it stops accepting; then it stops. The whole rolling
// restart under load is test/system/rolling-restart.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { eventually } from '../support/eventually.ts';
import { MASTER_KEY, startTestService, type TestService } from '../support/service.ts';

describe('SVC_SHUTDOWN_DELAY_MS', () => {
  const config = (env: Record<string, string>) => loadConfig({ SVC_MASTER_KEY: MASTER_KEY, ...env });

  it('is 0 by default, and at most half of the grace, named when it is not', () => {
    expect(config({}).shutdownDelayMs).toBe(0);
    expect(config({ SVC_SHUTDOWN_DELAY_MS: '5000' }).shutdownDelayMs).toBe(5000);
    expect(() => config({ SVC_SHUTDOWN_DELAY_MS: '6000' })).toThrow(ConfigError);
    expect(() => config({ SVC_SHUTDOWN_DELAY_MS: '6000' })).toThrow(
      /SVC_SHUTDOWN_DELAY_MS must be at most half of SVC_SHUTDOWN_GRACE_MS \(10000\)/,
    );
    expect(config({ SVC_SHUTDOWN_DELAY_MS: '6000', SVC_SHUTDOWN_GRACE_MS: '20000' }).shutdownDelayMs).toBe(
      6000,
    );
    expect(() => config({ SVC_SHUTDOWN_DELAY_MS: 'soon' })).toThrow(
      /SVC_SHUTDOWN_DELAY_MS must be an integer/,
    );
  });
});

describe('a service stopping with a delay', () => {
  let service: TestService | undefined;
  afterAll(async () => service?.close());

  it('serves through the delay, draining, then stops accepting', async () => {
    service = await startTestService({ listen: true });
    const ready = await request(`${service.url}/readyz`);
    expect(ready.statusCode).toBe(200);
    expect(ready.headers.connection).not.toBe('close');
    await ready.body.dump();

    const t0 = performance.now();
    const closed = service.close(1500);
    const draining = await request(`${service.url}/readyz`);
    expect(draining.statusCode).toBe(503);
    expect(await draining.body.json()).toEqual({ data: { status: 'draining' } });
    expect(draining.headers.connection).toBe('close');
    // Still serving the API, each answer closing its connection.
    const health = await request(`${service.url}/healthz`);
    expect(health.statusCode).toBe(200);
    expect(health.headers.connection).toBe('close');
    await health.body.dump();

    await closed;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1450);
    await eventually(
      async () =>
        request(`${service!.url}/healthz`).then(
          () => false,
          (err: Error & { code?: string }) => err.code === 'ECONNREFUSED',
        ),
      { what: 'the port to refuse connections' },
    );
  });
});
