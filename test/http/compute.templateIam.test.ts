/** Resource IAM on global instance templates: getIamPolicy / setIamPolicy / testIamPermissions, and what a binding on one template grants. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL, MALLORY } from '../support/world.ts';
import { CORA, GLOBAL_SCOPE, P, VIC, assertComputeError, computeWorld, insertTemplate, templateBody } from './compute.helpers.ts';

const iam = (name: string, method: string) => `${GLOBAL_SCOPE.templatePath(name)}/${method}`;

describe('instanceTemplates IAM (global)', () => {
  let t: TestTwin;
  const getPolicy = (who: string, name: string, query = '') => t.call(who, { method: 'GET', url: iam(name, 'getIamPolicy') + query });
  const setPolicy = (who: string, name: string, payload: unknown) => t.call(who, { method: 'POST', url: iam(name, 'setIamPolicy'), payload: payload as any });
  const testPerms = (who: string, name: string, permissions: string[]) => t.call(who, { method: 'POST', url: iam(name, 'testIamPermissions'), payload: { permissions } });
  const ALL = ['compute.instanceTemplates.get', 'compute.instanceTemplates.delete', 'compute.instanceTemplates.getIamPolicy', 'compute.instanceTemplates.setIamPolicy', 'compute.instanceTemplates.useReadOnly'];

  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    for (const n of ['iam-a', 'iam-b']) await insertTemplate(t, templateBody(n), { scope: GLOBAL_SCOPE });
  });
  after(() => t.close());

  test('a template without a policy: version 1, etag ACAB, no bindings; a viewer may read it, an outsider may not', async () => {
    const res = await getPolicy(VIC, 'iam-a');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { version: 1, etag: 'ACAB' });
    assertComputeError(await getPolicy(MALLORY, 'iam-a'), 403, 'forbidden', `Required 'compute.instanceTemplates.getIamPolicy' permission for 'projects/${P}/global/instanceTemplates/iam-a'`);
    assertComputeError(await getPolicy(VIC, 'nope'), 404, 'notFound', `The resource 'projects/${P}/global/instanceTemplates/nope' was not found`);
    assertComputeError(await getPolicy(VIC, 'iam-a', '?optionsRequestedPolicyVersion=2'), 400, 'invalidParameter');
  });

  test('a member bound on one template gets that template and nothing else', async () => {
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: GLOBAL_SCOPE.templatePath('iam-a') }), 403, 'forbidden');
    const set = await setPolicy(CORA, 'iam-a', { policy: { bindings: [{ role: 'roles/compute.viewer', members: [MALLORY] }] } });
    assert.equal(set.statusCode, 200, set.body);
    const policy = set.json();
    assert.equal(policy.version, 1);
    assert.match(policy.etag, /^[A-Za-z0-9+/]+=*$/);
    assert.notEqual(policy.etag, 'ACAB');
    assert.deepEqual(policy.bindings, [{ role: 'roles/compute.viewer', members: [MALLORY] }]);
    assert.deepEqual((await getPolicy(VIC, 'iam-a')).json(), policy);
    // get on that template; not the other one, not the list, not the regional collection, not delete
    const got = await t.call(MALLORY, { method: 'GET', url: GLOBAL_SCOPE.templatePath('iam-a') });
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().name, 'iam-a');
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: GLOBAL_SCOPE.templatePath('iam-b') }), 403, 'forbidden');
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: GLOBAL_SCOPE.templatesPath() }), 403, 'forbidden');
    assertComputeError(await t.call(MALLORY, { method: 'DELETE', url: GLOBAL_SCOPE.templatePath('iam-a') }), 403, 'forbidden');
    assertComputeError(await setPolicy(MALLORY, 'iam-a', { policy: { bindings: [] } }), 403, 'forbidden', /compute\.instanceTemplates\.setIamPolicy/);
    // testIamPermissions: the subset held on each template
    assert.deepEqual((await testPerms(MALLORY, 'iam-a', ALL)).json(), { permissions: ['compute.instanceTemplates.get', 'compute.instanceTemplates.getIamPolicy'] });
    assert.deepEqual((await testPerms(MALLORY, 'iam-b', ALL)).json(), {});
    // inherited: the project's instance admin and the organization's owner hold them all
    assert.deepEqual((await testPerms(CORA, 'iam-b', ALL)).json(), { permissions: ALL });
    assert.deepEqual((await testPerms(CAROL, 'iam-a', ALL)).json(), { permissions: ALL });
    assert.deepEqual((await testPerms(VIC, 'iam-a', ALL)).json(), { permissions: ['compute.instanceTemplates.get', 'compute.instanceTemplates.getIamPolicy'] });
  });

  test('etag: a stale read-modify-write is 409; the flattened (deprecated) form works; no etag overwrites', async () => {
    const first = (await getPolicy(CORA, 'iam-b')).json();
    const a = await setPolicy(CORA, 'iam-b', { policy: { etag: first.etag, bindings: [{ role: 'roles/compute.viewer', members: ['user:x@example.com'] }] } });
    assert.equal(a.statusCode, 200, a.body);
    const stale = await setPolicy(CORA, 'iam-b', { policy: { etag: first.etag, bindings: [] } });
    assertComputeError(stale, 409, 'conflict', /concurrent policy changes/);
    // concurrent writers with the same etag: exactly one wins
    const now = a.json().etag;
    const racers = await Promise.all([1, 2, 3].map((i) => setPolicy(CORA, 'iam-b', { policy: { etag: now, bindings: [{ role: 'roles/compute.viewer', members: [`user:r${i}@example.com`] }] } })));
    assert.deepEqual(racers.map((r) => r.statusCode).sort(), [200, 409, 409]);
    const flat = await setPolicy(CORA, 'iam-b', { bindings: [{ role: 'roles/compute.viewer', members: ['user:y@example.com', 'user:y@example.com'] }], etag: racers.find((r) => r.statusCode === 200)!.json().etag });
    assert.equal(flat.statusCode, 200, flat.body);
    assert.deepEqual(flat.json().bindings, [{ role: 'roles/compute.viewer', members: ['user:y@example.com'] }]);
    const blind = await setPolicy(CORA, 'iam-b', { policy: { bindings: [] } });
    assert.equal(blind.statusCode, 200, blind.body);
    assert.equal(blind.json().bindings, undefined);
  });

  test('bad policies are 400: conditions, unknown roles, members without a type, versions', async () => {
    const cases: [unknown, RegExp][] = [
      [{ policy: { bindings: [{ role: 'roles/compute.viewer', members: [MALLORY], condition: { title: 't', expression: 'true' } }] } }, /conditions are not supported/],
      [{ policy: { bindings: [{ role: 'roles/nope', members: [MALLORY] }] } }, /Role \(roles\/nope\) does not exist/],
      [{ policy: { bindings: [{ role: 'roles/compute.viewer', members: ['mallory@evil.example'] }] } }, /unknown type/],
      [{ policy: { version: 2, bindings: [] } }, /versions must be 1 or 3/],
      [{ policy: { bindings: {} } }, /expected a list/],
      [[1], /policy/],
    ];
    for (const [body, message] of cases) assertComputeError(await setPolicy(CORA, 'iam-a', body), 400, 'invalid', message);
    assertComputeError(await testPerms(CORA, 'iam-a', ['compute.*']), 400, 'invalid', /not valid/);
  });

  test('testIamPermissions on a missing template: 404 to who may see templates, the empty answer to others', async () => {
    assertComputeError(await testPerms(VIC, 'gone', ['compute.instanceTemplates.get']), 404, 'notFound');
    assert.deepEqual((await testPerms(MALLORY, 'gone', ['compute.instanceTemplates.get'])).json(), {});
    assert.deepEqual((await t.call(MALLORY, { method: 'POST', url: iam('gone', 'testIamPermissions').replace(P, 'no-such-project'), payload: { permissions: [] } })).json(), {});
  });

  test('deleting a template deletes its policy: a new template of that name starts without one', async () => {
    await insertTemplate(t, templateBody('iam-del'), { scope: GLOBAL_SCOPE });
    assert.equal((await setPolicy(CORA, 'iam-del', { policy: { bindings: [{ role: 'roles/compute.viewer', members: [MALLORY] }] } })).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'DELETE', url: GLOBAL_SCOPE.templatePath('iam-del') })).json().status, 'DONE');
    await insertTemplate(t, templateBody('iam-del'), { scope: GLOBAL_SCOPE });
    assert.deepEqual((await getPolicy(CORA, 'iam-del')).json(), { version: 1, etag: 'ACAB' });
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: GLOBAL_SCOPE.templatePath('iam-del') }), 403, 'forbidden');
  });

  test('scopes: getIamPolicy and testIamPermissions read, setIamPolicy writes', async () => {
    const ro = { scopes: ['https://www.googleapis.com/auth/compute.readonly'] };
    assert.equal((await t.call(CORA, { method: 'GET', url: iam('iam-a', 'getIamPolicy'), ...ro })).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'POST', url: iam('iam-a', 'testIamPermissions'), payload: { permissions: [] }, ...ro })).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'POST', url: iam('iam-a', 'setIamPolicy'), payload: { policy: {} }, ...ro })).statusCode, 403);
  });
});
