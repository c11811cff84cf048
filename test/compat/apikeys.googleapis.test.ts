/**
 * Compatibility: the official `googleapis` client (apikeys v2, REST/JSON) against a real
 * `cloudtwin serve` process, with a fixed access token minted by the admin API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JWT, OAuth2Client } from 'google-auth-library';
import { type apikeys_v2, google } from 'googleapis';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { ALICE, BOUND_OK, BOUND_SA, CI_SA, DEMO, LOOSE, testWorld } from '../support/world.ts';

const KEY_STRING = /^AIza[0-9A-Za-z_-]{35}$/;
const DEMO_PARENT = `projects/${DEMO.projectId}/locations/global`;
const DEMO_PARENT_BY_NUMBER = `projects/${DEMO.projectNumber}/locations/global`;
const KEY_TYPE = 'type.googleapis.com/google.api.apikeys.v2.Key';

type Operation = apikeys_v2.Schema$Operation;

/** Expects a googleapis call to fail over HTTP; returns the response (status + parsed envelope). */
async function rejectsWithHttp(p: Promise<unknown>, status: number, canonical: string): Promise<{ status: number; data: any }> {
  try {
    await p;
  } catch (err: any) {
    assert.ok(err.response, `expected an HTTP error, got ${err}`);
    assert.equal(err.response.status, status, JSON.stringify(err.response.data));
    assert.equal(err.response.data?.error?.code, status);
    assert.equal(err.response.data?.error?.status, canonical);
    assert.equal(typeof err.response.data?.error?.message, 'string');
    // gaxios surfaces the envelope's message as the error message
    assert.equal(err.message, err.response.data.error.message);
    return err.response;
  }
  assert.fail(`expected HTTP ${status}`);
}

