import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, CAROL, DEMO, MALLORY, OTHER } from '../support/world.ts';
import { CORA, TEMPLATE_SCOPES, computeWorld, insertTemplate, templateBody } from './compute.helpers.ts';
import { assertError, errorInfo, keyPath, keysPath } from './helpers.ts';

const FAKE_UUID = '0f0e0d0c-0b0a-4908-8706-050403020100';

/**
 * A caller without permission must get the same answer whether or not the thing exists, and the
 * answer may name only what the caller sent. Each case calls once with a real name and once with
 * a fake one; the bodies must be identical once each supplied name is replaced by a placeholder.
 */
function assertSameAnswer(real: LightMyRequestResponse, realName: string, fake: LightMyRequestResponse, fakeName: string, status = 403): void {
  assert.equal(real.statusCode, status, real.body);
  assert.equal(fake.statusCode, status, fake.body);
  assert.equal(real.body.replaceAll(realName, '<name>'), fake.body.replaceAll(fakeName, '<name>'));
  assert.deepEqual(real.headers['content-type'], fake.headers['content-type']);
}

describe('existence does not leak to callers without permission', () => {
  let t: TestTwin;
  let realKey: Record<string, any>;
  let otherKey: Record<string, any>;
  let createOpName: string;
  let otherOpName: string;
  before(async () => {
    t = await startTestTwin();
    const op = (await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=real-key`, payload: { displayName: 'Real' } })).json();
    createOpName = op.name;
    realKey = op.response;
    // A key in a project ALICE may not see, created by the organization's owner.
    const otherOp = (await t.call(CAROL, { method: 'POST', url: `${keysPath(OTHER.projectId)}?keyId=other-key`, payload: {} })).json();
    otherOpName = otherOp.name;
    otherKey = otherOp.response;
  });
  after(() => t.close());

  const keyRoutes: { label: string; method: 'GET' | 'PATCH' | 'DELETE' | 'POST'; suffix: string; payload?: unknown }[] = [
    { label: 'get', method: 'GET', suffix: '' },
    { label: 'getKeyString', method: 'GET', suffix: '/keyString' },
    { label: 'update', method: 'PATCH', suffix: '?updateMask=displayName', payload: { displayName: 'x' } },
    { label: 'delete', method: 'DELETE', suffix: '' },
    { label: 'undelete', method: 'POST', suffix: ':undelete', payload: {} },
  ];

  for (const r of keyRoutes) {
    test(`${r.label}: a real key and a fake one answer alike (by project id and by number), naming only what was sent`, async () => {
      for (const project of [DEMO.projectId, DEMO.projectNumber]) {
        const realPath = `${keyPath('real-key', project)}${r.suffix}`;
        const fakePath = `${keyPath('no-such-key', project)}${r.suffix}`;
        const real = await t.call(MALLORY, { method: r.method, url: realPath, payload: r.payload as any });
        const fake = await t.call(MALLORY, { method: r.method, url: fakePath, payload: r.payload as any });
        assertSameAnswer(real, 'real-key', fake, 'no-such-key');
        const err = assertError(real, 403, 'PERMISSION_DENIED', /\(or it may not exist\)\.$/);
        assert.equal(errorInfo(err).metadata.resource, `projects/${project}/locations/global/keys/real-key`);
        if (project === DEMO.projectId) assert.ok(!real.body.includes(DEMO.projectNumber), 'the project number is not revealed');
        assert.ok(!real.body.includes(realKey.uid));
      }
    });

    test(`${r.label}: a key of an unknown project answers like one of a real project`, async () => {
      const real = await t.call(MALLORY, { method: r.method, url: `${keyPath('real-key', DEMO.projectId)}${r.suffix}`, payload: r.payload as any });
      const fake = await t.call(MALLORY, { method: r.method, url: `${keyPath('real-key', 'no-such-project')}${r.suffix}`, payload: r.payload as any });
      assertSameAnswer(real, DEMO.projectId, fake, 'no-such-project');
      const byNumber = await t.call(MALLORY, { method: r.method, url: `${keyPath('real-key', '399999999999')}${r.suffix}`, payload: r.payload as any });
      const realByNumber = await t.call(MALLORY, { method: r.method, url: `${keyPath('real-key', DEMO.projectNumber)}${r.suffix}`, payload: r.payload as any });
      assertSameAnswer(realByNumber, DEMO.projectNumber, byNumber, '399999999999');
    });
  }

  test('a viewer without the delete permission: a real key and a fake one answer alike', async () => {
    const real = await t.call(BOB, { method: 'DELETE', url: keyPath('real-key') });
    const fake = await t.call(BOB, { method: 'DELETE', url: keyPath('no-such-key') });
    assertSameAnswer(real, 'real-key', fake, 'no-such-key');
  });

  test('list: a real project and an unknown one answer alike (ids and numbers, with and without a bad location)', async () => {
    for (const [realP, fakeP] of [
      [DEMO.projectId, 'no-such-project'],
      [DEMO.projectNumber, '399999999999'],
    ]) {
      for (const location of ['global', 'us-east1']) {
        const real = await t.call(MALLORY, { method: 'GET', url: keysPath(realP, location) });
        const fake = await t.call(MALLORY, { method: 'GET', url: keysPath(fakeP, location) });
        assertSameAnswer(real, realP, fake, fakeP);
      }
    }
    const create = await t.call(MALLORY, { method: 'POST', url: keysPath(), payload: {} });
    const createFake = await t.call(MALLORY, { method: 'POST', url: keysPath('no-such-project'), payload: {} });
    assertSameAnswer(create, DEMO.projectId, createFake, 'no-such-project');
  });

  test('operations.get: a real operation, a fake one of the same project and one of an unknown project answer alike', async () => {
    const fakeSameProject = `operations/akmf.p7-${DEMO.projectNumber}-${FAKE_UUID}`;
    const fakeOtherProject = `operations/akmf.p7-399999999999-${FAKE_UUID}`;
    const real = await t.call(MALLORY, { method: 'GET', url: `/v2/${createOpName}` });
    for (const fakeName of [fakeSameProject, fakeOtherProject]) {
      const fake = await t.call(MALLORY, { method: 'GET', url: `/v2/${fakeName}` });
      assertSameAnswer(real, createOpName, fake, fakeName);
    }
    const err = assertError(real, 403, 'PERMISSION_DENIED', `Permission 'serviceusage.operations.get' denied on resource '//apikeys.googleapis.com/${createOpName}' (or it may not exist).`);
    assert.deepEqual(errorInfo(err).metadata, { permission: 'serviceusage.operations.get', resource: createOpName });
    assert.ok(!real.body.includes('real-key'), 'nothing of the operation is revealed');
  });

  test('operations.get: a caller with permission on the project tells a missing operation (404) from a real one', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `/v2/operations/akmf.p7-${DEMO.projectNumber}-${FAKE_UUID}` }), 404, 'NOT_FOUND');
    // ALICE holds nothing on OTHER: an operation there is denied like a missing one.
    const real = await t.call(ALICE, { method: 'GET', url: `/v2/${otherOpName}` });
    const fakeName = `operations/akmf.p7-${OTHER.projectNumber}-${FAKE_UUID}`;
    assertSameAnswer(real, otherOpName, await t.call(ALICE, { method: 'GET', url: `/v2/${fakeName}` }), fakeName);
    assert.equal((await t.call(CAROL, { method: 'GET', url: `/v2/${otherOpName}` })).statusCode, 200);
  });

  test('lookupKey: a real key string and a fake one answer byte for byte alike, naming no project', async () => {
    const fakeString = 'AIza' + 'Q'.repeat(35);
    for (const [who, keyString] of [
      [MALLORY, realKey.keyString],
      [ALICE, otherKey.keyString],
    ]) {
      const real = await t.call(who, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${encodeURIComponent(keyString)}` });
      const fake = await t.call(who, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${fakeString}` });
      assertSameAnswer(real, keyString, fake, fakeString);
      assert.equal(real.body, fake.body);
      const err = assertError(real, 403, 'PERMISSION_DENIED', 'The caller does not have permission');
      assert.deepEqual(errorInfo(err), {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'IAM_PERMISSION_DENIED',
        domain: 'apikeys.googleapis.com',
        metadata: { permission: 'apikeys.keys.lookup' },
      });
      for (const leak of [DEMO.projectNumber, OTHER.projectNumber, DEMO.projectId, OTHER.projectId, 'real-key', 'other-key']) assert.ok(!real.body.includes(leak), leak);
    }
  });
});

for (const s of TEMPLATE_SCOPES) describe(`existence does not leak: Compute inherits the rule (${s.label})`, () => {
  let t: TestTwin;
  let opName: string;
  const templatePath = (name: string, project?: string) => s.templatePath(name, project);
  const operationsPath = () => s.operationsPath();
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    opName = (await insertTemplate(t, templateBody('real-template'), { scope: s })).name;
  });
  after(() => t.close());

  test('templates: a real one and a fake one (and an unknown project) answer alike to a stranger', async () => {
    // the global collection's IAM methods too
    const calls = [['GET', ''], ['DELETE', ''], ...(s.region ? [] : [['GET', '/getIamPolicy'], ['POST', '/setIamPolicy']])] as const;
    for (const [method, suffix] of calls) {
      const payload = method === 'POST' ? { policy: {} } : undefined;
      const real = await t.call(MALLORY, { method, url: templatePath('real-template') + suffix, payload });
      const fake = await t.call(MALLORY, { method, url: templatePath('no-such-template') + suffix, payload });
      assertSameAnswer(real, 'real-template', fake, 'no-such-template');
      const unknownProject = await t.call(MALLORY, { method, url: templatePath('real-template', 'no-such-project') + suffix, payload });
      assertSameAnswer(real, DEMO.projectId, unknownProject, 'no-such-project');
    }
    assert.equal((await t.call(CORA, { method: 'GET', url: templatePath('real-template') })).statusCode, 200, 'the template is there');
  });

  test('operations: a real one and a fake one answer alike to a stranger (get, wait, delete)', async () => {
    const fakeName = 'operation-1700000000000-0123456789abc-01234567-89abcdef';
    for (const [method, suffix] of [['GET', ''], ['POST', '/wait'], ['DELETE', '']] as const) {
      const real = await t.call(MALLORY, { method, url: `${operationsPath()}/${opName}${suffix}` });
      const fake = await t.call(MALLORY, { method, url: `${operationsPath()}/${fakeName}${suffix}` });
      assertSameAnswer(real, opName, fake, fakeName);
    }
    assert.equal((await t.call(CORA, { method: 'GET', url: `${operationsPath()}/${opName}` })).statusCode, 200, 'the operation is there');
  });
});
