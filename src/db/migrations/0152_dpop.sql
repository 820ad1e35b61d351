-- DPoP (RFC 9449, API.md section 12.3): the RFC 7638 thumbprint of the key an access token is bound to, null
-- for a Bearer token. Nullable without a default: added to the catalogue alone, no table rewrite. Refresh
-- tokens are never bound: every app is a confidential client (RFC 9449 5), which proves itself at each refresh.
alter table oauth_tokens add column jkt text;
alter table oauth_app_tokens add column jkt text;
