#!/usr/bin/env node
// The `svc` command. Node 24 runs the TypeScript sources directly (type stripping): no build step. Its compile
// cache spares a repeated command the stripping and compiling (bin/start.js says more).
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('../src/cli/svc.ts');
