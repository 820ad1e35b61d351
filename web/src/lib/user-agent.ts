// A session's user agent in words: the browser and its system ("Chrome on Linux"), or the client that is not a
// browser ("svc CLI", "curl"). The raw string stays one hover away; this only names what a person would
// recognise, so a list of sessions can be read at a glance. Pure: no lookup table from a service, no network.

/** Clients that are not browsers, by the product token they send first. */
const CLIENTS: readonly [RegExp, string][] = [
  [/^svc-cli\b/i, 'svc CLI'],
  [/^curl\//i, 'curl'],
  [/^wget\//i, 'Wget'],
  [/^httpie\//i, 'HTTPie'],
  [/^python-requests\//i, 'Python requests'],
  [/^python-urllib/i, 'Python urllib'],
  [/^python-httpx\//i, 'Python httpx'],
  [/^aiohttp\//i, 'Python aiohttp'],
  [/^go-http-client\//i, 'Go HTTP client'],
  [/^(?:node|undici)\b/i, 'Node.js'],
  [/^axios\//i, 'axios'],
  [/^node-fetch\//i, 'node-fetch'],
  [/^okhttp\//i, 'OkHttp'],
  [/^postmanruntime\//i, 'Postman'],
  [/^insomnia\//i, 'Insomnia'],
  [/^ruby\b/i, 'Ruby'],
  [/^java\//i, 'Java'],
];

// Order matters: Edge and Opera say "Chrome" too, Chrome says "Safari", iOS browsers say "Safari".
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|HeadlessChrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\bWindows NT\b|\bWindows\b/, 'Windows'],
  [/\biPhone\b|\biPod\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

const first = (list: readonly [RegExp, string][], text: string) => list.find(([re]) => re.test(text))?.[1];

/**
 * The name of a session's client: "Chrome on Linux", "Firefox on Windows", "svc CLI", "curl"; a browser
 * that is not recognised is "A browser on <system>"; any other client is its first product name; no user
 * agent at all is "Unknown client".
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? '').trim();
  if (ua === '') return 'Unknown client';
  const client = first(CLIENTS, ua);
  if (client) return client;
  const browser = ua.startsWith('Mozilla/') ? first(BROWSERS, ua) : undefined;
  const system = first(SYSTEMS, ua);
  if (browser) return system ? `${browser} on ${system}` : browser;
  if (ua.startsWith('Mozilla/')) return system ? `A browser on ${system}` : 'A browser';
  // Another client: its product name, without the version ("MyShopSync/2.1 (+https://…)" → "MyShopSync").
  const product = /^[^\s/;()]+/.exec(ua)?.[0];
  return product ?? 'Unknown client';
}
