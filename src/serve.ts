// Running the service until a signal: `npm start` (src/main.ts) and `svc start` (src/cli/commands.ts) both
// come here. Migrate, serve what the process's role serves (SVC_ROLE: the API, the probes of a worker, or
// both with the loops), and stop cleanly on SIGTERM/SIGINT (the API draining for SVC_SHUTDOWN_DELAY_MS, then
// in-flight requests finish, workers release their leases, the database closes).
import { probePort, servesApi, type Config } from './config.ts';
import { createService } from './server.ts';
import { seedDemo } from './demo.ts';
import { surviveConnectionLoss } from './db/connection-loss.ts';

export async function serve(config: Config): Promise<void> {
  const service = await createService(config);
  surviveConnectionLoss(service.app.log);
  await seedDemo(service);
  // A worker has no API: its listener serves the probes and the metrics, on SVC_METRICS_PORT (else PORT).
  const port = servesApi(config) ? config.port : probePort(config);
  await service.app.listen({ port, host: config.host });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info(
      { signal, grace_ms: config.shutdownGraceMs, delay_ms: config.shutdownDelayMs },
      'shutting down',
    );
    // The stop fits in SVC_SHUTDOWN_GRACE_MS (the delivery workers cut off what is still sending before it);
    // one that does not is said and ends with status 1: an orchestrator's SIGKILL would come next anyway.
    const force = setTimeout(() => {
      service.app.log.error({ grace_ms: config.shutdownGraceMs }, 'stop took longer than the grace: exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    service.close(config.shutdownDelayMs).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
