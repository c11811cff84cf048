/**
 * Compatibility: the official `@google-cloud/apikeys` client (gax, REST fallback) against a
 * real `cloudtwin serve` process, authenticated with a service-account key from the admin API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { ApiKeysClient } from '@google-cloud/apikeys';
import { JWT } from 'google-auth-library';
import { rejectsWithCode } from '../support/gax.ts';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { ALICE, BOUND_OK, CI_SA, DEMO, OTHER, testWorld } from '../support/world.ts';

const KEY_STRING = /^AIza[0-9A-Za-z_-]{35}$/;
const DEMO_PARENT = `projects/${DEMO.projectId}/locations/global`;
const DEMO_PARENT_BY_NUMBER = `projects/${DEMO.projectNumber}/locations/global`;

interface ServiceAccountKeyFile {
  type: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  token_uri: string;
}

/** How often the server answered `POST /token` so far (from its Prometheus metrics). */
async function tokenEndpointCalls(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^cloudtwin_http_requests_total\{([^}]*)\} (\d+)/gm)) {
    if (/method="POST"/.test(m[1]) && /route="\/token"/.test(m[1])) n += Number(m[2]);
  }
  return n;
}

describe('@google-cloud/apikeys (gax REST fallback) against cloudtwin serve', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let keyFile: ServiceAccountKeyFile;
  let client: ApiKeysClient;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', testWorld);
    keyFile = await server.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    // The key JSON as a user would pass it: gax makes google-auth-library self-sign a JWT
    // (useJWTAccessWithScope + the cloud-platform scope it sets for a custom endpoint).
    client = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, credentials: keyFile });
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('hands out a service-account key whose token_uri is the twin', () => {
    assert.equal(keyFile.type, 'service_account');
    assert.equal(keyFile.client_email, CI_SA);
    assert.equal(keyFile.token_uri, `${server.url}/token`);
  });

  it('runs create -> get -> update -> delete -> undelete -> lookup -> list with self-signed JWTs', async () => {
    const before = await tokenEndpointCalls(server);

    // create (LRO)
    const [createOp] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-flow', key: { displayName: 'gax flow', annotations: { team: 'ci' } } });
    assert.match(createOp.name!, new RegExp(`^operations/akmf\\.p7-${DEMO.projectNumber}-`));
    const [created] = await createOp.promise();
    assert.equal(created.name, `${DEMO_PARENT_BY_NUMBER}/keys/gax-flow`);
    assert.equal(created.displayName, 'gax flow');
    assert.match(created.keyString!, KEY_STRING);
    assert.match(created.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(created.annotations, { team: 'ci' });
    assert.ok(created.createTime?.seconds, 'createTime decodes to a Timestamp');
    assert.match(created.etag!, /^W\/".+"$/);

    // the operation can be looked at again by name
    const createDone = await client.checkCreateKeyProgress(createOp.name!);
    assert.equal(createDone.done, true);
    assert.equal((createDone.result as any).name, created.name);

    // get (no key string), getKeyString
    const [got] = await client.getKey({ name: created.name });
    assert.equal(got.name, created.name);
    assert.equal(got.uid, created.uid);
    assert.ok(!got.keyString, 'get does not reveal the key string');
    assert.equal(got.deleteTime, null);
    const [ks] = await client.getKeyString({ name: created.name });
    assert.equal(ks.keyString, created.keyString);

    // update with an updateMask: browser referrers + API targets
    const restrictions = {
      browserKeyRestrictions: { allowedReferrers: ['example.com/*', '*.example.com/*'] },
      apiTargets: [{ service: 'youtube.googleapis.com', methods: ['Search*'] }],
    };
    const [updateOp] = await client.updateKey({ key: { name: created.name, displayName: 'ignored by the mask', restrictions }, updateMask: { paths: ['restrictions'] } });
    assert.match(updateOp.name!, /^operations\/akmf\.p10-/);
    const [updated] = await updateOp.promise();
    assert.deepEqual(updated.restrictions?.browserKeyRestrictions?.allowedReferrers, restrictions.browserKeyRestrictions.allowedReferrers);
    assert.equal(updated.restrictions?.apiTargets?.length, 1);
    assert.equal(updated.restrictions?.apiTargets?.[0].service, 'youtube.googleapis.com');
    assert.deepEqual(updated.restrictions?.apiTargets?.[0].methods, ['Search*']);
    assert.equal(updated.displayName, 'gax flow', 'the mask keeps displayName');
    assert.notEqual(updated.etag, created.etag);
    const [afterUpdate] = await client.getKey({ name: created.name });
    assert.deepEqual(afterUpdate.restrictions?.browserKeyRestrictions?.allowedReferrers, restrictions.browserKeyRestrictions.allowedReferrers);

    // delete (LRO) -> key with deleteTime; get still answers
    const [deleteOp] = await client.deleteKey({ name: created.name });
    const [deleted] = await deleteOp.promise();
    assert.equal(deleted.name, created.name);
    assert.ok(deleted.deleteTime?.seconds, 'the deleted key carries deleteTime');
    const [gotDeleted] = await client.getKey({ name: created.name });
    assert.ok(gotDeleted.deleteTime?.seconds);

    // list hides it unless showDeleted
    const [visible] = await client.listKeys({ parent: DEMO_PARENT });
    assert.ok(!visible.some((k) => k.name === created.name), 'list hides deleted keys');
    const [withDeleted] = await client.listKeys({ parent: DEMO_PARENT, showDeleted: true });
    assert.ok(withDeleted.some((k) => k.name === created.name && k.deleteTime), 'showDeleted lists it with deleteTime');

    // undelete (LRO)
    const [undeleteOp] = await client.undeleteKey({ name: created.name });
    const [restored] = await undeleteOp.promise();
    assert.equal(restored.name, created.name);
    assert.ok(!restored.deleteTime, 'undeleted key has no deleteTime');
    const undeleteDone = await client.checkUndeleteKeyProgress(undeleteOp.name!);
    assert.equal(undeleteDone.done, true);

    // lookupKey -> parent and name by project number
    const [found] = await client.lookupKey({ keyString: created.keyString });
    assert.equal(found.name, created.name);
    assert.equal(found.parent, DEMO_PARENT_BY_NUMBER);

    // no access token was fetched: every call carried a self-signed JWT
    assert.equal(await tokenEndpointCalls(server), before, 'the client self-signed its JWTs instead of calling POST /token');
  });

  it('pages through listKeys with the async iterator and autoPaginate', async () => {
    const ids = ['page-a', 'page-b', 'page-c', 'page-d', 'page-e'];
    for (const keyId of ids) {
      const [op] = await client.createKey({ parent: `projects/${BOUND_OK.projectId}/locations/global`, keyId, key: {} });
      await op.promise();
    }
    const parent = `projects/${BOUND_OK.projectId}/locations/global`;
    const seen: string[] = [];
    for await (const k of client.listKeysAsync({ parent, pageSize: 2 })) seen.push(k.name!);
    assert.deepEqual(seen.map((n) => n.split('/').pop()).sort(), ids);
    assert.equal(new Set(seen).size, ids.length);

    // one page at a time: the next request comes back from the client
    const [page1, next] = await client.listKeys({ parent, pageSize: 2 }, { autoPaginate: false });
    assert.equal(page1.length, 2);
    assert.ok(next?.pageToken, 'a next page token');
    const [page2] = await client.listKeys(next!, { autoPaginate: false });
    assert.equal(page2.length, 2);
    assert.ok(!page2.some((k) => page1.some((p) => p.name === k.name)), 'pages do not overlap');

    // everything at once
    const [all] = await client.listKeys({ parent, pageSize: 2 });
    assert.equal(all.length, ids.length);
  });

  it('rejects a bad keyId with INVALID_ARGUMENT (3)', async () => {
    const err = await rejectsWithCode(client.createKey({ parent: DEMO_PARENT, keyId: 'Bad_Id!', key: {} }), 3, /Bad_Id!/);
    assert.equal(err.httpStatusCode, 400);
    // google.rpc.BadRequest decoded from the envelope's details
    assert.equal(err.statusDetails?.[0]?.fieldViolations?.[0]?.field, 'key_id');
  });

  it('decodes ErrorInfo of a permission denial (7): reason, domain, metadata', async () => {
    const err = await rejectsWithCode(client.listKeys({ parent: `projects/${OTHER.projectId}/locations/global` }), 7, /apikeys\.keys\.list/);
    assert.equal(err.reason, 'IAM_PERMISSION_DENIED');
    assert.equal(err.domain, 'apikeys.googleapis.com');
    assert.deepEqual(err.errorInfoMetadata, { permission: 'apikeys.keys.list', resource: `projects/${OTHER.projectId}/locations/global` });
  });

  it('fails the create operation of a duplicate keyId with ALREADY_EXISTS (6)', async () => {
    const [first] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-dup', key: {} });
    await first.promise();
    const [second] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-dup', key: {} });
    await rejectsWithCode(second.promise(), 6, /already exists/);
  });

  it('answers an unknown key with NOT_FOUND (5)', async () => {
    await rejectsWithCode(client.getKey({ name: `${DEMO_PARENT}/keys/no-such-key` }), 5);
  });

  it('answers an update of a deleted key with FAILED_PRECONDITION (9)', async () => {
    const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-gone', key: {} });
    const [key] = await op.promise();
    const [del] = await client.deleteKey({ name: key.name });
    await del.promise();
    await rejectsWithCode(client.updateKey({ key: { name: key.name, displayName: 'x' }, updateMask: { paths: ['display_name'] } }), 9);
    await rejectsWithCode(client.deleteKey({ name: key.name }), 9);
  });

  it('cannot bind keys: serviceAccountEmail is not in the client\'s proto and never reaches the wire', async () => {
    // The field exists only in the REST surface (googleapis); the bundled Key message lacks it,
    // so protobufjs drops it and the server sees an ordinary key. Bound keys are covered by
    // apikeys.googleapis.test.ts. If a future client learns the field, this test tells.
    const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-bound', key: { serviceAccountEmail: CI_SA } as any });
    const [key] = await op.promise();
    assert.equal((key as any).serviceAccountEmail, undefined);
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
    const res = await fetch(`${server.url}/v2/${key.name}`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(res.status, 200);
    const stored = (await res.json()) as { serviceAccountEmail?: string };
    assert.equal(stored.serviceAccountEmail, undefined, 'the server stored no binding');
  });

  it('waits for delayed operations (op.promise() polls GetOperation)', async () => {
    await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 300 });
    try {
      const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-delayed', key: { displayName: 'slow' } });
      assert.equal(op.done, false, 'not done when createKey returns');
      await rejectsWithCode(client.getKey({ name: `${DEMO_PARENT}/keys/gax-delayed` }), 5);
      const [key] = await op.promise();
      assert.match(key.keyString!, KEY_STRING);
      const [got] = await client.getKey({ name: key.name });
      assert.equal(got.displayName, 'slow');
      const [dup] = await client.createKey({ parent: DEMO_PARENT, keyId: 'gax-delayed', key: {} });
      await rejectsWithCode(dup.promise(), 6);
    } finally {
      await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    }
  });

  it('also works with a JWT client that fetches access tokens from the twin\'s token endpoint', async () => {
    // google-auth-library always posts token requests to https://oauth2.googleapis.com/token
    // (it ignores the key file's token_uri); route that one URL to the twin.
    const jwt = new JWT({ email: keyFile.client_email, key: keyFile.private_key, keyId: keyFile.private_key_id, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
    jwt.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (String(config.url).startsWith('https://oauth2.googleapis.com/token')) config.url = new URL(keyFile.token_uri);
        return config;
      },
    });
    const tokenClient = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, authClient: jwt });
    // gax sets useJWTAccessWithScope = true on the authClient it is given (so it would self-sign);
    // turning it off again afterwards makes the JWT client use the token endpoint.
    assert.equal(jwt.useJWTAccessWithScope, true);
    jwt.useJWTAccessWithScope = false;
    try {
      const before = await tokenEndpointCalls(server);
      const [keys] = await tokenClient.listKeys({ parent: DEMO_PARENT });
      assert.ok(keys.some((k) => k.name === `${DEMO_PARENT_BY_NUMBER}/keys/gax-flow`));
      assert.ok((await tokenEndpointCalls(server)) > before, 'the access token came from POST /token');
      const auth = await jwt.getAccessToken();
      assert.ok(auth.token && !auth.token.startsWith('eyJ'), 'an opaque access token, not a self-signed JWT');
    } finally {
      await tokenClient.close();
    }
  });
});
