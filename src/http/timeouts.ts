// Limits on slow clients, so that a flood of half-sent requests cannot hold the server's sockets.
import type { Config } from '../config.ts';

/**
 * The slow-client limits (Fastify server options): the headers must arrive within `headersTimeoutMs` and
 * the whole request within `requestTimeoutMs` (Node answers 408 and closes), an idle keep-alive connection
 * closes after `keepAliveTimeoutMs` (above the 60 s idle timeout of common load balancers, so that the
 * balancer, not us, closes first), and any socket silent for `idleTimeoutMs` is destroyed. Node checks the
 * first two only every `connectionsCheckingInterval` (30 s by default): once a second cuts a slow client
 * close to its limit.
 */
export function serverTimeouts(config: Config) {
  return {
    connectionTimeout: config.http.idleTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs),
    },
  };
}
