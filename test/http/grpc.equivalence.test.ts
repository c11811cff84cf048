/**
 * One implementation, two transports: the same requests over REST (inject) and over gRPC (raw
 * HTTP/2 to the listening twin, messages through the published .proto files) give the same
 * resources (JSON names, times to the nanosecond) and the same errors (code, message, details).
 * Also the gRPC front end's own statuses: unknown method, wrong content type, malformed and
 * oversized messages, unknown compression, and hostile frames (fast-check).
 */
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { GRPC_CODE } from '../../src/platform/http/errors.ts';
import { type ProtoTypes, loadProtoTypes } from '../../src/platform/grpc/protos.ts';
import { encodeGrpcMessage } from '../../src/platform/grpc/server.ts';
import type { Listener } from '../../src/platform/transport/listener.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, DEMO, OTHER } from '../support/world.ts';

const V2 = 'google.api.apikeys.v2';
const PARENT = `projects/${DEMO.projectId}/locations/global`;

// Over the bounds of REST's body schema (src/services/apikeys/schemas.ts), and of a rule.
const LONG_NAME = 'n'.repeat(10_001);
const MANY_REFERRERS = Array.from({ length: 5001 }, (_, i) => `https://r${i}.example.com/*`);
const LONG_REFERRER = `https://example.com/${'p'.repeat(4096)}`;
const MANY_METHODS = Array.from({ length: 1001 }, (_, i) => `M${i}`);
const LONG_ANNOTATION = 'v'.repeat(100_001);
const MANY_ANNOTATIONS = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));

interface GrpcAnswer {
  status: number;
  message: string;
  details?: Record<string, unknown>[];
  body?: Buffer;
}

let types: ProtoTypes;

/** One raw gRPC call: frames `body` (or sends it as is when `raw`), returns status, message, decoded details and the response message bytes. */
function rawCall(session: ClientHttp2Session, path: string, body: Buffer, headers: Record<string, string> = {}, raw = false): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const chunks: Buffer[] = [];
    let meta: Record<string, unknown> = {};
    stream.on('response', (h) => (meta = { ...h }));
    stream.on('trailers', (t) => (meta = { ...meta, ...t }));
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('error', reject);
    stream.on('close', () => {
      const all = Buffer.concat(chunks);
      const status = Number(meta['grpc-status']);
      const message = decodeURIComponent(String(meta['grpc-message'] ?? ''));
      const bin = meta['grpc-status-details-bin'];
      let details: Record<string, unknown>[] | undefined;
      if (typeof bin === 'string') {
        const st = types.type('google.rpc.Status');
        const decoded = st.toObject(st.decode(Buffer.from(bin, 'base64'))) as { code: number; message: string; details?: { type_url: string; value: Uint8Array }[] };
        assert.equal(decoded.code, status, 'Status.code equals grpc-status');
        assert.equal(decoded.message, message, 'Status.message equals grpc-message');
        details = (decoded.details ?? []).map((a) => {
          const name = a.type_url.slice(a.type_url.lastIndexOf('/') + 1);
          const t = types.type(name);
          return { '@type': a.type_url, ...t.toObject(t.decode(a.value)) };
        });
      }
      resolve({ status, message, details, body: all.length >= 5 ? all.subarray(5, 5 + all.readUInt32BE(1)) : undefined });
    });
    if (raw) stream.end(body);
    else {
      const head = Buffer.alloc(5);
      head.writeUInt32BE(body.length, 1);
      stream.end(Buffer.concat([head, body]));
    }
  });
}

function encode(typeName: string, value: Record<string, unknown>): Buffer {
  const t = types.type(typeName);
  return Buffer.from(t.encode(t.fromObject(value)).finish());
}

/** A response message as proto3 JSON (the REST shape): Timestamps as RFC 3339 with their nanoseconds. */
function asJson(typeName: string, bytes: Buffer): unknown {
  const t = types.type(typeName);
  return t.toObject(t.decode(bytes), { longs: String, enums: String, json: true, defaults: false });
}

