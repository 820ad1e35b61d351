// `npm run openapi [-- --out FILE]`: the served OpenAPI document, without starting the service; `npm run
// check` lints it with Redocly.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDocument } from './openapi-document.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const text = `${JSON.stringify(await buildDocument(), null, 2)}\n`;
if (values.out) {
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, text);
} else {
  process.stdout.write(text);
}
