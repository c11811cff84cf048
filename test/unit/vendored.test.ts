import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { vendoredSpecifiers } from '../../bin/vendored.js';
import { VENDORED, bundleVendored } from '../../scripts/vendor-deps.js';

/** A fake checkout: installed packages with versions, and a vendor manifest built from `built` versions. */
function checkout(installed: Record<string, string>, built: Record<string, string>, files = ['kysely.mjs', 'typebox-value.mjs', 'typebox.mjs']): string {
  const root = mkdtempSync(join(tmpdir(), 'ct-vendor-'));
  for (const [pkg, version] of Object.entries(installed)) {
    mkdirSync(join(root, 'node_modules', pkg), { recursive: true });
    writeFileSync(join(root, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version }));
  }
  const dir = join(root, 'node_modules', '.cloudtwin-vendor');
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f), 'export {};\n');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({
    packages: built,
    specifiers: {
      kysely: { pkg: 'kysely', file: 'kysely.mjs' },
      '@sinclair/typebox/value': { pkg: '@sinclair/typebox', file: 'typebox-value.mjs' },
      '@sinclair/typebox': { pkg: '@sinclair/typebox', file: 'typebox.mjs' },
    },
  }));
  return root;
}

test('bundles built from the installed versions serve their specifiers', () => {
  const root = checkout({ kysely: '0.29.9', '@sinclair/typebox': '0.34.52' }, { kysely: '0.29.9', '@sinclair/typebox': '0.34.52' });
  try {
    const map = vendoredSpecifiers(root);
    assert.deepEqual([...map.keys()].sort(), ['@sinclair/typebox', '@sinclair/typebox/value', 'kysely']);
    assert.equal(map.get('@sinclair/typebox/value'), pathToFileURL(join(root, 'node_modules', '.cloudtwin-vendor', 'typebox-value.mjs')).href);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a package upgraded since the bundles were built, or missing bundle files, resolve from node_modules', () => {
  const root = checkout({ kysely: '0.30.0', '@sinclair/typebox': '0.34.52' }, { kysely: '0.29.9', '@sinclair/typebox': '0.34.52' }, ['kysely.mjs']);
  try {
    assert.deepEqual([...vendoredSpecifiers(root).keys()], [], 'kysely is stale and the TypeBox bundles are missing');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('no manifest: nothing is vendored', () => {
  const root = mkdtempSync(join(tmpdir(), 'ct-vendor-'));
  try {
    assert.equal(vendoredSpecifiers(root).size, 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('scripts/vendor-deps.js bundles without doc comments and in ASCII only (V8 keeps each module source resident, two bytes a character if one is not Latin-1), exporting what the packages export', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ct-vendor-build-'));
  try {
    if (!(await bundleVendored(dir))) return t.skip('rolldown is not installed');
    const bundles = readdirSync(dir).filter((f) => f.endsWith('.mjs'));
    assert.ok(bundles.includes('kysely.mjs'), `bundles: ${bundles.join(', ')}`);
    for (const file of bundles) {
      const text = readFileSync(join(dir, file), 'utf8');
      assert.doesNotMatch(text, /[^\x00-\x7f]/, `${file} has a non-ASCII character`);
      assert.doesNotMatch(text, /^\s*(\/\*\*|\* @)/m, `${file} has doc comments`);
    }
    // Each bundle exports what Node's import of the package gives, CommonJS packages included
    // (`import { pino } from 'pino'`, `import Fastify, { LogController } from 'fastify'`).
    for (const [specifier, { entry }] of Object.entries(VENDORED)) {
      const bundle = await import(pathToFileURL(join(dir, `${entry}.mjs`)).href);
      const installed = await import(specifier);
      const names = (ns: object) => Object.keys(ns).filter((n) => n !== 'module.exports').sort();
      assert.deepEqual(names(bundle), names(installed), `${specifier}: the bundle's exports`);
    }
    const { default: Fastify, LogController } = await import(pathToFileURL(join(dir, 'fastify.mjs')).href);
    const app = Fastify({ logController: new LogController({ disableRequestLogging: true }) });
    app.get('/', async () => ({ bundled: true }));
    assert.deepEqual((await app.inject('/')).json(), { bundled: true });
    await app.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
