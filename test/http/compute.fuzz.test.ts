/**
 * Fuzzing the insert body over HTTP: wrong types, huge strings, deep nesting, unicode, NUL,
 * prototype names. Never a 5xx, never a half-stored template, and the server keeps answering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CORA, computeWorld, templateBody, templatePath, templatesPath } from './compute.helpers.ts';

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '\u0000', 'a\u0000b', '__proto__', 'constructor', 'toString', '\ud800', 'x'.repeat(70_000), 'global/networks/default', 'e2-medium', 'https://evil/compute/v1/projects/x/global/networks/y'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'key', 'value', 'items', 'name'), fc.string(), { maxKeys: 3 }),
);

/** Paths into a valid body where a nasty value is planted. */
const PATHS = [
  ['name'],
  ['description'],
  ['properties'],
  ['properties', 'machineType'],
  ['properties', 'labels'],
  ['properties', 'tags', 'items'],
  ['properties', 'metadata', 'items'],
  ['properties', 'disks'],
  ['properties', 'disks', '0', 'initializeParams', 'diskSizeGb'],
  ['properties', 'disks', '0', 'initializeParams', 'sourceImage'],
  ['properties', 'networkInterfaces', '0', 'network'],
  ['properties', 'networkInterfaces', '0', 'subnetwork'],
  ['properties', 'networkInterfaces', '0', 'accessConfigs'],
  ['properties', 'networkInterfaces', '0', 'aliasIpRanges'],
  ['properties', 'scheduling'],
  ['properties', 'scheduling', 'hostErrorTimeoutSeconds'],
  ['properties', 'serviceAccounts'],
  ['properties', 'guestAccelerators'],
  ['sourceInstance'],
  ['__proto__'],
  ['properties', 'constructor'],
];

function plant(body: any, path: string[], value: unknown): any {
  const copy = JSON.parse(JSON.stringify(body));
  let cur = copy;
  for (const k of path.slice(0, -1)) {
    if (cur[k] === null || typeof cur[k] !== 'object') cur[k] = /^\d+$/.test(k) ? [] : {};
    cur = cur[k];
  }
  Object.defineProperty(cur, path[path.length - 1], { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('insert body fuzz', () => {
  let t: TestTwin;
  let seq = 0;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  async function insertRaw(text: string) {
    return t.call(CORA, { method: 'POST', url: templatesPath(), payload: text, headers: { 'content-type': 'application/json' } });
  }

  async function checkOutcome(name: string, res: Awaited<ReturnType<typeof insertRaw>>) {
    assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 500)}`);
    const stored = typeof name === 'string' && /^[a-z][-a-z0-9]{0,61}$/.test(name) ? await t.call(CORA, { method: 'GET', url: templatePath(name) }) : undefined;
    const succeeded = res.statusCode === 200 && res.json().status === 'DONE' && !res.json().error;
    if (stored) {
      if (succeeded) {
        assert.equal(stored.statusCode, 200, stored.body);
        const tpl = stored.json();
        assert.equal(tpl.name, name);
        assert.equal(tpl.kind, 'compute#instanceTemplate');
        assert.ok(tpl.properties && typeof tpl.properties === 'object');
      } else if (res.statusCode !== 409) {
        assert.equal(stored.statusCode, 404, `a failed insert stored something: ${stored.body.slice(0, 300)}`);
      }
    }
  }

  test('a nasty value planted anywhere: a 4xx or a clean operation, never a 5xx or half a template', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), nasty, async (path, value) => {
        const name = `fz-${++seq}`;
        const body = plant(templateBody(name), path, value);
        const res = await insertRaw(JSON.stringify(body));
        await checkOutcome(path[0] === 'name' ? (typeof value === 'string' ? value : '') : name, res);
      }),
      { numRuns: 150 },
    );
  });

  test('arbitrary JSON documents as bodies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        const res = await insertRaw(JSON.stringify(value) ?? 'null');
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 300)}`);
      }),
      { numRuns: 100 },
    );
  });

  test('deep nesting, NUL, invalid UTF-8 and huge bodies are refused cleanly; the server keeps answering', async () => {
    for (const text of [deep(5_000), deep(60), '{"name":"a\\u0000b"}', '{"name":', '"just a string"', '[]', JSON.stringify(templateBody('x'.repeat(1_000_000)))]) {
      const res = await insertRaw(text);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} for ${text.slice(0, 40)}`);
    }
    const bad = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } });
    assert.ok(bad.statusCode >= 400 && bad.statusCode < 500);
    const ok = await insertRaw(JSON.stringify(templateBody('fz-alive')));
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().error, undefined, ok.body);
  });
});