function restTime(ts: { seconds: string; nanos?: number }): string {
  const ms = Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
}

/** The Key JSON of a gRPC answer with times in the REST form. */
function keyJson(k: any): any {
  const out = { ...k };
  for (const f of ['createTime', 'updateTime', 'deleteTime']) if (out[f]) out[f] = restTime(out[f]);
  return out;
}

describe('REST and gRPC: one implementation, two transports', () => {
  let t: TestTwin;
  let listener: Listener;
  let session: ClientHttp2Session;
  const tokens: Record<string, string> = {};
  const auth = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });

  before(async () => {
    types = loadProtoTypes();
    t = await startTestTwin();
    listener = await t.twin.listen({ host: '127.0.0.1', port: 0 });
    session = connect(listener.url);
    for (const who of [ALICE, BOB]) tokens[who] = await t.token(who);
    await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  });
  after(async () => {
    session?.destroy();
    await t?.close();
  });

  it('creates over gRPC what REST reads back identically (names, times to the nanosecond)', async () => {
    const op = await rawCall(session, `/${V2}.ApiKeys/CreateKey`, encode(`${V2}.CreateKeyRequest`, { parent: PARENT, keyId: 'eq-one', key: { displayName: 'eq', annotations: { a: 'b' }, restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] } } } }), auth(ALICE));
    assert.equal(op.status, 0, op.message);
    const operation = types.type('google.longrunning.Operation');
    const decoded = operation.toObject(operation.decode(op.body!)) as { name: string; done: boolean; response: { type_url: string; value: Uint8Array } };
    assert.equal(decoded.done, true);
    assert.equal(decoded.response.type_url, 'type.googleapis.com/google.api.apikeys.v2.Key');
    const created = keyJson(asJson(`${V2}.Key`, Buffer.from(decoded.response.value)));
    const restOp = (await t.call(ALICE, { method: 'GET', url: `/v2/${decoded.name}` })).json();
    const { '@type': type, ...restKey } = restOp.response;
    assert.equal(type, 'type.googleapis.com/google.api.apikeys.v2.Key');
    assert.deepEqual(created, restKey);

    const got = await rawCall(session, `/${V2}.ApiKeys/GetKey`, encode(`${V2}.GetKeyRequest`, { name: restKey.name }), auth(BOB));
    const rest = (await t.call(BOB, { method: 'GET', url: `/v2/${restKey.name}` })).json();
    assert.deepEqual(keyJson(asJson(`${V2}.Key`, got.body!)), rest);

    const list = await rawCall(session, `/${V2}.ApiKeys/ListKeys`, encode(`${V2}.ListKeysRequest`, { parent: PARENT }), auth(BOB));
    const restList = (await t.call(BOB, { method: 'GET', url: `/v2/${PARENT}/keys` })).json();
    assert.deepEqual(((asJson(`${V2}.ListKeysResponse`, list.body!) as any).keys ?? []).map(keyJson), restList.keys);

    const look = await rawCall(session, `/${V2}.ApiKeys/LookupKey`, encode(`${V2}.LookupKeyRequest`, { keyString: restKey.keyString }), auth(ALICE));
    const restLook = (await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${restKey.keyString}` })).json();
    assert.deepEqual(asJson(`${V2}.LookupKeyResponse`, look.body!), restLook);
  });

  // The same failing request both ways: HTTP status <-> gRPC code (the standard mapping), message, details.
  const errorCases: { name: string; method: string; request: string; body: Record<string, unknown>; who: string | null; rest: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown } }[] = [
    { name: 'bad key id (BadRequest)', method: 'CreateKey', request: 'CreateKeyRequest', body: { parent: PARENT, keyId: 'Bad_Id!' }, who: ALICE, rest: { method: 'POST', url: `/v2/${PARENT}/keys?keyId=Bad_Id!`, payload: {} } },
    { name: 'no permission (ErrorInfo)', method: 'ListKeys', request: 'ListKeysRequest', body: { parent: `projects/${OTHER.projectId}/locations/global` }, who: ALICE, rest: { method: 'GET', url: `/v2/projects/${OTHER.projectId}/locations/global/keys` } },
    { name: 'viewer cannot create', method: 'CreateKey', request: 'CreateKeyRequest', body: { parent: PARENT }, who: BOB, rest: { method: 'POST', url: `/v2/${PARENT}/keys`, payload: {} } },
    { name: 'not found', method: 'GetKey', request: 'GetKeyRequest', body: { name: `${PARENT}/keys/nope` }, who: ALICE, rest: { method: 'GET', url: `/v2/${PARENT}/keys/nope` } },
    { name: 'no credential', method: 'GetKey', request: 'GetKeyRequest', body: { name: `${PARENT}/keys/nope` }, who: null, rest: { method: 'GET', url: `/v2/${PARENT}/keys/nope` } },
    { name: 'wrong location', method: 'ListKeys', request: 'ListKeysRequest', body: { parent: `projects/${DEMO.projectId}/locations/us-east1` }, who: ALICE, rest: { method: 'GET', url: `/v2/projects/${DEMO.projectId}/locations/us-east1/keys` } },
    { name: 'negative page size', method: 'ListKeys', request: 'ListKeysRequest', body: { parent: PARENT, pageSize: -1 }, who: ALICE, rest: { method: 'GET', url: `/v2/${PARENT}/keys?pageSize=-1` } },
    { name: 'immutable mask path (ErrorInfo reason)', method: 'UpdateKey', request: 'UpdateKeyRequest', body: { key: { name: `${PARENT}/keys/eq-one` }, updateMask: { paths: ['key_string'] } }, who: ALICE, rest: { method: 'PATCH', url: `/v2/${PARENT}/keys/eq-one?updateMask=key_string`, payload: {} } },
    { name: 'undelete of a live key', method: 'UndeleteKey', request: 'UndeleteKeyRequest', body: { name: `${PARENT}/keys/eq-one` }, who: ALICE, rest: { method: 'POST', url: `/v2/${PARENT}/keys/eq-one:undelete`, payload: {} } },
    { name: 'stale etag', method: 'DeleteKey', request: 'DeleteKeyRequest', body: { name: `${PARENT}/keys/eq-one`, etag: 'W/"x"' }, who: ALICE, rest: { method: 'DELETE', url: `/v2/${PARENT}/keys/eq-one?etag=${encodeURIComponent('W/"x"')}` } },
    // REST's body-schema bounds (src/services/apikeys/schemas.ts) hold for gRPC messages too, with REST's error
    { name: 'over-long display name (schema bound)', method: 'CreateKey', request: 'CreateKeyRequest', body: { parent: PARENT, keyId: 'long-name', key: { displayName: LONG_NAME } }, who: ALICE, rest: { method: 'POST', url: `/v2/${PARENT}/keys?keyId=long-name`, payload: { displayName: LONG_NAME } } },
    { name: 'too many referrers (schema bound)', method: 'CreateKey', request: 'CreateKeyRequest', body: { parent: PARENT, keyId: 'many-refs', key: { restrictions: { browserKeyRestrictions: { allowedReferrers: MANY_REFERRERS } } } }, who: ALICE, rest: { method: 'POST', url: `/v2/${PARENT}/keys?keyId=many-refs`, payload: { restrictions: { browserKeyRestrictions: { allowedReferrers: MANY_REFERRERS } } } } },
    { name: 'over-long referrer (schema bound)', method: 'CreateKey', request: 'CreateKeyRequest', body: { parent: PARENT, keyId: 'long-ref', key: { restrictions: { browserKeyRestrictions: { allowedReferrers: [LONG_REFERRER] } } } }, who: ALICE, rest: { method: 'POST', url: `/v2/${PARENT}/keys?keyId=long-ref`, payload: { restrictions: { browserKeyRestrictions: { allowedReferrers: [LONG_REFERRER] } } } } },
    { name: 'too many API target methods (schema bound)', method: 'UpdateKey', request: 'UpdateKeyRequest', body: { key: { name: `${PARENT}/keys/eq-one`, restrictions: { apiTargets: [{ service: 'translate.googleapis.com', methods: MANY_METHODS }] } }, updateMask: { paths: ['restrictions'] } }, who: ALICE, rest: { method: 'PATCH', url: `/v2/${PARENT}/keys/eq-one?updateMask=restrictions`, payload: { restrictions: { apiTargets: [{ service: 'translate.googleapis.com', methods: MANY_METHODS }] } } } },
    { name: 'over-long annotation value (schema bound)', method: 'UpdateKey', request: 'UpdateKeyRequest', body: { key: { name: `${PARENT}/keys/eq-one`, annotations: { a: LONG_ANNOTATION } }, updateMask: { paths: ['annotations'] } }, who: ALICE, rest: { method: 'PATCH', url: `/v2/${PARENT}/keys/eq-one?updateMask=annotations`, payload: { annotations: { a: LONG_ANNOTATION } } } },
    { name: 'too many annotations (rule)', method: 'UpdateKey', request: 'UpdateKeyRequest', body: { key: { name: `${PARENT}/keys/eq-one`, annotations: MANY_ANNOTATIONS }, updateMask: { paths: ['annotations'] } }, who: ALICE, rest: { method: 'PATCH', url: `/v2/${PARENT}/keys/eq-one?updateMask=annotations`, payload: { annotations: MANY_ANNOTATIONS } } },
    { name: 'an annotation value over the rule, under the schema bound', method: 'UpdateKey', request: 'UpdateKeyRequest', body: { key: { name: `${PARENT}/keys/eq-one`, annotations: { a: 'v'.repeat(1025) } }, updateMask: { paths: ['annotations'] } }, who: ALICE, rest: { method: 'PATCH', url: `/v2/${PARENT}/keys/eq-one?updateMask=annotations`, payload: { annotations: { a: 'v'.repeat(1025) } } } },
    { name: 'an operation of no project', method: 'GetOperation', request: 'google.longrunning.GetOperationRequest', body: { name: 'operations/nope' }, who: ALICE, rest: { method: 'GET', url: '/v2/operations/nope' } },
  ];

  for (const c of errorCases) {
    it(`answers ${c.name} alike`, async () => {
      const path = c.method === 'GetOperation' ? '/google.longrunning.Operations/GetOperation' : `/${V2}.ApiKeys/${c.method}`;
      const request = c.request.includes('.') ? c.request : `${V2}.${c.request}`;
      const g = await rawCall(session, path, encode(request, c.body), c.who ? auth(c.who) : {});
      const r = await t.call(c.who, c.rest as never);
      const e = r.json().error;
      assert.ok(r.statusCode >= 400, `REST answered ${r.statusCode}`);
      assert.equal(g.status, GRPC_CODE[e.status as keyof typeof GRPC_CODE], `gRPC ${g.status} for REST ${r.statusCode} ${e.status}`);
      assert.equal(g.message, e.message);
      assert.deepEqual(g.details ?? [], e.details ?? []);
    });
  }

  it('answers the front end’s own errors with a clear status', async () => {
    const body = encode(`${V2}.GetKeyRequest`, { name: `${PARENT}/keys/x` });
    assert.equal((await rawCall(session, '/no.Such/Method', body, auth(ALICE))).status, 12);
    // A path no method serves is counted under one label: callers cannot grow the metrics without bound.
    const metrics = (await t.twin.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.doesNotMatch(metrics, /no\.Such/);
    assert.match(metrics, /method="POST",route="unmatched",code="501"/);
    assert.equal((await rawCall(session, `/${V2}.ApiKeys/NoSuch`, body, auth(ALICE))).status, 12);
    assert.equal((await rawCall(session, '/google.longrunning.Operations/ListOperations', encode('google.longrunning.ListOperationsRequest', {}), auth(ALICE))).status, 12);
    // malformed protobuf: a field header with a truncated length
    assert.equal((await rawCall(session, `/${V2}.ApiKeys/GetKey`, Buffer.from([0x0a, 0x7f, 0x61]), auth(ALICE))).status, 3);
    // over 4 MiB (declared)
    const big = Buffer.alloc(5);
    big.writeUInt32BE(5 * 1024 * 1024, 1);
    assert.equal((await rawCall(session, `/${V2}.ApiKeys/GetKey`, big, auth(ALICE), true)).status, 8);
    // compressed with an unknown encoding; and gzip, which is taken
    const zipped = gzipSync(body);
    const frame = Buffer.alloc(5 + zipped.length);
    frame[0] = 1;
    frame.writeUInt32BE(zipped.length, 1);
    zipped.copy(frame, 5);
    assert.equal((await rawCall(session, `/${V2}.ApiKeys/GetKey`, frame, { ...auth(ALICE), 'grpc-encoding': 'snappy' }, true)).status, 12);
    assert.equal((await rawCall(session, `/${V2}.ApiKeys/GetKey`, frame, { ...auth(ALICE), 'grpc-encoding': 'gzip' }, true)).status, 5, 'gzip is decoded: the key is not found');
    // the wrong content subtype
    const json = await new Promise<Record<string, unknown>>((resolve) => {
      const s = session.request({ ':method': 'POST', ':path': `/${V2}.ApiKeys/GetKey`, 'content-type': 'application/grpc+json' });
      s.on('response', (h) => resolve({ ...h }));
      s.resume();
      s.end('{}');
    });
    assert.equal(json['grpc-status'], '12');
  });

  it('honours grpc-timeout: a call still running at its deadline ends DEADLINE_EXCEEDED, from the server', async () => {
    const rule = (await t.admin('POST', '/_twin/v1/faults', { match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'latency', delayMs: 1500 } })).json();
    try {
      const body = encode(`${V2}.GetKeyRequest`, { name: `${PARENT}/keys/eq-one` });
      const t0 = performance.now();
      const a = await rawCall(session, `/${V2}.ApiKeys/GetKey`, body, { ...auth(ALICE), 'grpc-timeout': '150m' });
      const elapsed = performance.now() - t0;
      assert.equal(a.status, 4, a.message);
      assert.equal(a.message, 'Deadline Exceeded');
      assert.ok(elapsed >= 140 && elapsed < 1200, `answered after ${elapsed.toFixed(0)} ms`);
      // No deadline, or a malformed one: the call runs to its end.
      assert.equal((await rawCall(session, `/${V2}.ApiKeys/GetKey`, body, { ...auth(ALICE), 'grpc-timeout': 'soon' })).status, 0);
    } finally {
      await t.admin('DELETE', `/_twin/v1/faults/${rule.id}`);
    }
  });

  it('encodes grpc-message as the spec says: only bytes outside 0x20-0x7E, and %', () => {
    assert.equal(encodeGrpcMessage("Location 'x': a, b"), "Location 'x': a, b");
    assert.equal(encodeGrpcMessage('100% é\n'), '100%25 %C3%A9%0A');
  });

  it('survives hostile frames: every call ends with a grpc-status, the server keeps answering', async () => {
    const known = new Set([0, 3, 5, 7, 8, 12, 16]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`/${V2}.ApiKeys/GetKey`, `/${V2}.ApiKeys/CreateKey`, `/${V2}.ApiKeys/UpdateKey`, `/${V2}.ApiKeys/ListKeys`, '/google.longrunning.Operations/GetOperation', '/x/y'),
        fc.uint8Array({ maxLength: 300 }),
        fc.boolean(),
        async (path, bytes, raw) => {
          const a = await rawCall(session, path, Buffer.from(bytes), auth(ALICE), raw);
          assert.ok(known.has(a.status), `status ${a.status}: ${a.message}`);
        },
      ),
      { numRuns: 150 },
    );
    const health = await rawCall(session, `/${V2}.ApiKeys/GetKey`, encode(`${V2}.GetKeyRequest`, { name: `${PARENT}/keys/eq-one` }), auth(ALICE));
    assert.equal(health.status, 0);
  });
});

describe('server reflection (grpc.reflection.v1 and v1alpha)', () => {
  let t: TestTwin;
  let listener: Listener;
  let session: ClientHttp2Session;
  before(async () => {
    types = loadProtoTypes();
    t = await startTestTwin();
    listener = await t.twin.listen({ host: '127.0.0.1', port: 0 });
    session = connect(listener.url);
  });
  after(async () => {
    session?.destroy();
    await t?.close();
  });

  /** Sends the requests on one reflection stream; the decoded responses and the final status. */
  function reflect(version: string, requests: Record<string, unknown>[]): Promise<{ status: string; responses: any[] }> {
    const reqType = types.type(`grpc.reflection.${version}.ServerReflectionRequest`);
    const resType = types.type(`grpc.reflection.${version}.ServerReflectionResponse`);
    return new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, 'content-type': 'application/grpc', te: 'trailers' });
      const chunks: Buffer[] = [];
      let status = '';
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('trailers', (h) => (status = String(h['grpc-status'])));
      stream.on('error', reject);
      stream.on('close', () => {
        let all = Buffer.concat(chunks);
        const responses: any[] = [];
        while (all.length >= 5) {
          const n = all.readUInt32BE(1);
          responses.push(resType.toObject(resType.decode(all.subarray(5, 5 + n)), { bytes: Buffer }));
          all = all.subarray(5 + n);
        }
        resolve({ status, responses });
      });
      for (const r of requests) {
        const body = Buffer.from(reqType.encode(reqType.fromObject(r)).finish());
        const head = Buffer.alloc(5);
        head.writeUInt32BE(body.length, 1);
        stream.write(Buffer.concat([head, body]));
      }
      stream.end();
    });
  }

  for (const version of ['v1', 'v1alpha']) {
    it(`${version}: lists the services and gives the files of a symbol with every dependency`, async () => {
      const { status, responses } = await reflect(version, [{ listServices: '' }, { fileContainingSymbol: 'google.api.apikeys.v2.ApiKeys' }, { fileContainingSymbol: 'no.such.Symbol' }]);
      assert.equal(status, '0');
      assert.equal(responses.length, 3);
      const names = responses[0].listServicesResponse.service.map((s: { name: string }) => s.name);
      for (const s of ['google.api.apikeys.v2.ApiKeys', 'google.longrunning.Operations', `grpc.reflection.${version}.ServerReflection`]) assert.ok(names.includes(s), `${s} in ${names}`);
      const fileType = types.root.lookupType('google.protobuf.FileDescriptorProto');
      const files = responses[1].fileDescriptorResponse.fileDescriptorProto.map((b: Buffer) => fileType.toObject(fileType.decode(b)) as any);
      assert.equal(files[0].name, 'google/api/apikeys/v2/apikeys.proto');
      assert.equal(files[0].package, 'google.api.apikeys.v2');
      const service = files[0].service.find((s: { name: string }) => s.name === 'ApiKeys');
      assert.deepEqual(service.method.map((m: { name: string }) => m.name).sort(), ['CreateKey', 'DeleteKey', 'GetKey', 'GetKeyString', 'ListKeys', 'LookupKey', 'UndeleteKey', 'UpdateKey']);
      const given = new Set(files.map((f: { name: string }) => f.name));
      for (const f of files) for (const d of f.dependency ?? []) assert.ok(given.has(d), `${f.name} depends on ${d}, which was not sent`);
      assert.ok(given.has('google/protobuf/timestamp.proto') && given.has('google/longrunning/operations.proto'));
      assert.equal(responses[2].errorResponse.errorCode, 5);
    });
  }
});
