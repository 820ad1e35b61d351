// Baseline of the token endpoint: node-oidc-provider v9 configured like the service: one confidential client
// (client_secret_post), refresh tokens rotated on every use, no `openid` scope (so no ID token is signed),
// opaque access tokens. Tokens are issued through its own models, as its authorization endpoint would.
// OIDC_ADAPTER picks the store: `postgres` (the durable peer: oidc-postgres-adapter.ts on
// BENCH_BASELINE_DATABASE_URL, the bench's own cluster) or `memory` (an unbounded Map, kept as a reference:
// it loses every grant on restart, and its own memory store keeps only 1,000 entries and fails under load).
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import pg from 'pg';
import { serveCalls } from '../lib/child.ts';
import { postgresAdapter, SCHEMA, type Payload } from './oidc-postgres-adapter.ts';

const store = new Map<string, Payload>();
const byGrant = new Map<string, Set<string>>();

class MemoryAdapter {
  model: string;
  constructor(model: string) {
    this.model = model;
  }
  key(id: string) {
    return `${this.model}:${id}`;
  }
  async upsert(id: string, payload: Payload) {
    store.set(this.key(id), payload);
    if (payload.grantId) {
      let keys = byGrant.get(payload.grantId);
      if (!keys) byGrant.set(payload.grantId, (keys = new Set()));
      keys.add(this.key(id));
    }
  }
  async find(id: string) {
    return store.get(this.key(id));
  }
  async findByUid(uid: string) {
    for (const [key, p] of store) if (key.startsWith(`${this.model}:`) && p.uid === uid) return p;
    return undefined;
  }
  async findByUserCode(userCode: string) {
    for (const [key, p] of store) if (key.startsWith(`${this.model}:`) && p.userCode === userCode) return p;
    return undefined;
  }
  async consume(id: string) {
    const p = store.get(this.key(id));
    if (p) p.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    store.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const key of byGrant.get(grantId) ?? []) store.delete(key);
    byGrant.delete(grantId);
  }
}

const CLIENT_ID = 'bench-client';
const CLIENT_SECRET = randomBytes(24).toString('base64url');
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

async function adapter() {
  if (process.env.OIDC_ADAPTER !== 'postgres') return MemoryAdapter;
  // As many connections as the service's pool (src/db/database.ts), on the same cluster.
  const db = new pg.Pool({ connectionString: process.env.BENCH_BASELINE_DATABASE_URL, max: 20 });
  await db.query(SCHEMA);
  return postgresAdapter(db);
}
const Adapter = await adapter();

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    adapter: Adapter,
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    rotateRefreshToken: true,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: { devInteractions: { enabled: false } },
    ttl: { AccessToken: 3600, AuthorizationCode: 600, RefreshToken: 30 * 86_400, Grant: 30 * 86_400 },
  });
  server.on('request', provider.callback());

  async function grantFor(accountId: string): Promise<string> {
    const grant = new provider.Grant({ accountId, clientId: CLIENT_ID });
    grant.addOIDCScope('offline_access');
    return grant.save();
  }

  serveCalls(
    {
      port,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      adapter: process.env.OIDC_ADAPTER === 'postgres' ? 'postgres' : 'memory',
    },
    {
      async refreshTokens(n: number) {
        const client = await provider.Client.find(CLIENT_ID);
        const out: string[] = [];
        for (let i = 0; i < n; i++) {
          const accountId = `acct_${i}`;
          const grantId = await grantFor(accountId);
          const rt = new provider.RefreshToken({
            accountId,
            client,
            grantId,
            scope: 'offline_access',
            gty: 'authorization_code',
          });
          out.push(await rt.save());
        }
        return out;
      },
      async codes(n: number) {
        const client = await provider.Client.find(CLIENT_ID);
        const out: { code: string; verifier: string }[] = [];
        for (let i = 0; i < n; i++) {
          const accountId = `acct_c${i}`;
          const verifier = randomBytes(32).toString('base64url');
          const code = new provider.AuthorizationCode({
            accountId,
            client,
            grantId: await grantFor(accountId),
            scope: 'offline_access',
            redirectUri: REDIRECT_URI,
            codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
            codeChallengeMethod: 'S256',
          });
          out.push({ code: await code.save(), verifier });
        }
        return out;
      },
    },
  );
});
