#!/usr/bin/env node
// The `svc` command. Node 24 runs the TypeScript sources directly (type stripping): no build step.
import '../src/cli/svc.ts';
