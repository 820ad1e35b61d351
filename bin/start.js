#!/usr/bin/env node
// `npm start`: the service (src/main.ts). Node 24 runs the TypeScript sources directly (type stripping); with
// its compile cache on, a restart reads each source's stripped text and compiled code from the cache instead
// of loading the type stripper: less resident memory for the service's life, and a faster start. The cache
// is keyed by each file's contents (a changed source is compiled again), in the system's temporary folder;
// where that cannot be written, the service starts without it. On an older Node it says what to run instead.
import { requireRuntime } from './runtime.js';

requireRuntime('svc');
await import('../src/main.ts');
