// The Account page names each session by its browser and system, or by its client (issue 47): the parser
// over the strings real clients send, the ones a person is likely to see in their own list.
import { describe, expect, it } from 'vitest';
import { describeUserAgent } from '../../web/src/lib/user-agent.ts';

const CASES: [string | null, string][] = [
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome on Linux',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36',
    'Chrome on Linux',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    'Safari on macOS',
  ],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Windows'],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
    'Edge on Windows',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'Safari on iOS',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
    'Chrome on iOS',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    'Chrome on Android',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
    'Opera on Windows',
  ],
  [
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131 Safari/537.36',
    'Chrome on ChromeOS',
  ],
  ['Mozilla/5.0 (Windows NT 10.0) SomeNewEngine/1.0', 'A browser on Windows'],
  ['svc-cli/0.1.0 (linux; node 22.12.0)', 'svc CLI'],
  ['curl/8.5.0', 'curl'],
  ['python-requests/2.32.3', 'Python requests'],
  ['Go-http-client/1.1', 'Go HTTP client'],
  ['node', 'Node.js'],
  ['PostmanRuntime/7.42.0', 'Postman'],
  ['MyShopSync/2.1 (+https://sync.example.com)', 'MyShopSync'],
  ['', 'Unknown client'],
  ['   ', 'Unknown client'],
  [null, 'Unknown client'],
];

describe('describeUserAgent', () => {
  it.each(CASES)('%s reads as %s', (ua, name) => {
    expect(describeUserAgent(ua)).toBe(name);
  });
});
