// What a feature module contributes to the service. Each module's index.ts exports one `create…(ctx, deps)`
// that makes the module's state (caches, batchers, pools, agents) and returns this; `src/modules.ts` creates
// the modules in a declared order and `src/app.ts` mounts what they return. Nothing registers itself on
// import, and no module keeps state at module level.
// - merchantRoutes: under /api/v1/merchant, a merchant session required unless a route sets config.anonymous;
// - publicRoutes: under /api/public/v1, a bearer credential with the method's scope required;
// - routes: at the root, with their own authentication (OAuth endpoints, well-known, internal, dashboard);
// - appHooks: installed on the app itself before any mount, so that they apply to every route of every mount
//   (the request log's recorder, which records the public routes of several modules);
// - interfaceHooks: installed in both interfaces' scopes (merchant and public) before any module's routes, so
//   that they apply to every route there (Idempotency-Key on POSTs);
// - credentials: how the public interface's bearer check verifies the credential kinds the module issues;
// - start: runs once in every process, workers or not, after the modules are created and before it serves
//   (the audit module records its signing keys); a failure stops the start;
// - background: loops started when the process runs workers, stopped (awaited) before `stop`;
// - stop: flushes the module's buffers and closes what it opened, after HTTP drained and loops stopped.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { CredentialResolver, DpopVerifier } from '../http/public-auth.ts';
import type { CredentialKind } from '../http/request.ts';

export interface Background {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface Module {
  readonly name: string;
  readonly merchantRoutes?: FastifyPluginAsync;
  readonly publicRoutes?: FastifyPluginAsync;
  readonly routes?: FastifyPluginAsync;
  readonly appHooks?: (app: FastifyInstance) => void;
  readonly interfaceHooks?: (scope: FastifyInstance) => void;
  readonly credentials?: Partial<Record<CredentialKind, CredentialResolver>>;
  /** How the public interface checks a DPoP proof (RFC 9449): the module that binds tokens gives it. */
  readonly dpop?: DpopVerifier;
  readonly background?: readonly Background[];
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
