#!/usr/bin/env node
// The `svc` command. Node 24 runs the TypeScript sources directly (type stripping): no build step. Its compile
// cache spares a repeated command the stripping and compiling (bin/start.js says more).
import { requireRuntime } from './runtime.js';

requireRuntime('svc');
await import('../src/cli/svc.ts');
