#!/usr/bin/env node
// The `cloudtwin` command. Node >= 24 runs the TypeScript sources directly.
import { runOnNode24 } from './node24.js';

await runOnNode24(new URL('../src/cli/main.ts', import.meta.url).href, process.argv.slice(2));
