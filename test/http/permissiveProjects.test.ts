/**
 * `--auth permissive`: a project the world does not declare comes into being on first use (a
 * number derived from its id, no organization, Compute's defaults), recorded in the store like a
 * declared one. Enforce mode is unchanged: such a project is denied like any other.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Directory } from '../../src/platform/iam/directory.ts';
import { impliedProject } from '../../src/platform/iam/iamService.ts';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';
import { assertError } from './helpers.ts';

const ANYONE = 'user:anyone@example.com';
const empty = () => new Directory({ organizations: [], folders: [], projects: [], serviceAccounts: [], policies: [], customRoles: [], orgPolicies: [] });

describe('the project a name implies', () => {
  test('by id: a 12-digit number derived from the id, the same every time; by number: the id project-NUMBER; no organization', () => {
    const a = impliedProject('fresh-project', empty());
    assert.deepEqual(a, impliedProject('fresh-project', empty()));
    assert.match(a!.projectNumber, /^[1-9][0-9]{11}$/);
    assert.equal(a!.parent, null);
    assert.notEqual(impliedProject('other-project', empty())!.projectNumber, a!.projectNumber);
    assert.deepEqual(impliedProject('123456789', empty()), { projectNumber: '123456789', projectId: 'project-123456789', parent: null });
    // a number another project has already is not taken twice
    const taken = new Directory({ ...{ organizations: [], folders: [], serviceAccounts: [], policies: [], customRoles: [], orgPolicies: [] }, projects: [{ projectNumber: a!.projectNumber, projectId: 'someone-else', parent: null }] });
    assert.notEqual(impliedProject('fresh-project', taken)!.projectNumber, a!.projectNumber);
    for (const bad of ['Bad_Project', 'abc', '-x-project', '0123']) assert.equal(impliedProject(bad, empty()), undefined, bad);
  });
});

describe('permissive mode: undeclared projects come into being on first use', () => {
  let t: TestTwin;
  twinHooks(
    (twin) => {
      t = twin;
    },
    { auth: 'permissive' },
  );

  test('API Keys: a key in a project nothing declares; the project is in the store and the snapshot', async () => {
    const res = await t.call(ANYONE, { method: 'POST', url: '/v2/projects/fresh-project/locations/global/keys?keyId=k1', payload: { displayName: 'k1' } });
    assert.equal(res.statusCode, 200, res.body);
    const number = impliedProject('fresh-project', empty())!.projectNumber;
    assert.equal(res.json().response.name, `projects/${number}/locations/global/keys/k1`);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.deepEqual(
      snap.tables.projects.filter((p: any) => p.project_id === 'fresh-project'),
      [{ project_number: number, project_id: 'fresh-project', parent: null, display_name: null }],
    );
    const principals = (await t.admin('GET', '/_twin/v1/principals')).json();
    assert.ok(principals.projects.some((p: any) => p.projectId === 'fresh-project' && p.projectNumber === number));
    // by number: the same project; a new number makes a project of its own
    assert.equal((await t.call(ANYONE, { method: 'GET', url: `/v2/projects/${number}/locations/global/keys` })).json().keys.length, 1);
    assert.equal((await t.call(ANYONE, { method: 'GET', url: '/v2/projects/555000111/locations/global/keys' })).statusCode, 200);
  });

  test('concurrent first uses of one project make one project', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.call(ANYONE, { method: 'POST', url: `/v2/projects/racy-project/locations/global/keys?keyId=r${i}`, payload: {} })));
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.equal(snap.tables.projects.filter((p: any) => p.project_id === 'racy-project').length, 1);
    assert.equal(new Set(results.map((r) => r.json().response.name.split('/')[1])).size, 1);
  });

  test("Compute: Compute's defaults (the default network, the default service account) in a project nothing declares", async () => {
    const res = await t.call(ANYONE, {
      method: 'POST',
      url: '/compute/v1/projects/compute-fresh/regions/us-central1/instanceTemplates',
      payload: {
        name: 'web',
        properties: {
          machineType: 'e2-small',
          disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
          networkInterfaces: [{ network: 'global/networks/default' }],
          serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.equal(op.status, 'DONE', res.body);
    assert.equal(op.error, undefined, res.body);
    const number = impliedProject('compute-fresh', empty())!.projectNumber;
    const got = (await t.call(ANYONE, { method: 'GET', url: '/compute/v1/projects/compute-fresh/regions/us-central1/instanceTemplates/web' })).json();
    assert.equal(got.properties.serviceAccounts[0].email, `${number}-compute@developer.gserviceaccount.com`);
    assert.match(got.properties.networkInterfaces[0].network, /projects\/compute-fresh\/global\/networks\/default$/);
  });
});

describe('enforce mode: an undeclared project stays unknown', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });

  test('denied like any project the caller may not see, and not created', async () => {
    assertError(await t.call(ALICE, { method: 'POST', url: '/v2/projects/fresh-project/locations/global/keys', payload: {} }), 403, 'PERMISSION_DENIED');
    assert.equal((await t.call(ALICE, { method: 'GET', url: `/v2/projects/${DEMO.projectId}/locations/global/keys` })).statusCode, 200);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.ok(!snap.tables.projects.some((p: any) => p.project_id === 'fresh-project'));
  });
});
