// The durable adapter of the oidc-provider baseline: what a production deployment of oidc-provider runs, laid
// out like its example SQL adapter (the knex one of the project's wiki): one table of JSONB payloads keyed by
// (id, model), with columns and indexes for the three lookups the provider makes by something other than the
// id (grant, uid, user code). Statements are named, so each backend prepares them once: that makes the
// baseline stronger than the example (which plans every query anew), never weaker than what we compare it to.
import type pg from 'pg';

export type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: unknown;
};

export const SCHEMA = `
create table if not exists oidc_payloads (
  id text collate "C" not null,
  type text collate "C" not null,
  payload jsonb not null,
  grant_id text collate "C",
  user_code text collate "C",
  uid text collate "C",
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (id, type)
);
create index if not exists oidc_payloads_grant_id_idx on oidc_payloads (grant_id);
create index if not exists oidc_payloads_user_code_idx on oidc_payloads (user_code);
create index if not exists oidc_payloads_uid_idx on oidc_payloads (uid);`;

const UPSERT = `
insert into oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
values ($1, $2, $3, $4, $5, $6, case when $7::int is null then null else now() + make_interval(secs => $7::int) end)
on conflict (id, type) do update
  set payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
      uid = excluded.uid, expires_at = excluded.expires_at`;

const FIND = (by: 'id' | 'uid' | 'user_code') => `
select payload, consumed_at from oidc_payloads
 where ${by} = $1 and type = $2 and (expires_at is null or expires_at > now())`;

function payloadOf(row: { payload: Payload; consumed_at: Date | null } | undefined): Payload | undefined {
  if (!row) return undefined;
  return row.consumed_at ? { ...row.payload, consumed: true } : row.payload;
}

export function postgresAdapter(db: pg.Pool) {
  return class PostgresAdapter {
    model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: Payload, expiresIn?: number) {
      await db.query({
        name: 'oidc_upsert',
        text: UPSERT,
        values: [
          id,
          this.model,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? null,
        ],
      });
    }
    private async findBy(by: 'id' | 'uid' | 'user_code', value: string) {
      const { rows } = await db.query<{ payload: Payload; consumed_at: Date | null }>({
        name: `oidc_find_${by}`,
        text: FIND(by),
        values: [value, this.model],
      });
      return payloadOf(rows[0]);
    }
    find(id: string) {
      return this.findBy('id', id);
    }
    findByUid(uid: string) {
      return this.findBy('uid', uid);
    }
    findByUserCode(userCode: string) {
      return this.findBy('user_code', userCode);
    }
    async consume(id: string) {
      await db.query({
        name: 'oidc_consume',
        text: 'update oidc_payloads set consumed_at = now() where id = $1 and type = $2',
        values: [id, this.model],
      });
    }
    async destroy(id: string) {
      await db.query({
        name: 'oidc_destroy',
        text: 'delete from oidc_payloads where id = $1 and type = $2',
        values: [id, this.model],
      });
    }
    async revokeByGrantId(grantId: string) {
      await db.query({
        name: 'oidc_revoke_grant',
        text: 'delete from oidc_payloads where grant_id = $1 and type = $2',
        values: [grantId, this.model],
      });
    }
  };
}
