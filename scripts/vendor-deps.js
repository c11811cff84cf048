/**
 * Bundles the dependencies made of hundreds of small ES modules (kysely: 257, TypeBox: 247, half
 * of every module `cloudtwin serve` loads) into a few files each, in
 * `node_modules/.cloudtwin-vendor/`, with a manifest of the versions they were built from. Run by
 * `npm ci` / `npm install` (the `prepare` script), so the bundles always match the installed
 * packages and go away with `node_modules`.
 *
 * `bin/` (bin/vendored.js) resolves those packages to the bundles when the manifest's versions are
 * the installed ones, and to `node_modules` otherwise: the same code, loaded as a few modules
 * instead of five hundred. Loading a module costs Node a resolution, a read and a link whatever
 * its size: the two bundles load in about a tenth of the time (bench:startup). The sources
 * (`src/`) are not bundled: Node runs them as they are; tests that import them in-process use
 * `node_modules` directly. The published package ships the same bundles in `dist/vendor/`
 * (scripts/build-package.js), so an installed cloudtwin, in-process fixture included, loads them.
 *
 *   node scripts/vendor-deps.js      (plain JavaScript: `npm ci` may run on a Node older than 24)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const VENDOR_DIR = join(ROOT, 'node_modules', '.cloudtwin-vendor');

/** Each import specifier the product uses, and the bundle entry it becomes. */
/** @type {Record<string, { pkg: string, entry: string }>} */
export const VENDORED = {
  kysely: { pkg: 'kysely', entry: 'kysely' },
  '@sinclair/typebox': { pkg: '@sinclair/typebox', entry: 'typebox' },
  '@sinclair/typebox/value': { pkg: '@sinclair/typebox', entry: 'typebox-value' },
};

function installedVersion(pkg) {
  const require = createRequire(join(ROOT, 'package.json'));
  let dir = dirname(require.resolve(pkg));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (json.name === pkg) return json.version;
    } catch {
      // no package.json at this level
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${pkg}`);
    dir = up;
  }
}

/**
 * Bundles the VENDORED specifiers into `dir` (one build: entries of one package share chunks, so
 * `@sinclair/typebox/value` and `@sinclair/typebox` stay one module instance, as in
 * node_modules). Returns false when rolldown is not installed (a production install).
 */
export async function bundleVendored(dir) {
  let rolldown;
  try {
    rolldown = await import('rolldown');
  } catch {
    return false;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const input = Object.fromEntries(Object.entries(VENDORED).map(([specifier, v]) => [v.entry, specifier]));
  await rolldown.build({
    cwd: ROOT,
    input,
    platform: 'node',
    logLevel: 'warn',
    // Without comments: V8 keeps a module's whole source text for the life of the process, and
    // kysely's JSDoc (a third of its text, with a few non-ASCII characters that made V8 store all
    // of it as a two-byte string: 965 KB) was resident in every start. 494 -> 342 KB, ASCII only.
    output: { dir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[hash].mjs', comments: false },
  });
  return true;
}

async function main() {
  if (!(await bundleVendored(VENDOR_DIR))) {
    console.log('vendor-deps: rolldown is not installed (a production install): dependencies load from node_modules');
    return;
  }
  const manifest = {
    note: 'made by scripts/vendor-deps.js; used by bin/vendored.js while these versions are the installed ones',
    packages: Object.fromEntries([...new Set(Object.values(VENDORED).map((v) => v.pkg))].map((pkg) => [pkg, installedVersion(pkg)])),
    specifiers: Object.fromEntries(Object.entries(VENDORED).map(([specifier, v]) => [specifier, { pkg: v.pkg, file: `${v.entry}.mjs` }])),
  };
  writeFileSync(join(VENDOR_DIR, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`vendor-deps: ${Object.keys(VENDORED).join(', ')} bundled into ${VENDOR_DIR}`);
}

// Run as a script (`npm ci`'s prepare); imported (scripts/build-package.js) for bundleVendored.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
