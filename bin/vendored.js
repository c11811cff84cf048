// Resolves the dependencies that scripts/vendor-deps.js bundled (fastify, commander, kysely,
// TypeBox: eight hundred small modules between them) to their bundles in node_modules/.cloudtwin-vendor/, for the
// `cloudtwin` command only. A package is used from its bundle only while the manifest's version
// is the installed one; anything else (no bundle, another version installed since, a bundle that
// cannot be read) resolves from node_modules as usual, so the worst case is a slower start.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The specifier -> bundle URL map that applies in `root` (a checkout with node_modules), or an
 * empty map. Reads the manifest and each bundled package's package.json (a few small files).
 */
export function vendoredSpecifiers(root = ROOT) {
  const dir = join(root, 'node_modules', '.cloudtwin-vendor');
  const map = new Map();
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return map;
  }
  const current = new Map();
  for (const [pkg, version] of Object.entries(manifest.packages ?? {})) {
    try {
      current.set(pkg, JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version === version);
    } catch {
      current.set(pkg, false);
    }
  }
  for (const [specifier, { pkg, file }] of Object.entries(manifest.specifiers ?? {})) {
    const path = join(dir, file);
    if (current.get(pkg) && existsSync(path)) map.set(specifier, pathToFileURL(path).href);
  }
  return map;
}

/** Installs the resolution (a synchronous module hook of this process); returns the specifiers it serves. */
export function useVendoredDeps(root = ROOT) {
  if (process.env.CLOUDTWIN_NO_VENDOR === '1' || typeof module.registerHooks !== 'function') return [];
  const map = vendoredSpecifiers(root);
  if (map.size === 0) return [];
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = map.get(specifier);
      return url === undefined ? nextResolve(specifier, context) : { url, format: 'module', shortCircuit: true };
    },
  });
  return [...map.keys()];
}
