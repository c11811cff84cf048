import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import fc from 'fast-check';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, DEMO } from '../support/world.ts';
import { CORA, computeWorld, templateBody, templatesPath } from './compute.helpers.ts';
import { keysPath } from './helpers.ts';
import { createApiKey, get, mediaSection } from './media.world.ts';

const world = { ...computeWorld, quotas: [{ project: DEMO.projectId, service: 'youtube.googleapis.com', dailyLimit: 100_000_000 }], media: mediaSection };

async function journal(t: TestTwin, query = ''): Promise<any[]> {
  const res = await t.admin('GET', `/_twin/v1/requests${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().requests;
}

describe('request journal (GET|DELETE /_twin/v1/requests)', () => {
  let t: TestTwin;
  let key: string;
  before(async () => {
    t = await startTestTwin({ world });
    key = await createApiKey(t);
  });
  after(() => t?.close());
  beforeEach(async () => {
    assert.equal((await t.admin('DELETE', '/_twin/v1/requests')).statusCode, 200);
  });

  test('every service\'s calls are journaled by discovery method id, principal, key id, project, status, operation', async () => {
    await t.call(ALICE, { method: 'GET', url: keysPath() });
    const create = (await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=journaled`, payload: { displayName: 'j' } })).json();
    await t.call(ALICE, { method: 'GET', url: `/v2/${create.name}` });
    await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${encodeURIComponent(key)}` });
    const ins = (await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('tpl-j') })).json();
    await get(t, '/youtube/v3/search?part=snippet&forMine=false&q=pasta', { key });
    await t.call(BOB, { method: 'GET', url: `/v1/projects/${DEMO.projectId}/services?filter=state:ENABLED` });
    await t.call(ALICE, { method: 'GET', url: `${keysPath()}/missing` });

    const entries = await journal(t);
    const methods = entries.map((e) => e.method).reverse();
    assert.deepEqual(methods.slice(0, 6), [
      'apikeys.projects.locations.keys.list',
      'apikeys.projects.locations.keys.create',
      'apikeys.operations.get',
      'apikeys.keys.lookupKey',
      'compute.regionInstanceTemplates.insert',
      'youtube.search.list',
    ]);
    const by = (m: string) => entries.find((e) => e.method === m);
    const list = by('apikeys.projects.locations.keys.list');
    assert.equal(list.principal, ALICE);
    assert.equal(list.project, DEMO.projectId);
    assert.equal(list.status, 200);
    assert.equal(list.service, 'apikeys.googleapis.com');
    assert.equal(list.httpMethod, 'GET');
    assert.match(list.time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(typeof list.latencyMs, 'number');
    assert.match(list.requestId, /\S/);
    assert.equal(by('apikeys.projects.locations.keys.create').operation, create.name);
    assert.equal(by('apikeys.operations.get').operation, create.name);
    assert.equal(by('compute.regionInstanceTemplates.insert').operation, ins.name);
    assert.equal(by('compute.regionInstanceTemplates.insert').principal, CORA);
    const search = by('youtube.search.list');
    assert.equal(search.principal, undefined);
    assert.equal(search.project, DEMO.projectId, "the key's project, by id");
    assert.match(search.apiKeyId, /^[0-9a-f-]{36}$/);
    assert.equal(search.query.forMine, 'false');
    assert.equal(search.query.key, 'REDACTED');
    assert.equal(by('apikeys.keys.lookupKey').query.keyString, 'REDACTED');
    const missing = entries[0];
    assert.equal(missing.status, 404);
    assert.equal(missing.error.status, 'NOT_FOUND');
    assert.ok(entries.some((e) => e.method === 'serviceusage.services.list'));
    // no bodies unless asked
    assert.ok(entries.every((e) => e.requestBody === undefined && e.responseBody === undefined));
    const text = JSON.stringify(entries);
    assert.ok(!text.includes(key));
  });

  test('a call records its project by id, whichever form it named (a key by its name, a key string, a number in the path)', async () => {
    const created = (await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=by-number`, payload: { displayName: 'n' } })).json();
    // The API answers a key's name with the project's number; clients call the key by that name.
    const name = created.response.name as string;
    assert.ok(name.startsWith(`projects/${DEMO.projectNumber}/`), name);
    await t.call(ALICE, { method: 'GET', url: `/v2/${name}` });
    await t.call(ALICE, { method: 'PATCH', url: `/v2/${name}?updateMask=displayName`, payload: { displayName: 'm' } });
    await t.call(ALICE, { method: 'GET', url: `/v2/${name}/keyString` });
    await t.call(ALICE, { method: 'GET', url: `/v2/projects/${DEMO.projectNumber}/locations/global/keys/missing` });
    await t.call(BOB, { method: 'GET', url: `/v1/projects/${DEMO.projectNumber}/services?filter=state:ENABLED` });
    await t.call(CORA, { method: 'GET', url: `/compute/v1/projects/${DEMO.projectNumber}/global/instanceTemplates` });
    // A media call knows its project from the key (or the token): by number.
    await get(t, '/youtube/v3/search?part=snippet&q=pasta', { key });
    await get(t, '/youtube/v3/videos?part=id&id=x', { key });
    // A project the world does not know stays as the call named it.
    await t.call(ALICE, { method: 'GET', url: '/v2/projects/999999999999/locations/global/keys' });

    const entries = (await journal(t)).reverse();
    assert.deepEqual(
      entries.map((e) => [e.method, e.project]),
      [
        ['apikeys.projects.locations.keys.create', DEMO.projectId],
        ['apikeys.projects.locations.keys.get', DEMO.projectId],
        ['apikeys.projects.locations.keys.patch', DEMO.projectId],
        ['apikeys.projects.locations.keys.getKeyString', DEMO.projectId],
        ['apikeys.projects.locations.keys.get', DEMO.projectId],
        ['serviceusage.services.list', DEMO.projectId],
        ['compute.instanceTemplates.list', DEMO.projectId],
        ['youtube.search.list', DEMO.projectId],
        ['youtube.videos.list', DEMO.projectId],
        ['apikeys.projects.locations.keys.list', '999999999999'],
      ],
    );
    assert.equal(entries[4].status, 404);
  });

  test('an admin token or a JWT under a parameter name not known as secret is masked, in the URL and the query', async () => {
    const admin = t.twin.adminToken.startsWith('ctadm_') ? t.twin.adminToken : 'ctadm_0123456789abcdefghijklmnopqrstuv';
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJjaUBleGFtcGxlLmNvbSJ9.c2lnbmF0dXJl';
    await get(t, `/youtube/v3/videos?part=id&id=x&debug=${admin}&note=${encodeURIComponent(`see ${jwt}`)}&adminToken=plain-secret`, { key });
    const [entry] = await journal(t, '?limit=1');
    assert.equal(entry.query.debug, 'REDACTED');
    assert.equal(entry.query.note, 'see REDACTED');
    assert.equal(entry.query.adminToken, 'REDACTED');
    const text = JSON.stringify(entry);
    for (const secret of [admin, jwt, 'plain-secret']) assert.ok(!text.includes(secret), secret);
  });

  test('filters: method (with *), principal, project (id or number), status, since, after, limit', async () => {
    await t.call(ALICE, { method: 'GET', url: keysPath() });
    await t.call(BOB, { method: 'GET', url: keysPath() });
    await t.call(BOB, { method: 'GET', url: `${keysPath()}/none` });
    await t.call(CORA, { method: 'GET', url: templatesPath() });
    const mid = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await get(t, '/youtube/v3/videos?part=id&id=x', { key });

    assert.equal((await journal(t, '?method=apikeys.*')).length, 3);
    assert.equal((await journal(t, '?method=*.list')).length, 4);
    assert.equal((await journal(t, `?principal=${encodeURIComponent(BOB)}`)).length, 2);
    assert.equal((await journal(t, '?principal=bob@example.com')).length, 2);
    assert.equal((await journal(t, `?project=${DEMO.projectNumber}`)).length, 5);
    assert.equal((await journal(t, `?project=${DEMO.projectId}`)).length, 5);
    assert.deepEqual((await journal(t, '?status=404')).map((e) => e.status), [404]);
    assert.deepEqual((await journal(t, '?status=4xx')).map((e) => e.status), [404]);
    assert.deepEqual((await journal(t, '?status=NOT_FOUND')).map((e) => e.status), [404]);
    assert.equal((await journal(t, '?status=ok')).length, 4);
    assert.deepEqual((await journal(t, `?since=${encodeURIComponent(mid)}`)).map((e) => e.method), ['youtube.videos.list']);
    const all = await journal(t, '?limit=2');
    assert.equal(all.length, 2);
    assert.equal(all[0].method, 'youtube.videos.list');
    assert.deepEqual((await journal(t, `?after=${all[1].seq}`)).map((e) => e.seq), [all[0].seq]);
    assert.equal((await t.admin('GET', '/_twin/v1/requests?since=yesterday')).statusCode, 400);
    assert.equal((await t.admin('GET', '/_twin/v1/requests?limit=0')).statusCode, 400);
    assert.equal((await t.admin('GET', '/_twin/v1/requests?status=teapot')).statusCode, 400);
    // the admin API itself is not journaled
    assert.ok((await journal(t)).every((e) => !String(e.url).startsWith('/_twin')));
  });
});

