/**
 * One call pipeline for both transports (src/platform/calls/): the same API Keys call over REST
 * and over gRPC (@google-cloud/apikeys on its default transport) is matched by the same fault
 * rules (by API key id, by header), is looked at by them only once authenticated and valid, and
 * leaves the same journal entry, field by field.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { after, before, beforeEach, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { ApiKeysClient } from '@google-cloud/apikeys';
import googleGax from 'google-gax';
import { SignJWT, importPKCS8 } from 'jose';
import type { Listener } from '../../src/platform/transport/listener.ts';
import { rejectsWithCode } from '../support/gax.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, CI_SA, DEMO } from '../support/world.ts';
import { createKey, keyNameOf, keyPath, keysPath } from './helpers.ts';

/** What a journal entry says of a call, without what differs by transport (url, httpMethod: gRPC's is POST) or by moment (seq, time, latency, request id). */
const CALL_FIELDS = ['method', 'service', 'principal', 'apiKeyId', 'project', 'status', 'error', 'fault', 'operation'] as const;
const callFields = (e: Record<string, unknown>) => Object.fromEntries(CALL_FIELDS.map((f) => [f, e[f]]));

describe('one call pipeline: REST and gRPC calls are faulted and journaled alike', () => {
  let t: TestTwin;
  let listener: Listener;
  let client: ApiKeysClient;
  let token: string;
  let key: { id: string; name: string; keyString: string };
  let other: { keyString: string };

  before(async () => {
    t = await startTestTwin();
    listener = await t.twin.listen({ host: '127.0.0.1', port: 0 });
    client = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port: listener.port, sslCreds: googleGax.grpc.credentials.createInsecure(), universeDomain: 'googleapis.com' });
    token = await t.token(ALICE);
    await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    const made = await createKey(t, { keyId: 'pipeline-key' });
    key = { id: 'pipeline-key', name: made.name, keyString: (await t.call(ALICE, { method: 'GET', url: `${keyPath('pipeline-key')}/keyString` })).json().keyString };
    await createKey(t, { keyId: 'pipeline-other' });
    other = { keyString: (await t.call(ALICE, { method: 'GET', url: `${keyPath('pipeline-other')}/keyString` })).json().keyString };
  });
  after(async () => {
    await client?.close();
    await listener?.close();
    await t?.close();
  });
  beforeEach(async () => {
    assert.equal((await t.admin('DELETE', '/_twin/v1/faults')).statusCode, 200);
    assert.equal((await t.admin('DELETE', '/_twin/v1/requests')).statusCode, 200);
  });

  const rule = async (r: Record<string, unknown>) => {
    const res = await t.admin('POST', '/_twin/v1/faults', r);
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  /** getKey over REST with these headers besides the token: the HTTP status. */
  const restGet = async (headers: Record<string, string> = {}, keyId = key.id) =>
    (await t.twin.app.inject({ method: 'GET', url: keyPath(keyId), headers: { authorization: `Bearer ${token}`, ...headers } })).statusCode;
  /** getKey over gRPC with this metadata besides the token: the gRPC status. */
  const grpcGet = async (metadata: Record<string, string> = {}, keyId = key.id) => {
    try {
      await client.getKey({ name: keyNameOf(keyId) }, { otherArgs: { headers: { authorization: `Bearer ${token}`, ...metadata } }, retry: null } as never);
      return 0;
    } catch (err) {
      return (err as { code: number }).code;
    }
  };
  const journal = async (query = '') => (await t.admin('GET', `/_twin/v1/requests${query}`)).json().requests as Record<string, any>[];
  const byTransport = async (method: string) => {
    const entries = await journal(`?method=${method}`);
    return { rest: entries.filter((e) => e.url.startsWith('/v2/')), grpc: entries.filter((e) => e.url.startsWith('/google.')) };
  };

  it('a rule on apiKeyId matches the call that carries that key, on either transport, and no other', async () => {
    const r = await rule({ match: { method: 'apikeys.projects.locations.keys.get', apiKeyId: key.id }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal(await restGet({ 'x-goog-api-key': key.keyString }), 503);
    assert.equal(await grpcGet({ 'x-goog-api-key': key.keyString }), 14);
    // Another key, or none: the rule does not match.
    assert.equal(await restGet({ 'x-goog-api-key': other.keyString }), 200);
    assert.equal(await grpcGet({ 'x-goog-api-key': other.keyString }), 0);
    assert.equal(await restGet(), 200);
    assert.equal(await grpcGet(), 0);
    assert.equal((await t.admin('GET', `/_twin/v1/faults/${r.id}`)).json().injected, 2);
    const { rest, grpc } = await byTransport('apikeys.projects.locations.keys.get');
    assert.deepEqual(rest.map((e) => [e.status, e.fault?.rule, e.apiKeyId]), [[200, undefined, undefined], [200, undefined, 'pipeline-other'], [503, r.id, key.id]]);
    assert.deepEqual(grpc.map((e) => [e.status, e.fault?.rule, e.apiKeyId]), [[200, undefined, undefined], [200, undefined, 'pipeline-other'], [503, r.id, key.id]]);
  });

  it('a rule on a header matches a REST header and gRPC metadata alike', async () => {
    const r = await rule({ match: { method: 'apikeys.projects.locations.keys.get', header: { name: 'X-Test-Case', value: 'flaky' } }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED' } });
    assert.equal(await restGet({ 'x-test-case': 'flaky' }), 429);
    assert.equal(await grpcGet({ 'x-test-case': 'flaky' }), 8);
    assert.equal(await restGet({ 'x-test-case': 'steady' }), 200);
    assert.equal(await grpcGet({ 'x-test-case': 'steady' }), 0);
    assert.equal((await t.admin('GET', `/_twin/v1/faults/${r.id}`)).json().injected, 2);
  });

  it('the same call leaves the same journal entry over REST and over gRPC, field by field', async () => {
    const headers = { 'x-goog-api-key': key.keyString };
    // A read, a read of a key that is not there, a faulted read, and a write that answers an operation.
    assert.equal(await restGet(headers), 200);
    assert.equal(await grpcGet(headers), 0);
    assert.equal(await restGet(headers, 'absent'), 404);
    assert.equal(await grpcGet(headers, 'absent'), 5);
    const r = await rule({ match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'error', status: 'UNAVAILABLE', reason: 'backendError' }, when: { next: 2 } });
    assert.equal(await restGet(headers), 503);
    assert.equal(await grpcGet(headers), 14);
    const get = await byTransport('apikeys.projects.locations.keys.get');
    assert.equal(get.rest.length, 3);
    assert.deepEqual(get.grpc.map(callFields), get.rest.map(callFields));
    // The fields are there to compare, not absent on both sides.
    assert.deepEqual(callFields(get.rest[2]), {
      method: 'apikeys.projects.locations.keys.get',
      service: 'apikeys.googleapis.com',
      principal: ALICE,
      apiKeyId: key.id,
      project: DEMO.projectId,
      status: 200,
      error: undefined,
      fault: undefined,
      operation: undefined,
    });
    assert.equal(get.rest[1].error.status, 'NOT_FOUND');
    assert.deepEqual(get.rest[0].fault, { rule: r.id, action: 'error' });

    await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=pipeline-rest`, payload: { displayName: 'made over REST' } });
    const [op] = await client.createKey({ parent: `projects/${DEMO.projectId}/locations/global`, keyId: 'pipeline-grpc', key: { displayName: 'made over gRPC' } }, { otherArgs: { headers: { authorization: `Bearer ${token}` } } });
    const create = await byTransport('apikeys.projects.locations.keys.create');
    assert.equal(create.grpc[0].operation, op.name);
    assert.match(create.rest[0].operation, /^operations\//);
    const sameButOperation = (e: Record<string, any>) => ({ ...callFields(e), operation: typeof e.operation });
    assert.deepEqual(create.grpc.map(sameButOperation), create.rest.map(sameButOperation));
  });

  it('a rule looks at a call only once it is authenticated and its parameters and body are valid, on either transport', async () => {
    const r = await rule({ match: { method: 'apikeys.projects.locations.keys.create' }, action: { type: 'error', status: 'UNAVAILABLE' } });
    const tooLong = { displayName: 'n'.repeat(10_001) };
    const rest = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: tooLong });
    assert.equal(rest.statusCode, 400, rest.body);
    const grpc = await rejectsWithCode(
      client.createKey({ parent: `projects/${DEMO.projectId}/locations/global`, key: tooLong }, { otherArgs: { headers: { authorization: `Bearer ${token}` } } }),
      3,
    );
    assert.equal(grpc.details, rest.json().error.message);
    // A bad resource name, and no credential at all, are refused before the rule too.
    await rejectsWithCode(client.createKey({ parent: 'projects/x', key: {} }, { otherArgs: { headers: { authorization: `Bearer ${token}` } } }), 3);
    assert.equal((await t.twin.app.inject({ method: 'POST', url: keysPath(), payload: {} })).statusCode, 401);
    await rejectsWithCode(client.createKey({ parent: `projects/${DEMO.projectId}/locations/global`, key: {} }, { otherArgs: { headers: { authorization: 'Bearer not-a-token' } } }), 16);
    assert.deepEqual((({ matched, injected }) => ({ matched, injected }))((await t.admin('GET', `/_twin/v1/faults/${r.id}`)).json()), { matched: 0, injected: 0 });
    // A valid call is.
    assert.equal((await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} })).statusCode, 503);
    assert.equal((await t.admin('GET', `/_twin/v1/faults/${r.id}`)).json().matched, 1);
  });

  it('a gRPC call whose stream ends while it is being authenticated is still answered', async () => {
    // A self-signed service-account JWT is verified off the event loop (a fresh one each time:
    // verified JWTs are cached), so the call's empty last DATA frame, sent with its HEADERS,
    // ends the stream meanwhile: node:http2 ends an empty stream without waiting for a reader.
    const file = (await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA })).json();
    const signingKey = await importPKCS8(file.private_key, 'RS256');
    const session = connect(listener.url);
    try {
      for (let i = 0; i < 3; i++) {
        const now = Math.floor(Date.now() / 1000);
        const jwt = await new SignJWT({ n: i })
          .setProtectedHeader({ alg: 'RS256', kid: file.private_key_id })
          .setIssuer(CI_SA)
          .setSubject(CI_SA)
          .setAudience('https://apikeys.googleapis.com/')
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .sign(signingKey);
        const status = await new Promise<string>((resolve, reject) => {
          const stream = session.request({ ':method': 'POST', ':path': '/google.api.apikeys.v2.ApiKeys/GetKey', 'content-type': 'application/grpc', te: 'trailers', authorization: `Bearer ${jwt}` });
          let meta: Record<string, unknown> = {};
          stream.on('response', (h) => (meta = { ...h }));
          stream.on('trailers', (h) => (meta = { ...meta, ...h }));
          stream.on('error', reject);
          stream.resume();
          const unanswered = setTimeout(() => reject(new Error('the call got no answer in 10 s')), 10_000);
          stream.on('close', () => {
            clearTimeout(unanswered);
            resolve(String(meta['grpc-status']));
          });
          stream.end(Buffer.alloc(0));
        });
        assert.equal(status, '3', 'INVALID_ARGUMENT: the call carried no request message');
      }
    } finally {
      session.close();
    }
  });
});
