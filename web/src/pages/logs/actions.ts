// The audit actions by family, for the filters: the audit module's catalogue (src/modules/audit/actions.ts)
// as the dashboard holds it (the dashboard imports nothing of the service); test/audit/action-catalogue.test.ts
// holds the two equal, so the filter offers every action the log can hold.
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
    'webhook.event_resent',
    'webhook.recovered',
    'webhook.replayed',
    'webhook.replay_cancelled',
    'webhook.secret_revealed',
    'webhook.event_triggered',
    'webhook.listener_opened',
    'webhook.listener_closed',
  ],
  audit_log: ['audit_log.exported'],
  member: [
    'member.invited',
    'member.invitation_withdrawn',
    'member.joined',
    'member.role_changed',
    'member.removed',
    'member.credentials_rotated',
    'member.auth_failed',
    'member.mfa_enabled',
    'member.mfa_disabled',
    'member.passkey_added',
    'member.passkey_removed',
    'member.recovery_codes_regenerated',
    'member.recovery_code_used',
  ],
  merchant: ['merchant.settings_updated'],
};

/** What each family's option reads as: the family the log's action names start with, in words. */
export const FAMILY_LABELS: Record<string, string> = {
  api_key: 'API keys (api_key.*)',
  developer_app: 'OAuth apps (developer_app.*)',
  oauth: 'OAuth connections and tokens (oauth.*)',
  webhook: 'Webhooks and listeners (webhook.*)',
  audit_log: 'Audit log exports (audit_log.*)',
  member: 'Members and sign-in (member.*)',
  merchant: 'Merchant settings (merchant.*)',
};
