// `npm start`: migrate, serve both interfaces, the dashboard and the workers in one process; stop cleanly on
// SIGTERM/SIGINT (in-flight requests finish, workers release their leases, the database closes).
import { ConfigError, loadConfig } from './config.ts';
import { createService } from './server.ts';
import { seedDemo } from './demo.ts';
import { surviveConnectionLoss } from './db/connection-loss.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await createService(config);
  surviveConnectionLoss(service.app.log);
  await seedDemo(service);
  await service.app.listen({ port: config.port, host: config.host });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  const message =
    err instanceof ConfigError
      ? `configuration: ${err.message}`
      : err instanceof Error
        ? err.message
        : String(err);
  process.stderr.write(`svc failed to start: ${message}\n`);
  process.exit(1);
});