describe('request journal with bodies: no secret in any entry', () => {
  let t: TestTwin;
  let key: string;
  before(async () => {
    t = await startTestTwin({ world, journalBodies: true });
    key = await createApiKey(t);
  });
  after(() => t?.close());

  test('no key string, token or private key in any entry, whatever the request carries (property)', async () => {
    const token = await t.token(ALICE);
    const sa = (await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: 'ci-robot@demo-project.iam.gserviceaccount.com' })).json();
    const secrets = [key, token, sa.private_key as string];
    const pemBody = (sa.private_key as string).split('\n')[1];
    const places = fc.constantFrom('query-key', 'header-key', 'query-keyString', 'body-field', 'body-displayName', 'path', 'token-query', 'query-q', 'compute-filter');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...secrets), places, fc.constantFrom('GET', 'POST', 'PATCH'), fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), async (secret, where, verb, before, after) => {
        // the secret wrapped in arbitrary text (a credential is masked wherever it sits in a value)
        const enc = encodeURIComponent(where === 'query-q' || where === 'compute-filter' ? before + secret + after : secret);
        const url = {
          'query-key': `/youtube/v3/search?part=snippet&key=${enc}`,
          'header-key': '/youtube/v3/videos?part=id&id=a',
          'query-keyString': `/v2/keys:lookupKey?keyString=${enc}`,
          'body-field': `${keysPath()}?keyId=prop-${Math.random().toString(36).slice(2, 8)}`,
          'body-displayName': `${keysPath()}`,
          path: `${keysPath()}/${enc}`,
          'token-query': `${keysPath()}?access_token=${enc}`,
          'query-q': `/youtube/v3/search?part=snippet&q=${enc}&key=${encodeURIComponent(key)}`,
          'compute-filter': `/compute/v1/projects/${DEMO.projectId}/regions/us-central1/instanceTemplates?filter=name%20%3D%20${enc}`,
        }[where];
        const method = where.startsWith('body') ? (verb === 'GET' ? 'POST' : verb) : 'GET';
        const payload = where === 'body-field' ? { keyString: secret, restrictions: { token: secret } } : where === 'body-displayName' ? { displayName: secret } : undefined;
        await t.twin.app.inject({
          method: method as 'GET',
          url,
          payload: method === 'GET' ? undefined : payload ?? {},
          headers: { authorization: `Bearer ${token}`, ...(where === 'header-key' ? { 'x-goog-api-key': secret } : {}) },
        });
        const text = JSON.stringify(await journal(t, '?limit=5'));
        for (const s of secrets) {
          assert.ok(!text.includes(s) && !text.includes(JSON.stringify(s).slice(1, -1)), `a secret in the journal after ${where}`);
          assert.ok(!text.includes(encodeURIComponent(s).slice(0, 40)), `an encoded secret in the journal after ${where}`);
        }
        assert.ok(!text.includes(pemBody));
      }),
      { numRuns: 150, seed: 19 },
    );
    // bodies were journaled (masked), so the property saw them
    assert.ok((await journal(t, '?limit=100')).some((e) => JSON.stringify(e.requestBody ?? '').includes('REDACTED')));
  });
});