/** Polls operations.get until the operation is done (the way googleapis users wait). */
async function waitFor(api: apikeys_v2.Apikeys, op: Operation, timeoutMs = 10_000): Promise<{ final: Operation; polls: number }> {
  let polls = 0;
  const deadline = Date.now() + timeoutMs;
  while (!op.done) {
    if (Date.now() > deadline) assert.fail(`operation ${op.name} not done after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
    op = (await api.operations.get({ name: op.name! })).data;
    polls++;
  }
  return { final: op, polls };
}

function twinApi(url: string, token: string): apikeys_v2.Apikeys {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token });
  return google.apikeys({ version: 'v2', rootUrl: url + '/', auth, retry: false } as any);
}

describe('googleapis apikeys v2 against cloudtwin serve', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let api: apikeys_v2.Apikeys;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', testWorld);
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
    api = twinApi(server.url, access_token);
  });

  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  describe('instant operations', () => {
    it('runs create -> get -> getKeyString -> patch -> delete -> undelete -> lookupKey -> list', async () => {
      const keys = api.projects.locations.keys;

      // create -> Operation; operations.get gives the Key with its key string
      const created = await keys.create({ parent: DEMO_PARENT, keyId: 'rest-flow', requestBody: { displayName: 'REST flow', annotations: { env: 'test' } } });
      assert.equal(created.status, 200);
      assert.match(String(created.headers['content-type'] ?? (created.headers as any).get?.('content-type')), /application\/json/);
      assert.match(created.data.name!, new RegExp(`^operations/akmf\\.p7-${DEMO.projectNumber}-[0-9a-f-]{36}$`));
      const { final: createOp } = await waitFor(api, created.data);
      assert.equal(createOp.error, undefined);
      const key = createOp.response as apikeys_v2.Schema$V2Key & { '@type': string };
      assert.equal(key['@type'], KEY_TYPE);
      assert.equal(key.name, `${DEMO_PARENT_BY_NUMBER}/keys/rest-flow`);
      assert.equal(key.displayName, 'REST flow');
      assert.match(key.keyString!, KEY_STRING);
      assert.deepEqual(key.annotations, { env: 'test' });
      assert.ok(!Number.isNaN(Date.parse(key.createTime!)), 'createTime is an RFC 3339 string');
      assert.equal(key.deleteTime, undefined);

      // get: no key string; getKeyString: the same string
      const got = (await keys.get({ name: key.name! })).data;
      assert.equal(got.uid, key.uid);
      assert.equal(got.keyString, undefined);
      assert.equal(got.etag, key.etag);
      const ks = (await keys.getKeyString({ name: key.name! })).data;
      assert.deepEqual(ks, { keyString: key.keyString });

      // patch with updateMask: browser referrers + apiTargets
      const restrictions: apikeys_v2.Schema$V2Restrictions = {
        browserKeyRestrictions: { allowedReferrers: ['https://app.example.com/*', 'localhost:8000/*'] },
        apiTargets: [{ service: 'youtube.googleapis.com', methods: ['Search*'] }],
      };
      const patched = await keys.patch({ name: key.name!, updateMask: 'restrictions', requestBody: { restrictions, displayName: 'not in mask' } });
      assert.match(patched.data.name!, /^operations\/akmf\.p10-/);
      const updated = (await waitFor(api, patched.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.deepEqual(updated.restrictions?.browserKeyRestrictions, restrictions.browserKeyRestrictions);
      assert.deepEqual(updated.restrictions?.apiTargets, restrictions.apiTargets);
      assert.equal(updated.displayName, 'REST flow');
      assert.equal(updated.keyString, undefined, 'only create reveals the key string');
      assert.notEqual(updated.etag, key.etag);

      // delete -> Key with deleteTime; get still answers
      const deleting = await keys.delete({ name: key.name!, etag: updated.etag! });
      assert.match(deleting.data.name!, /^operations\/akmf\.p12-/);
      const deleted = (await waitFor(api, deleting.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.ok(deleted.deleteTime && !Number.isNaN(Date.parse(deleted.deleteTime)));
      assert.equal((await keys.get({ name: key.name! })).data.deleteTime, deleted.deleteTime);

      // list hides deleted keys unless showDeleted
      const listed = (await keys.list({ parent: DEMO_PARENT })).data;
      assert.ok(!(listed.keys ?? []).some((k) => k.name === key.name));
      const listedAll = (await keys.list({ parent: DEMO_PARENT, showDeleted: true })).data;
      assert.ok(listedAll.keys!.some((k) => k.name === key.name && k.deleteTime));

      // undelete (body {})
      const undeleting = await keys.undelete({ name: key.name!, requestBody: {} });
      assert.match(undeleting.data.name!, /^operations\/akmf\.p13-/);
      const restored = (await waitFor(api, undeleting.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.equal(restored.deleteTime, undefined);
      assert.ok((await keys.list({ parent: DEMO_PARENT })).data.keys!.some((k) => k.name === key.name));

      // lookupKey
      const found = (await api.keys.lookupKey({ keyString: key.keyString! })).data;
      assert.deepEqual(found, { parent: DEMO_PARENT_BY_NUMBER, name: key.name });
    });

    it('pages list with pageSize and pageToken', async () => {
      const parent = `projects/${LOOSE.projectId}/locations/global`;
      for (let i = 0; i < 5; i++) await waitFor(api, (await api.projects.locations.keys.create({ parent, keyId: `rest-page-${i}`, requestBody: {} })).data);
      const names: string[] = [];
      let pageToken: string | undefined;
      let pages = 0;
      do {
        const page = (await api.projects.locations.keys.list({ parent, pageSize: 2, pageToken })).data;
        assert.ok((page.keys ?? []).length <= 2);
        names.push(...(page.keys ?? []).map((k) => k.name!));
        pageToken = page.nextPageToken ?? undefined;
        pages++;
      } while (pageToken && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual(names.map((n) => n.split('/').pop()).sort(), [0, 1, 2, 3, 4].map((i) => `rest-page-${i}`));
    });

    it('accepts the standard system parameters (fields, prettyPrint)', async () => {
      const res = await api.projects.locations.keys.list({ parent: DEMO_PARENT, fields: 'keys(name)', prettyPrint: false } as any);
      assert.ok(res.data.keys!.length > 0);
      for (const k of res.data.keys!) assert.deepEqual(Object.keys(k), ['name']);
    });

    it('answers a bad keyId with 400 INVALID_ARGUMENT', async () => {
      const res = await rejectsWithHttp(api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'Not-Valid_', requestBody: {} }), 400, 'INVALID_ARGUMENT');
      assert.match(res.data.error.message, /Not-Valid_/);
    });

    it('fails the operation of a duplicate keyId with code 6', async () => {
      await waitFor(api, (await api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-dup', requestBody: {} })).data);
      const second = await api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-dup', requestBody: {} });
      assert.equal(second.status, 200, 'the failure arrives in the operation, not as an HTTP error');
      const { final } = await waitFor(api, second.data);
      assert.equal(final.response, undefined);
      assert.deepEqual(final.error, { code: 6, message: 'A key with this id already exists.' });
    });

    it('answers an unknown key with 404 NOT_FOUND', async () => {
      await rejectsWithHttp(api.projects.locations.keys.get({ name: `${DEMO_PARENT}/keys/does-not-exist` }), 404, 'NOT_FOUND');
      await rejectsWithHttp(api.projects.locations.keys.getKeyString({ name: `${DEMO_PARENT}/keys/does-not-exist` }), 404, 'NOT_FOUND');
    });

    it('refuses a bound key under the enforced default policy with 400 FAILED_PRECONDITION', async () => {
      const res = await rejectsWithHttp(
        api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-bound', requestBody: { serviceAccountEmail: CI_SA } }),
        400,
        'FAILED_PRECONDITION',
      );
      const violation = res.data.error.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.PreconditionFailure');
      assert.equal(violation?.violations?.[0]?.type, 'constraints/iam.managed.disableServiceAccountApiKeyCreation');
      await rejectsWithHttp(api.projects.locations.keys.get({ name: `${DEMO_PARENT}/keys/rest-bound` }), 404, 'NOT_FOUND');
    });

    it('creates a bound key where the policy is not enforced; serviceAccountEmail is echoed', async () => {
      const op = await api.projects.locations.keys.create({ parent: `projects/${BOUND_OK.projectId}/locations/global`, keyId: 'rest-bound', requestBody: { serviceAccountEmail: BOUND_SA } });
      const key = (await waitFor(api, op.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.equal(key.serviceAccountEmail, BOUND_SA);
      assert.equal((await api.projects.locations.keys.get({ name: key.name! })).data.serviceAccountEmail, BOUND_SA);
    });

    it('answers an unknown operation with 404 and a missing token with 401', async () => {
      await rejectsWithHttp(api.operations.get({ name: `operations/akmf.p7-${DEMO.projectNumber}-00000000-0000-4000-8000-000000000000` }), 404, 'NOT_FOUND');
      const anonymous = google.apikeys({ version: 'v2', rootUrl: server.url + '/', retry: false } as any);
      const res = await rejectsWithHttp(anonymous.projects.locations.keys.list({ parent: DEMO_PARENT }), 401, 'UNAUTHENTICATED');
      assert.equal(res.data.error.details[0].reason, 'CREDENTIALS_MISSING');
    });
  });

  describe('service-account credentials', () => {
    it('authenticates with a self-signed JWT when useJWTAccessWithScope is set (no token endpoint call)', async () => {
      const keyFile = await server.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
      const jwt = new JWT({ email: keyFile.client_email, key: keyFile.private_key, keyId: keyFile.private_key_id, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
      // Without this, google-auth-library asks https://oauth2.googleapis.com/token (not the twin).
      jwt.useJWTAccessWithScope = true;
      const saApi = google.apikeys({ version: 'v2', rootUrl: server.url + '/', auth: jwt, retry: false } as any);
      const tokenCalls = async () => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return [...text.matchAll(/^cloudtwin_http_requests_total\{([^}]*route="\/token"[^}]*)\} (\d+)/gm)].reduce((n, m) => n + Number(m[2]), 0);
      };
      const before = await tokenCalls();
      const op = await saApi.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-sa', requestBody: {} });
      const key = (await waitFor(saApi, op.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.equal(key.name, `${DEMO_PARENT_BY_NUMBER}/keys/rest-sa`);
      assert.equal(await tokenCalls(), before);
    });
  });

  describe('delayed operations', () => {
    before(async () => {
      const config = await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 300 });
      assert.equal(config.mode, 'delayed');
    });
    after(async () => {
      await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    });

    it('returns a pending operation that operations.get reports done later', async () => {
      const started = Date.now();
      const created = await api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-delayed', requestBody: { displayName: 'slow' } });
      assert.ok(!created.data.done, 'not done at first');
      assert.equal(created.data.response, undefined);
      const first = (await api.operations.get({ name: created.data.name! })).data;
      assert.equal(first.name, created.data.name);
      assert.ok(!first.done, 'still running right after');
      // the key does not exist before the operation completes
      await rejectsWithHttp(api.projects.locations.keys.get({ name: `${DEMO_PARENT}/keys/rest-delayed` }), 404, 'NOT_FOUND');

      const { final, polls } = await waitFor(api, created.data);
      assert.ok(polls >= 2, `polled ${polls} times`);
      assert.ok(Date.now() - started >= 250, 'completed after about the configured delay');
      const key = final.response as apikeys_v2.Schema$V2Key & { '@type': string };
      assert.equal(key['@type'], KEY_TYPE);
      assert.match(key.keyString!, KEY_STRING);
      assert.equal((await api.projects.locations.keys.get({ name: key.name! })).data.displayName, 'slow');

      // delete is delayed too
      const deleting = await api.projects.locations.keys.delete({ name: key.name! });
      assert.ok(!deleting.data.done);
      assert.equal((await api.projects.locations.keys.get({ name: key.name! })).data.deleteTime, undefined);
      const deleted = (await waitFor(api, deleting.data)).final.response as apikeys_v2.Schema$V2Key;
      assert.ok(deleted.deleteTime);
    });

    it('delivers a duplicate-id failure through the delayed operation', async () => {
      const first = await api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-delayed-dup', requestBody: {} });
      await waitFor(api, first.data);
      const second = await api.projects.locations.keys.create({ parent: DEMO_PARENT, keyId: 'rest-delayed-dup', requestBody: {} });
      assert.ok(!second.data.done);
      const { final } = await waitFor(api, second.data);
      assert.equal(final.error?.code, 6);
    });
  });
});
