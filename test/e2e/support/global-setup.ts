// Before the browser tests: the dashboard built from the current sources, and the screenshot folder.
import { mkdirSync } from 'node:fs';
import { buildIfStale } from '../../../src/modules/dashboard/index.ts';
import { SCREENSHOTS } from './browser.ts';

export default async function setup(): Promise<void> {
  await buildIfStale();
  mkdirSync(SCREENSHOTS, { recursive: true });
}
