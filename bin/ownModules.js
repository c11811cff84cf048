// Resolves the relative imports between cloudtwin's own modules (`src/` in a checkout, `dist/` in
// an installed package) by URL arithmetic, for the `cloudtwin` command only.
//
// Node's resolver checks every import it resolves on disk: a stat, a realpath, and the path
// normalised several times over. A `serve` start resolves about a thousand imports between
// its own modules, enough to make node:path's `normalizeString` hot, and V8's optimizing
// compiler (TurboFan) then compiles it: one compile that maps about 5 MiB of the compiler's own
// code into the process and leaves it resident (bench:startup: idle RSS 86 MiB with Node's
// resolver, 80.6 MiB with this hook, against 71.6 MiB for a bare fastify server).
//
// What the checks are for does not arise between these modules: they are files of this package
// that import each other by exact relative paths (the extension included), with no symlinks
// among them, and `npm test` loads every one of them through Node's own resolver (tests import the
// sources without this hook), where a wrong path fails. A path that did not exist would still
// fail here, when Node reads the file. Anything else (packages, builtins, absolute
// specifiers, imports from other code) goes to the next resolver.
import module from 'node:module';

const OWN_CODE = [new URL('../src/', import.meta.url).href, new URL('../dist/', import.meta.url).href];
const OWN_FILE = /\.(ts|js)$/;

const isOwn = (url) => url !== undefined && OWN_CODE.some((dir) => url.startsWith(dir));

/** The hook: a relative import of a `.ts` or `.js` file from one own module to another resolves by URL; anything else goes on. */
export function resolveOwnModule(specifier, context, nextResolve) {
  if ((specifier.startsWith('./') || specifier.startsWith('../')) && isOwn(context.parentURL)) {
    const url = new URL(specifier, context.parentURL).href;
    if (isOwn(url) && OWN_FILE.test(url)) return { url, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

/** Installs the hook (a synchronous module hook of this process); false where Node has none. */
export function resolveOwnModulesDirectly() {
  if (typeof module.registerHooks !== 'function') return false;
  module.registerHooks({ resolve: resolveOwnModule });
  return true;
}
