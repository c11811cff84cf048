import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { TEST_STORE } from '../support/store.ts';
import { startTestTwin, type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, CAROL, DEMO, testWorld } from '../support/world.ts';
import { assertError, createKey, fieldViolations, keyNameOf, keysPath } from './helpers.ts';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const WORLD_TABLES = ['organizations', 'folders', 'projects', 'service_accounts', 'iam_policies', 'custom_roles', 'org_policies'];
const sortRows = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();

describe('admin API', () => {
  let t: TestTwin;
  const worldState = async () => {
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    return Object.fromEntries(WORLD_TABLES.map((name) => [name, sortRows(snap.tables[name] ?? [])]));
  };
  const apply = (doc: unknown) => t.admin('POST', '/_twin/v1/world:apply', doc);
  twinHooks((twin) => {
    t = twin;
  });

  test('every route but health needs the admin token', async () => {
    const userToken = await t.token(ALICE);
    const routes: [string, string, unknown?][] = [
      ['GET', '/_twin/v1/clock'],
      ['POST', '/_twin/v1/clock:advance', { seconds: 1 }],
      ['GET', '/_twin/v1/snapshot'],
      ['PUT', '/_twin/v1/snapshot', {}],
      ['POST', '/_twin/v1/reset'],
      ['POST', '/_twin/v1/world:apply', {}],
      ['POST', '/_twin/v1/tokens', { principal: 'alice@example.com' }],
      ['POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: 'x' }],
      ['GET', '/_twin/v1/serviceAccounts/ci-robot@demo-project.iam.gserviceaccount.com/keys'],
      ['POST', `/_twin/v1/serviceAccounts/ci-robot@demo-project.iam.gserviceaccount.com/keys/${'a'.repeat(40)}:disable`],
      ['POST', `/_twin/v1/serviceAccounts/ci-robot@demo-project.iam.gserviceaccount.com/keys/${'a'.repeat(40)}:enable`],
      ['DELETE', `/_twin/v1/serviceAccounts/ci-robot@demo-project.iam.gserviceaccount.com/keys/${'a'.repeat(40)}`],
      ['POST', '/_twin/v1/tokens:revoke', { token: userToken }],
      ['GET', '/_twin/v1/operations/config'],
      ['PUT', '/_twin/v1/operations/config', { mode: 'instant' }],
    ];
    for (const [method, url, payload] of routes) {
      for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${userToken}`, 'test-admin-token']) {
        const res = await t.twin.app.inject({ method: method as any, url, payload: payload as any, headers: authorization ? { authorization } : {} });
        assertError(res, 401, 'UNAUTHENTICATED', /admin token/);
      }
    }
    // nothing happened
    assert.equal((await t.admin('GET', '/_twin/v1/clock')).json().offsetSeconds, 0);
    assert.equal((await t.twin.app.inject({ method: 'GET', url: keysPath(), headers: { authorization: `Bearer ${userToken}` } })).statusCode, 200, 'the token was not revoked');
    assert.equal((await t.call(ALICE, { method: 'GET', url: keysPath() })).statusCode, 200);
  });

  test('health needs no auth: {status, version, store, transports}', async () => {
    const res = await t.twin.app.inject({ method: 'GET', url: '/_twin/v1/health' });
    assert.equal(res.statusCode, 200);
    // Served through inject, the twin listens on no port: no transports.
    assert.deepEqual(res.json(), { status: 'ok', version: VERSION, store: TEST_STORE === 'postgres' ? 'postgres' : 'sqlite-memory', transports: [] });
  });

  test('tokens: mints a bearer token for a principal', async () => {
    const res = await t.admin('POST', '/_twin/v1/tokens', { principal: 'alice@example.com', scopes: ['cloud-platform'], ttlSeconds: 120 });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 120);
    const list = await t.twin.app.inject({ method: 'GET', url: keysPath(), headers: { authorization: `Bearer ${body.access_token}` } });
    assert.equal(list.statusCode, 200);
    assertError(await t.admin('POST', '/_twin/v1/tokens', { principal: 'not an email' }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', '/_twin/v1/tokens', { principal: 'a@b.c', extra: 1 }), 400, 'INVALID_ARGUMENT');
  });

  test('world:apply is idempotent', async () => {
    const before = await worldState();
    const res = await apply(testWorld);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().applied.projects, testWorld.projects.length);
    assert.deepEqual(await worldState(), before);
    assert.equal((await apply(testWorld)).statusCode, 200);
    assert.deepEqual(await worldState(), before);
  });

  test('world:apply accepts YAML', async () => {
    const yaml = [
      'projects:',
      '  - {projectId: yaml-project, projectNumber: "300000000020", parent: organizations/100000000001}',
      'iamPolicies:',
      '  - resource: projects/yaml-project',
      '    bindings: [{role: roles/serviceusage.apiKeysAdmin, members: ["user:yaml@example.com"]}]',
      '',
    ].join('\n');
    const res = await t.twin.app.inject({ method: 'POST', url: '/_twin/v1/world:apply', payload: yaml, headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/yaml' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { applied: { projects: 1, iamPolicies: 1 } });
    const created = await t.call('user:yaml@example.com', { method: 'POST', url: keysPath('yaml-project'), payload: {} });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.json().response.name.split('/')[1], '300000000020');
  });

  test('malformed YAML is 400', async () => {
    const res = await t.twin.app.inject({ method: 'POST', url: '/_twin/v1/world:apply', payload: 'projects: [unclosed', headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/yaml' } });
    assertError(res, 400, 'INVALID_ARGUMENT', /YAML/);
  });

  test('an invalid document is rejected with a message naming the bad field', async () => {
    let err = assertError(await apply({ projects: [{ projectId: 'fine-project', projectNumber: 'abc' }] }), 400, 'INVALID_ARGUMENT', /projects\[0\]\.projectNumber/);
    assert.equal(fieldViolations(err)[0].field, 'projects[0].projectNumber');
    err = assertError(await apply({ projcts: [] }), 400, 'INVALID_ARGUMENT', 'Invalid world document: projcts: is not a known field');
    assert.equal(fieldViolations(err)[0].field, 'projcts');
    assertError(await apply({ projects: [{ projectId: 'fine-project', projectNumber: '300000000055', colour: 'red' }] }), 400, 'INVALID_ARGUMENT', /projects\[0\]\.colour: is not a known field/);
    err = assertError(await apply({ folders: [{ id: '200000000099', parent: 'organizations/999' }] }), 400, 'INVALID_ARGUMENT', /folders\[0\]\.parent/);
    err = assertError(
      await apply({ iamPolicies: [{ resource: `projects/${DEMO.projectId}`, bindings: [{ role: 'roles/doesNotExist', members: ['user:x@example.com'] }] }] }),
      400,
      'INVALID_ARGUMENT',
      /iamPolicies\[0\]\.bindings\[0\]\.role/,
    );
    err = assertError(await apply({ projects: [{ projectId: DEMO.projectId, projectNumber: '300000000099' }] }), 400, 'INVALID_ARGUMENT', /projects\[0\]\.projectId/);
    assertError(await apply([1, 2]), 400, 'INVALID_ARGUMENT');
  });

  test('an invalid document changes nothing', async () => {
    const before = await worldState();
    const docs = [
      {
        organizations: [{ id: '100000000077' }],
        projects: [{ projectId: 'half-project', projectNumber: '300000000077', parent: 'organizations/100000000077' }],
        iamPolicies: [{ resource: 'projects/half-project', bindings: [{ role: 'roles/owner', members: [CAROL] }] }],
        orgPolicies: [{ resource: 'projects/half-project', constraint: 'constraints/x.y', enforce: 'yes' }],
      },
      {
        organizations: [{ id: '100000000077' }],
        projects: [{ projectId: 'half-project', projectNumber: '300000000077', parent: 'organizations/100000000077' }],
        iamPolicies: [{ resource: 'projects/half-project', bindings: [{ role: 'roles/owner', members: [CAROL] }] }],
        orgPolicies: [{ resource: 'projects/missing-project', constraint: 'constraints/x.y', enforce: true }],
      },
    ];
    for (const doc of docs) {
      assertError(await apply(doc), 400, 'INVALID_ARGUMENT', /orgPolicies\[0\]/);
      assert.deepEqual(await worldState(), before);
      assertError(await t.call(CAROL, { method: 'GET', url: keysPath('half-project') }), 403, 'PERMISSION_DENIED');
    }
  });

  test('clock: GET shows now and the offset; advance moves it forward only', async () => {
    const a = (await t.admin('GET', '/_twin/v1/clock')).json();
    assert.deepEqual(Object.keys(a).sort(), ['now', 'offsetSeconds']);
    const res = await t.admin('POST', '/_twin/v1/clock:advance', { seconds: 3600 });
    assert.equal(res.statusCode, 200, res.body);
    const b = res.json();
    assert.equal(b.offsetSeconds, a.offsetSeconds + 3600);
    assert.ok(Date.parse(b.now) - Date.parse(a.now) >= 3600_000);
    assert.deepEqual((await t.admin('GET', '/_twin/v1/clock')).json().offsetSeconds, b.offsetSeconds);
    assertError(await t.admin('POST', '/_twin/v1/clock:advance', { seconds: -5 }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', '/_twin/v1/clock:advance', {}), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', '/_twin/v1/clock:advance', { seconds: '10' }), 400, 'INVALID_ARGUMENT');
    assert.equal((await t.admin('GET', '/_twin/v1/clock')).json().offsetSeconds, b.offsetSeconds);
    // resource times follow the twin clock
    const k = await createKey(t);
    assert.ok(Math.abs(Date.parse(k.createTime) - (Date.now() + b.offsetSeconds * 1000)) < 60_000);
  });

  test('operations config: GET, PUT delayed (default delay), back to instant; bad bodies are 400', async () => {
    assert.deepEqual((await t.admin('GET', '/_twin/v1/operations/config')).json(), { mode: 'instant', delayMs: 0 });
    assert.deepEqual((await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed' })).json(), { mode: 'delayed', delayMs: 5000 });
    assert.deepEqual((await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 60000 })).json(), { mode: 'delayed', delayMs: 60000 });
    assert.deepEqual((await t.admin('GET', '/_twin/v1/operations/config')).json(), { mode: 'delayed', delayMs: 60000 });
    const op = (await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} })).json();
    assert.deepEqual(Object.keys(op), ['name']);
    assertError(await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'eventually' }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: -1 }), 400, 'INVALID_ARGUMENT');
    assert.deepEqual((await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant', delayMs: 999 })).json(), { mode: 'instant', delayMs: 0 });
    assert.equal((await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} })).json().done, true);
  });
});

describe('admin API: snapshot and reset', () => {
  test('GET snapshot, reset, PUT snapshot restores keys and their strings', async () => {
    const t = await startTestTwin();
    try {
      const k = await createKey(t, { keyId: 'survivor', body: { displayName: 'Survivor', restrictions: { apiTargets: [{ service: 'youtube.googleapis.com' }] } } });
      const origin = { service: 'youtube.googleapis.com', method: 'List' };
      assert.equal((await t.twin.apikeys.checkKey(k.keyString, origin)).keyName, keyNameOf('survivor'));

      const snapRes = await t.admin('GET', '/_twin/v1/snapshot');
      assert.equal(snapRes.statusCode, 200);
      const snap = snapRes.json();
      assert.equal(snap.format, 'cloudtwin.snapshot/v1');
      assert.equal(snap.tables.api_keys.length, 1);
      assert.equal(snap.tables.api_keys[0].key_string, k.keyString);
      assert.equal(snap.tables.api_keys[0].key_cipher, undefined, 'key strings leave unsealed, not as this server\'s ciphertext');

      const reset = await t.admin('POST', '/_twin/v1/reset');
      assert.equal(reset.statusCode, 200);
      assert.deepEqual(reset.json(), {});
      // everything is gone: the world, the keys, the tokens
      assertError(await t.call(ALICE, { method: 'GET', url: keysPath() }), 401, 'UNAUTHENTICATED');
      await assert.rejects(t.twin.apikeys.checkKey(k.keyString, origin), (e: any) => e.reason === 'API_KEY_INVALID');
      assert.deepEqual((await t.admin('GET', '/_twin/v1/snapshot')).json().tables.projects, []);

      assert.equal(snap.tables.world_sections, undefined, 'the retired table is gone');
      // A snapshot of an earlier version names the retired world_sections table: restored all the same.
      const put = await t.admin('PUT', '/_twin/v1/snapshot', { ...snap, tables: { ...snap.tables, world_sections: [] } });
      assert.equal(put.statusCode, 200, put.body);
      const listed = (await t.call(ALICE, { method: 'GET', url: keysPath() })).json();
      assert.deepEqual(listed.keys.map((x: any) => x.name), [keyNameOf('survivor')]);
      assert.equal(listed.keys[0].uid, k.uid);
      assert.equal(listed.keys[0].etag, k.etag);
      assert.equal((await t.call(ALICE, { method: 'GET', url: `${keysPath()}/survivor/keyString` })).json().keyString, k.keyString);
      const lookup = (await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${k.keyString}` })).json();
      assert.deepEqual(lookup, { parent: `projects/${DEMO.projectNumber}/locations/global`, name: keyNameOf('survivor') });
      assert.equal((await t.twin.apikeys.checkKey(k.keyString, origin)).keyName, keyNameOf('survivor'));
    } finally {
      await t.close();
    }
  });

  test('an invalid snapshot is 400 and changes nothing', async () => {
    const t = await startTestTwin();
    try {
      await createKey(t, { keyId: 'stays' });
      assertError(await t.admin('PUT', '/_twin/v1/snapshot', { format: 'nope', tables: {} }), 400, 'INVALID_ARGUMENT', /format/);
      assertError(await t.admin('PUT', '/_twin/v1/snapshot', { format: 'cloudtwin.snapshot/v1', tables: { bogus: [] } }), 400, 'INVALID_ARGUMENT', /bogus/);
      assertError(
        await t.admin('PUT', '/_twin/v1/snapshot', { format: 'cloudtwin.snapshot/v1', tables: { projects: [{ no_such_column: 1 }] } }),
        400,
        'INVALID_ARGUMENT',
        /Invalid snapshot/,
      );
      assert.equal((await t.call(ALICE, { method: 'GET', url: `${keysPath()}/stays` })).statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
