// The guides the service serves as pages (src/modules/dashboard/guides.ts; a test keeps the two lists
// equal), and which tab links which.
export const GUIDES = [
  { name: 'quickstart', title: 'Quickstart' },
  { name: 'api-keys', title: 'API keys' },
  { name: 'webhooks', title: 'Receiving webhooks' },
  { name: 'oauth-apps', title: 'Building an OAuth app' },
  { name: 'platform-services', title: 'Platform services' },
  { name: 'audit', title: 'The audit log for auditors' },
  { name: 'operations', title: 'Operating svc' },
] as const;

export type GuideName = (typeof GUIDES)[number]['name'];

export const guideUrl = (name: GuideName, anchor?: string) => `/guides/${name}${anchor ? `#${anchor}` : ''}`;

export const guideTitle = (name: GuideName) => GUIDES.find((g) => g.name === name)!.title;
