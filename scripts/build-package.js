/**
 * `npm pack` / `npm publish` (the `prepack` script): the package ships compiled JavaScript, so
 * that it runs from `node_modules` on Node >= 22 (Node refuses to strip types there). Compiles
 * `src/` to `dist/` (JavaScript with relative imports rewritten to `.js`, and `.d.ts` beside it),
 * copies the files `src/` reads at run time (JSON tables, ...), and makes sure the console is
 * built (`console/dist/`). fastify, commander, kysely and TypeBox (eight hundred small modules)
 * are shipped as bundles in `dist/vendor/` (scripts/vendor-deps.js makes them, as for the repository's own
 * `cloudtwin` command) and dist/ imports them there: an installed cloudtwin, its in-process
 * fixture included, loads a dozen modules instead of eight hundred. The type declarations keep
 * naming the packages (they stay dependencies). The repository itself keeps running from `src/`: `bin/cloudtwin.js`
 * uses `dist/` only where `src/` is absent (an installed package). `postpack` removes `dist/`.
 *
 *   node scripts/build-package.js          (plain JavaScript: no type stripping needed)
 *   node scripts/build-package.js --clean  (removes dist/)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENDORED, bundleVendored } from './vendor-deps.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const SRC = join(ROOT, 'src');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`build-package: ${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

/** Every file under `dir` (relative paths). */
function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

rmSync(DIST, { recursive: true, force: true });
if (process.argv.includes('--clean')) process.exit(0);

// typescript's exports do not name its bin: find the package by its package.json.
const tsc = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc');
run(process.execPath, [tsc, '-p', 'tsconfig.build.json']);
let copied = 0;
for (const file of files(SRC)) {
  if (file.endsWith('.ts')) continue;
  mkdirSync(dirname(join(DIST, file)), { recursive: true });
  copyFileSync(join(SRC, file), join(DIST, file));
  copied++;
}
const vendored = await bundleVendored(join(DIST, 'vendor'));
if (vendored) {
  // `from 'fastify'` and `import('kysely')` in dist/ become the bundle's path relative to the module.
  const specifiers = Object.keys(VENDORED).sort((a, b) => b.length - a.length);
  const quoted = new RegExp(`(from\\s*|import\\(\\s*)(['"])(${specifiers.map((x) => x.replace(/[/.]/g, '\\$&')).join('|')})\\2`, 'g');
  for (const file of files(DIST)) {
    if (!file.endsWith('.js') || file.startsWith('vendor')) continue;
    const path = join(DIST, file);
    const text = readFileSync(path, 'utf8');
    const rewritten = text.replace(quoted, (_m, lead, q, specifier) => {
      const target = relative(dirname(path), join(DIST, 'vendor', `${VENDORED[specifier].entry}.mjs`)).replaceAll('\\', '/');
      return `${lead}${q}${target.startsWith('.') ? target : `./${target}`}${q}`;
    });
    if (rewritten !== text) writeFileSync(path, rewritten);
  }
}
if (!existsSync(join(ROOT, 'console', 'dist', 'index.html'))) run('npm', ['run', 'build:console']);
console.log(`build-package: dist/ compiled from src/ (${files(DIST).filter((f) => f.endsWith('.js')).length} modules, ${copied} data files${vendored ? `; ${Object.keys(VENDORED).join(', ')} bundled in dist/vendor/` : ''}); console/dist/ ready`);
