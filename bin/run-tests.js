#!/usr/bin/env node
// `npm test`: the test driver (scripts/test.ts) on Node >= 24.
import { runOnNode24 } from './node24.js';

await runOnNode24(new URL('../scripts/test.ts', import.meta.url).href, process.argv.slice(2));
