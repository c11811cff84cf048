#!/usr/bin/env node
// The `cloudtwin` command. Node >= 24 runs the TypeScript sources directly; an older Node runs
// them in a Node 24 child that gets our stop signals (bin/node24.js).
import { runOnNode24 } from './node24.js';

await runOnNode24(new URL('../src/cli/main.ts', import.meta.url).href, process.argv.slice(2), { stopWhenNpmGoesAway: true });
