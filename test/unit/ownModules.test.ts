/**
 * bin/ownModules.js: the `cloudtwin` command resolves the relative imports between its own modules
 * by URL arithmetic instead of Node's resolver. That gives Node's answer only while every such
 * import names an existing file by its real path; the tree is checked for it here, import by
 * import, and the hook's rules are checked against a stand-in for the next resolver.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolveOwnModule } from '../../bin/ownModules.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const SRC_URL = pathToFileURL(SRC).href;
const NEXT = { url: 'next:', shortCircuit: true };
const next = () => NEXT;

/** Every relative specifier of a static import or export, or of a dynamic import, in `source` (outside its comments). */
const relativeImports = (source: string) =>
  [...source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.\.?\/[^']*)'/g)].map((m) => m[1]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('own modules resolved by URL', () => {
  it('every relative import in src/ names an existing file by its real path, so the URL is the one Node resolves', () => {
    let checked = 0;
    for (const file of sources(SRC)) {
      const parentURL = pathToFileURL(file).href;
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const { url } = resolveOwnModule(specifier, { parentURL }, next);
        assert.notEqual(url, NEXT.url, `${file}: ${specifier} is left to Node's resolver`);
        const path = fileURLToPath(url);
        assert.ok(statSync(path, { throwIfNoEntry: false })?.isFile(), `${file}: ${specifier} names no file`);
        assert.equal(pathToFileURL(realpathSync(path)).href, url, `${file}: ${specifier} goes through a symlink`);
        checked++;
      }
    }
    assert.ok(checked > 1000, `only ${checked} imports found: the pattern no longer matches the sources`);
  });

  it('resolves a relative .ts or .js import from an own module, short-circuiting the resolvers after it', () => {
    assert.deepEqual(resolveOwnModule('../store/store.ts', { parentURL: SRC_URL + 'platform/http/app.ts' }, next), { url: SRC_URL + 'platform/store/store.ts', shortCircuit: true });
    assert.deepEqual(resolveOwnModule('./main.ts', { parentURL: SRC_URL + 'cli/serve.ts' }, next), { url: SRC_URL + 'cli/main.ts', shortCircuit: true });
    const dist = new URL('../../dist/', import.meta.url).href;
    assert.deepEqual(resolveOwnModule('./x.js', { parentURL: dist + 'cli/main.js' }, next), { url: dist + 'cli/x.js', shortCircuit: true });
  });

  it('leaves everything else to the next resolver', () => {
    const parentURL = SRC_URL + 'server.ts';
    for (const [specifier, parent, why] of [
      ['fastify', parentURL, 'a package'],
      ['node:fs', parentURL, 'a built-in module'],
      [SRC_URL + 'server.ts', parentURL, 'an absolute URL'],
      ['/etc/passwd', parentURL, 'an absolute path'],
      ['./server.ts', pathToFileURL(join(SRC, '..', 'test', 'x.ts')).href, 'an import from outside the own code'],
      ['./server.ts', undefined, 'no parent (the entry point)'],
      ['../node_modules/kysely/dist/esm/index.js', parentURL, 'a relative path out of the own code'],
      ['./data.json', parentURL, 'a file that is not a module of ours'],
      ['./server.ts?x=1', parentURL, 'a query'],
      ['./platform', parentURL, 'a directory'],
    ] as const) {
      assert.equal(resolveOwnModule(specifier, { parentURL: parent }, next), NEXT, why);
    }
  });
});
