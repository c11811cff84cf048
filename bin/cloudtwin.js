#!/usr/bin/env node
// The `cloudtwin` command. In this repository Node >= 24 runs the TypeScript sources directly; an
// older Node runs them in a Node 24 child that gets our stop signals (bin/node24.js). An installed
// package has no `src/` but the compiled `dist/` (scripts/build-package.js), which Node >= 22 runs.
import { existsSync } from 'node:fs';
import { prepareModuleLoading, runOnNode24, stopWhenNpmGoesAway } from './node24.js';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);

if (!existsSync(sources) && existsSync(compiled) && Number(process.versions.node.split('.')[0]) >= 22) {
  // node:sqlite is stable in use but still flagged experimental on Node 22: its one-time warning
  // is noise before every command's output.
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
    if (type === 'ExperimentalWarning' && /SQLite/.test(String(warning))) return;
    return emitWarning.call(process, warning, ...rest);
  };
  stopWhenNpmGoesAway();
  // The container image keeps the bundles of scripts/vendor-deps.js beside its production
  // dependencies (Dockerfile); an installed package has none, and their hook does nothing.
  prepareModuleLoading();
  await import(compiled.href);
} else {
  await runOnNode24((existsSync(sources) ? sources : compiled).href, process.argv.slice(2), { stopWhenNpmGoesAway: true });
}
