// The audit actions of API.md section 8, by family, for the filters.
export const FAMILIES: Record<string, readonly string[]> = {
  api_key: ['api_key.created', 'api_key.rotated', 'api_key.revoked'],
  developer_app: [
    'developer_app.created',
    'developer_app.updated',
    'developer_app.secret_rotated',
    'developer_app.deleted',
  ],
  oauth: [
    'oauth.consent_approved',
    'oauth.consent_denied',
    'oauth.token_issued',
    'oauth.token_refreshed',
    'oauth.token_revoked',
    'oauth.code_reuse_detected',
    'oauth.refresh_reuse_detected',
    'oauth.connection_revoked',
  ],
  webhook: [
    'webhook.created',
    'webhook.updated',
    'webhook.secret_rotated',
    'webhook.enabled',
    'webhook.disabled',
    'webhook.auto_disabled',
    'webhook.deleted',
    'webhook.tested',
    'webhook.delivery_retried',
  ],
};
