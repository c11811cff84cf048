/**
 * Bundles the dependencies made of hundreds of small modules (fastify's tree: 270 CommonJS
 * modules; kysely: 257 and TypeBox: 247 ES modules) into a dozen files, in
 * `node_modules/.cloudtwin-vendor/`, with a manifest of the versions they were built from. Run by
 * `npm ci` / `npm install` (the `prepare` script), so the bundles always match the installed
 * packages and go away with `node_modules`.
 *
 * `bin/` (bin/vendored.js) resolves those packages to the bundles when the manifest's versions are
 * the installed ones, and to `node_modules` otherwise: the same code, loaded as a few modules
 * instead of eight hundred. Loading a module costs Node a resolution, a read and a link whatever
 * its size: the bundles load in about a tenth of the time (bench:startup). The sources
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
  fastify: { pkg: 'fastify', entry: 'fastify' },
  pino: { pkg: 'pino', entry: 'pino' },
  ajv: { pkg: 'ajv', entry: 'ajv' },
  commander: { pkg: 'commander', entry: 'commander' },
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

const ENTRY = '\0cloudtwin-vendor-entry:';

/** The source of the bundle entry for `specifier`: everything Node's import of it exports, by name. */
async function entryModule(specifier) {
  const namespace = await import(specifier);
  const names = Object.keys(namespace).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
  const json = JSON.stringify(specifier);
  if (!('default' in namespace)) return `export * from ${json};\n`;
  const value = namespace.default;
  const isObject = value !== null && (typeof value === 'object' || typeof value === 'function');
  if (!isObject || !names.every((n) => namespace[n] === value[n])) {
    // An ES module with a default export of its own.
    return `export * from ${json};\nexport { default } from ${json};\n`;
  }
  // CommonJS: the names are module.exports' own properties.
  return `import m from ${json};\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`;
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
  const input = Object.fromEntries(Object.entries(VENDORED).map(([specifier, v]) => [v.entry, ENTRY + specifier]));
  // Each entry re-exports what Node's own import of the package gives: for a CommonJS package,
  // `default` (module.exports) and the names Node finds in it, which a bundle of the CommonJS
  // source alone would not export (`import { pino } from 'pino'`).
  const entries = new Map();
  for (const specifier of Object.keys(VENDORED)) entries.set(ENTRY + specifier, await entryModule(specifier));
  await rolldown.build({
    cwd: ROOT,
    input,
    platform: 'node',
    logLevel: 'warn',
    plugins: [{
      name: 'cloudtwin-vendor-entries',
      resolveId: (id) => (entries.has(id) ? id : null),
      load: (id) => entries.get(id) ?? null,
    }],
    // V8 keeps a module's whole source text for the life of the process: minified and without
    // comments (kysely's JSDoc was a third of its text), and in ASCII (one character that is not
    // Latin-1, a box-drawing character in a string of fastify's, makes V8 store the whole source
    // two bytes a character). fastify's tree: 1.5 MB of sources -> 0.6 MB. Function and class
    // names are kept: fastify and avvio name plugins and hooks from them.
    output: { dir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[hash].mjs', comments: false, minify: true, keepNames: true, charset: 'ascii' },
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
