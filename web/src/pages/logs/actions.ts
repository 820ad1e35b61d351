// The audit actions by family, for the filters: the audit module's catalogue itself
// (src/modules/audit/actions.ts, docs/decisions/0187-audit-action-catalogue.md), imported as plain data (that
// file imports nothing, so the dashboard takes in nothing else of the service), so the filter offers every
// action the log can hold without a second list to keep equal.
import { AUDIT_ACTIONS, type AuditFamily } from '../../../../src/modules/audit/actions.ts';

export const FAMILIES: Record<string, readonly string[]> = AUDIT_ACTIONS;

/** What each family's option reads as, in words: every family of the catalogue has one (the compiler checks). */
export const FAMILY_LABELS: Record<string, string> = {
  api_key: 'API keys (api_key.*)',
  developer_app: 'OAuth apps (developer_app.*)',
  oauth: 'OAuth connections and tokens (oauth.*)',
  webhook: 'Webhooks and listeners (webhook.*)',
  audit_log: 'Audit log exports (audit_log.*)',
  member: 'Members and sign-in (member.*)',
  merchant: 'Merchant settings (merchant.*)',
} satisfies Record<AuditFamily, string>;
