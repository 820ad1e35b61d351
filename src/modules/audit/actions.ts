// Every action the audit log records, by family (the part before the dot, which the `action=<family>.*`
// filter and the counters key on). The one list: writeAudit accepts only these names, so a new action is
// added here or the build fails, and the dashboard's filter (web/src/pages/logs/actions.ts) imports this file,
// so the Logs tab can filter every action the log holds (issue 47: `member.*` and `merchant.*` were missing
// although they were half of a team's entries). Plain data that imports nothing: the dashboard's bundle takes it
// in whole (test/audit/action-catalogue.test.ts holds it so).
export const AUDIT_ACTIONS = {
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
} as const;

export type AuditFamily = keyof typeof AUDIT_ACTIONS;
export type AuditAction = (typeof AUDIT_ACTIONS)[AuditFamily][number];

/** Every action, family by family in the catalogue's order. */
export const ALL_AUDIT_ACTIONS: readonly AuditAction[] = Object.values(AUDIT_ACTIONS).flat();
