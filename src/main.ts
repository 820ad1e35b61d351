// `npm start`: the service with the configuration of the environment (src/serve.ts runs it).
import { ConfigError, loadConfig } from './config.ts';
import { serve } from './serve.ts';

Promise.resolve()
  .then(() => serve(loadConfig()))
  .catch((err: unknown) => {
    const message =
      err instanceof ConfigError
        ? `configuration: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`svc failed to start: ${message}\n`);
    process.exit(1);
  });
