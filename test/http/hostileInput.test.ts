import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

/**
 * Input no store can hold or no parser expects must end in a clear 4xx in Google's envelope,
 * never a 500 and never an operation that fails inside (PostgreSQL cannot store U+0000 in text).
 */
const base = `/v2/projects/${DEMO.projectId}/locations/global/keys`;
const token = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

describe('hostile input', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  const cases: [string, (t: TestTwin) => ReturnType<TestTwin['call']>][] = [
    ['NUL in a key path', (t) => t.call(ALICE, { method: 'GET', url: `${base}/a%00b` })],
    ['NUL in an operation name', (t) => t.call(ALICE, { method: 'GET', url: '/v2/operations/x%00y' })],
    ['NUL in displayName', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { displayName: 'a\u0000b' } })],
    ['NUL in an annotation value', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { annotations: { a: 'b\u0000' } } })],
    ['NUL in an annotation key', (t) => t.call(ALICE, { method: 'POST', url: base, payload: { annotations: { 'a\u0000': 'b' } } })],
    ['NUL in keyString', (t) => t.call(ALICE, { method: 'GET', url: '/v2/keys:lookupKey?keyString=AIza%00' })],
    ['a page token with a forged cursor', (t) => t.call(ALICE, { method: 'GET', url: `${base}?pageToken=${token(['300000000001', 0, 1, 'x\u0000'])}` })],
    ['a page token with an out-of-range time', (t) => t.call(ALICE, { method: 'GET', url: `${base}?pageToken=${token(['300000000001', 0, 1e300, '0b3a2c1e-5f4d-4a6b-8c7d-9e0f1a2b3c4d'])}` })],
    ['NUL in a world document', (t) => t.admin('POST', '/_twin/v1/world:apply', { organizations: [{ id: '5', domain: 'a\u0000' }] })],
    ['NUL in a token principal', (t) => t.admin('POST', '/_twin/v1/tokens', { principal: 'user:a\u0000@b.c' })],
  ];
  for (const [name, send] of cases) {
    test(`${name}: 400 INVALID_ARGUMENT`, async () => {
      const res = await send(t);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.status, 'INVALID_ARGUMENT');
    });
  }

  test('nothing was stored by the rejected creates', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: `${base}?showDeleted=true` });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
  });
});
