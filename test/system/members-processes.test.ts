// Two operating-system processes (`node src/main.ts`) share one PostgreSQL database. A member removed, demoted
// or signed out of one session through process A is refused by process B on its very next call: every call
// reads its session with its membership, and removing the membership deletes its sessions in the same
// statement, so there is nothing for B to forget. (pg project only: see vitest.config.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/service.ts';
import { call, startProcess, stopAll } from '../support/processes.ts';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let a: string;
let b: string;

beforeAll(async () => {
  database = await freshDatabase();
  [a, b] = (await Promise.all([startProcess(database.url!), startProcess(database.url!)])).map(
    (p) => p.url,
  ) as [string, string];
}, 60_000);

afterAll(async () => {
  await stopAll();
  await database?.drop();
}, 30_000);

async function join(owner: string, role: string): Promise<{ token: string; userId: string }> {
  const invited = await call<{ url: string }>(a, '/api/v1/merchant/members/invitations', {
    method: 'POST',
    token: owner,
    body: { email: `${role}-${Date.now()}@example.com`, role },
  });
  expect(invited.status).toBe(201);
  const token = new URL(invited.data.url).hash.replace('#token=', '');
  const accepted = await call<{ token: string; user: { id: string } }>(
    b,
    '/api/v1/merchant/auth/accept-invitation',
    {
      method: 'POST',
      body: { token, password: 'a member password' },
    },
  );
  expect(accepted.status).toBe(200);
  return { token: accepted.data.token, userId: accepted.data.user.id };
}

describe('a team across operating-system processes', () => {
  let owner: string;
  beforeAll(async () => {
    const signup = await call<{ token: string }>(a, '/api/v1/merchant/auth/signup', {
      method: 'POST',
      body: {
        merchant_name: 'Two processes',
        email: `team-${Date.now()}@example.com`,
        password: '0123456789ab',
      },
    });
    expect(signup.status).toBe(201);
    owner = signup.data.token;
  });

  it('a member removed through A is signed out on B at once', async () => {
    const dev = await join(owner, 'developer');
    expect((await call(b, '/api/v1/merchant/me', { token: dev.token })).status).toBe(200);
    const removed = await call(a, `/api/v1/merchant/members/${dev.userId}`, {
      method: 'DELETE',
      token: owner,
    });
    expect(removed.status).toBe(200);
    expect((await call(b, '/api/v1/merchant/me', { token: dev.token })).status).toBe(401);
    expect((await call(a, '/api/v1/merchant/me', { token: dev.token })).status).toBe(401);
  });

  it('a member demoted through A is refused on B at once', async () => {
    const dev = await join(owner, 'developer');
    expect(
      (await call(b, '/api/v1/merchant/api-keys', { method: 'POST', token: dev.token, body: {} })).status,
    ).toBe(201);
    const demoted = await call(a, `/api/v1/merchant/members/${dev.userId}`, {
      method: 'PATCH',
      token: owner,
      body: { role: 'viewer' },
    });
    expect(demoted.status).toBe(200);
    expect(
      (await call(b, '/api/v1/merchant/api-keys', { method: 'POST', token: dev.token, body: {} })).status,
    ).toBe(403);
  });

  it('a session ended through A is refused on B at once', async () => {
    const dev = await join(owner, 'viewer');
    const sessions = await call<{ items: { id: string; current: boolean }[] }>(
      a,
      '/api/v1/merchant/auth/sessions',
      {
        token: dev.token,
      },
    );
    const current = sessions.data.items.find((s) => s.current)!;
    const ended = await call(a, `/api/v1/merchant/auth/sessions/${current.id}`, {
      method: 'DELETE',
      token: dev.token,
    });
    expect(ended.status).toBe(204);
    expect((await call(b, '/api/v1/merchant/me', { token: dev.token })).status).toBe(401);
  });
});