describe('request journal: bounded ring, bodies only when asked, off', () => {
  test('the ring keeps the last --journal-size entries', async () => {
    const t = await startTestTwin({ journalSize: 5 });
    try {
      for (let i = 0; i < 8; i++) await t.call(ALICE, { method: 'GET', url: `${keysPath()}?pageSize=${i + 1}` });
      const res = (await t.admin('GET', '/_twin/v1/requests?limit=100')).json();
      assert.equal(res.capacity, 5);
      assert.equal(res.size, 5);
      assert.deepEqual(res.requests.map((e: any) => e.query.pageSize), ['8', '7', '6', '5', '4']);
    } finally {
      await t.close();
    }
  });

  test('--journal-bodies keeps request and response bodies with credentials masked', async () => {
    const t = await startTestTwin({ journalBodies: true });
    try {
      const res = await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=with-body`, payload: { displayName: 'bodies' } });
      const keyString = res.json().response.keyString;
      const [e] = await journal(t, '?method=apikeys.projects.locations.keys.create');
      assert.deepEqual(e.requestBody, { displayName: 'bodies' });
      assert.equal(e.responseBody.response.displayName, 'bodies');
      assert.equal(e.responseBody.response.keyString, 'REDACTED');
      await t.call(ALICE, { method: 'GET', url: `${keysPath()}/with-body/keyString` });
      const [ks] = await journal(t, '?method=apikeys.projects.locations.keys.getKeyString');
      assert.deepEqual(ks.responseBody, { keyString: 'REDACTED' });
      assert.ok(!JSON.stringify(await journal(t)).includes(keyString));
    } finally {
      await t.close();
    }
  });

  test('--journal-size 0 turns the journal off', async () => {
    const t = await startTestTwin({ journalSize: 0 });
    try {
      await t.call(ALICE, { method: 'GET', url: keysPath() });
      const res = (await t.admin('GET', '/_twin/v1/requests')).json();
      assert.deepEqual([res.requests, res.capacity], [[], 0]);
    } finally {
      await t.close();
    }
  });
});
