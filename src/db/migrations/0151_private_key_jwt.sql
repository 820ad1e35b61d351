-- private_key_jwt (RFC 7523, API.md section 12.3): how an app authenticates at the token, revocation and
-- introspection endpoints, and the public keys it registered (a JWKS as JSON text, up to 5 keys, checked by the
-- service). The default keeps every existing app on its client secret.
alter table oauth_apps
  add column token_endpoint_auth_method text not null default 'client_secret_basic'
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'private_key_jwt')),
  add column jwks text;
