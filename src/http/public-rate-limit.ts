// The public API's rate limit hook (API.md section 10), after authentication: the bucket is the credential's
// owner (the merchant for its keys, the app and merchant for an OAuth access token, as Shopify limits per app
// and store) and mode. Every answer it lets through or refuses carries the IETF RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<mode>";q=<bucket>;w=<seconds to refill it>` and
// `RateLimit: "<mode>";r=<left>;t=<seconds until full>`; a refusal is 429 `rate_limited` with Retry-After.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import type { Mode } from '../lib/credentials.ts';
import { createRateLimiter, type Decision, type Policy } from './rate-limiter.ts';

export function registerPublicRateLimit(app: FastifyInstance): void {
  const { ctx } = app;
  if (!ctx.config.rateLimit) return;
  const { live, test, burstSeconds } = ctx.config.publicRateLimit;
  const policies: Record<Mode, Policy & { header: string }> = {
    live: {
      rate: live,
      capacity: live * burstSeconds,
      header: `"live";q=${live * burstSeconds};w=${burstSeconds}`,
    },
    test: {
      rate: test,
      capacity: test * burstSeconds,
      header: `"test";q=${test * burstSeconds};w=${burstSeconds}`,
    },
  };
  const limiter = createRateLimiter(ctx.config, ctx.metrics, ctx.clock, () => app.log);
  app.addHook('onReady', () => limiter.ready());
  app.addHook('onClose', () => limiter.close());

  // A callback hook: the decision is synchronous unless a shared lease must be fetched.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const p = request.principal;
    if (!p) return done();
    const policy = policies[p.mode];
    const key =
      p.kind === 'access_token'
        ? `app:${p.appId ?? p.credentialId}:${p.merchantId}:${p.mode}`
        : `mer:${p.merchantId}:${p.mode}`;
    const apply = (d: Decision) => {
      void reply.header('ratelimit-policy', policy.header);
      void reply.header('ratelimit', `"${p.mode}";r=${d.remaining};t=${d.reset}`);
      if (d.allowed) return done();
      ctx.metrics.rateLimited.labels(p.mode).inc();
      done(
        new AppError(
          'rate_limited',
          'Too many requests for this account and mode; retry after the time in Retry-After.',
          {
            headers: { 'retry-after': String(d.retryAfter) },
          },
        ),
      );
    };
    const decision = limiter.take(key, policy);
    if (decision instanceof Promise) decision.then(apply, () => done());
    else apply(decision);
  });
}
