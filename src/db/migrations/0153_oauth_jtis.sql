-- A JWT's `jti` seen once (RFC 7523 3, RFC 9449 11.1): a client assertion's under its client id, a DPoP
-- proof's under its key's thumbprint. The insert that records it is the check, on every process at once; a
-- row is needed only until the JWT's expiry, after which the JWT is refused anyway, and the oauth purge
-- deletes it then.
create table oauth_jtis (
  issuer text collate "C" not null,
  jti text collate "C" not null,
  expires_at timestamptz not null,
  primary key (issuer, jti)
);
create index oauth_jtis_expires_idx on oauth_jtis (expires_at);
