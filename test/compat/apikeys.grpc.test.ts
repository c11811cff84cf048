/**
 * Compatibility: the stock `@google-cloud/apikeys` client in its DEFAULT transport (gRPC) against
 * a real `cloudtwin serve` process: every method, errors with their decoded details, the
 * insecure channel with a per-call token, TLS with channel credentials (local CA), and
 * permissive mode without any credential. Both stores.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { ApiKeysClient } from '@google-cloud/apikeys';
import gax from 'google-gax';
import { JWT } from 'google-auth-library';
import { rejectsWithCode } from '../support/gax.ts';
import { type ServerProcess, adminOverTls, startServer } from '../support/server.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { BOUND_OK, CI_SA, DEMO, OTHER, testWorld } from '../support/world.ts';

const grpc = gax.grpc;
const KEY_STRING = /^AIza[0-9A-Za-z_-]{35}$/;
const DEMO_PARENT = `projects/${DEMO.projectId}/locations/global`;
const BY_NUMBER = `projects/${DEMO.projectNumber}/locations/global`;

describe('@google-cloud/apikeys over gRPC (insecure channel, token per call)', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let client: ApiKeysClient;
  let token: string;
  // A fresh plain object per call: the client keeps the headers object it is given.
  const auth = () => ({ otherArgs: { headers: { authorization: `Bearer ${token}` } } });

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', testWorld);
    token = (await server.admin('POST', '/_twin/v1/tokens', { principal: 'alice@example.com' })).access_token;
    client = insecureClient(server.port);
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('runs create -> operation -> get -> getKeyString -> update (mask) -> delete -> undelete -> lookup -> list', async () => {
    const [createOp] = await client.createKey({ parent: DEMO_PARENT, keyId: 'grpc-flow', key: { displayName: 'grpc: flow, one', annotations: { team: 'ci' } } }, auth());
    assert.match(createOp.name!, new RegExp(`^operations/akmf\\.p7-${DEMO.projectNumber}-`));
    // op.promise() polls google.longrunning.Operations/GetOperation with the same headers
    const [created] = await createOp.promise();
    assert.equal(created.name, `${BY_NUMBER}/keys/grpc-flow`);
    assert.equal(created.displayName, 'grpc: flow, one');
    assert.match(created.keyString!, KEY_STRING);
    assert.deepEqual(created.annotations, { team: 'ci' });
    assert.ok(Number(created.createTime?.seconds) > 0);

    const [got] = await client.getKey({ name: created.name }, auth());
    assert.equal(got.uid, created.uid);
    assert.ok(!got.keyString);
    assert.equal(got.createTime?.nanos, created.createTime?.nanos);
    const [ks] = await client.getKeyString({ name: created.name }, auth());
    assert.equal(ks.keyString, created.keyString);

    const restrictions = { browserKeyRestrictions: { allowedReferrers: ['example.com/*'] }, apiTargets: [{ service: 'youtube.googleapis.com', methods: ['Search*'] }] };
    const [updateOp] = await client.updateKey({ key: { name: created.name, displayName: 'ignored', restrictions }, updateMask: { paths: ['restrictions.browser_key_restrictions'] } }, auth());
    const [updated] = await updateOp.promise();
    assert.deepEqual(updated.restrictions?.browserKeyRestrictions?.allowedReferrers, ['example.com/*']);
    assert.equal(updated.restrictions?.apiTargets?.length ?? 0, 0, 'only the masked sub-field changed');
    assert.equal(updated.displayName, 'grpc: flow, one');
    const [updateOp2] = await client.updateKey({ key: { name: created.name, displayName: 'renamed' }, updateMask: { paths: ['display_name'] } }, auth());
    assert.equal((await updateOp2.promise())[0].displayName, 'renamed');

    const [deleteOp] = await client.deleteKey({ name: created.name, etag: (await client.getKey({ name: created.name }, auth()))[0].etag }, auth());
    const [deleted] = await deleteOp.promise();
    assert.ok(Number(deleted.deleteTime?.seconds) > 0);
    const [visible] = await client.listKeys({ parent: DEMO_PARENT }, auth());
    assert.ok(!visible.some((k) => k.name === created.name));
    const [withDeleted] = await client.listKeys({ parent: DEMO_PARENT, showDeleted: true }, auth());
    assert.ok(withDeleted.some((k) => k.name === created.name));

    const [undeleteOp] = await client.undeleteKey({ name: created.name }, auth());
    const [restored] = await undeleteOp.promise();
    assert.ok(!restored.deleteTime);

    const [found] = await client.lookupKey({ keyString: created.keyString }, auth());
    assert.deepEqual({ name: found.name, parent: found.parent }, { name: created.name, parent: BY_NUMBER });
  });

  it('pages through listKeys', async () => {
    const parent = `projects/${BOUND_OK.projectId}/locations/global`;
    const ids = ['pg-a', 'pg-b', 'pg-c'];
    for (const keyId of ids) await (await client.createKey({ parent, keyId, key: {} }, auth()))[0].promise();
    const [page1, next] = await client.listKeys({ parent, pageSize: 2 }, { ...auth(), autoPaginate: false });
    assert.equal(page1.length, 2);
    assert.ok(next?.pageToken);
    const [page2] = await client.listKeys(next!, { ...auth(), autoPaginate: false });
    assert.deepEqual([...page1, ...page2].map((k) => k.name!.split('/').pop()).sort(), ids);
  });

  it('answers each error kind with its code, message and decoded details', async () => {
    // INVALID_ARGUMENT + BadRequest
    const bad = await rejectsWithCode(client.createKey({ parent: DEMO_PARENT, keyId: 'Bad_Id!', key: {} }, auth()), 3, /Bad_Id!/);
    assert.equal(bad.statusDetails?.[0]?.fieldViolations?.[0]?.field, 'key_id');
    // PERMISSION_DENIED + ErrorInfo
    const denied = await rejectsWithCode(client.listKeys({ parent: `projects/${OTHER.projectId}/locations/global` }, auth()), 7, /apikeys\.keys\.list/);
    assert.equal(denied.reason, 'IAM_PERMISSION_DENIED');
    assert.equal(denied.domain, 'apikeys.googleapis.com');
    assert.deepEqual(denied.errorInfoMetadata, { permission: 'apikeys.keys.list', resource: `projects/${OTHER.projectId}/locations/global` });
    // NOT_FOUND
    await rejectsWithCode(client.getKey({ name: `${DEMO_PARENT}/keys/no-such-key` }, auth()), 5, /^5 NOT_FOUND: Requested entity was not found\.$/);
    // UNAUTHENTICATED + ErrorInfo (no credential, enforce mode)
    const anon = await rejectsWithCode(client.getKey({ name: `${DEMO_PARENT}/keys/x` }), 16);
    assert.equal(anon.reason, 'CREDENTIALS_MISSING');
    // an update mask naming an output-only field: ErrorInfo with its reason
    const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'grpc-errors', key: {} }, auth());
    const [key] = await op.promise();
    const immutable = await rejectsWithCode(client.updateKey({ key: { name: key.name }, updateMask: { paths: ['key_string'] } }, auth()), 3, /immutable/);
    assert.equal(immutable.reason, 'APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS');
    // ALREADY_EXISTS in the operation's error
    const [dup] = await client.createKey({ parent: DEMO_PARENT, keyId: 'grpc-errors', key: {} }, auth());
    await rejectsWithCode(dup.promise(), 6, /already exists/);
    // FAILED_PRECONDITION: undelete of a key that is not deleted
    await rejectsWithCode(client.undeleteKey({ name: key.name }, auth()), 9);
    // ABORTED: a stale etag
    await rejectsWithCode(client.deleteKey({ name: key.name, etag: 'W/"stale"' }, auth()), 10);
    // FAILED_PRECONDITION + PreconditionFailure is the org-policy case; the other Operations methods are UNIMPLEMENTED
    await rejectsWithCode(client.operationsClient.listOperations({ name: 'operations', filter: '' } as never, auth()), 12);
  });

  it('keeps ":" and "," readable in messages (grpc-message encoded as the spec says, not more)', async () => {
    const err = await rejectsWithCode(client.createKey({ parent: `projects/${DEMO.projectId}/locations/us-east1`, key: {} }, auth()), 3);
    assert.equal(err.details, "Location 'us-east1' is not supported. The only supported location is 'global'.");
  });

  it('honours a deadline', async () => {
    // The call takes 2 s (a latency fault); its deadline is 200 ms.
    const rule = await server.admin('POST', '/_twin/v1/faults', { match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'latency', delayMs: 2000 } });
    try {
      const t0 = performance.now();
      await rejectsWithCode(client.listKeys({ parent: DEMO_PARENT }, { ...auth(), timeout: 200, retry: null } as never), 4);
      assert.ok(performance.now() - t0 < 1500);
    } finally {
      await server.admin('DELETE', `/_twin/v1/faults/${rule.id}`);
    }
  });
});

describe('@google-cloud/apikeys over gRPC with TLS (local CA, channel credentials)', () => {
  let server: ServerProcess;
  let db: TestDatabase;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, args: ['--tls'] });
    const ca = readFileSync(join(server.dataDir, 'tls', 'ca.pem'));
    await adminOverTls(server, ca, 'POST', '/_twin/v1/world:apply', testWorld);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('takes the credentials from the channel: nothing per call; REST answers on the same port over TLS', async () => {
    const ca = readFileSync(join(server.dataDir, 'tls', 'ca.pem'));
    assert.match(server.url, /^https:\/\//);
    const keyFile = await adminOverTls(server, ca, 'POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    // A service-account key from the admin API: the client self-signs its JWTs (no token endpoint).
    const authClient = new JWT({ email: keyFile.client_email, key: keyFile.private_key, keyId: keyFile.private_key_id, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
    authClient.useJWTAccessWithScope = true;
    const client = new ApiKeysClient({
      apiEndpoint: '127.0.0.1',
      port: server.port,
      // grpc-js reads plain header objects; google-auth-library >= 10 answers a Headers object, which
      // createFromGoogleCredential(authClient) would turn into no metadata at all (gax adapts it the same way).
      sslCreds: grpc.credentials.combineChannelCredentials(
        grpc.credentials.createSsl(ca),
        grpc.credentials.createFromGoogleCredential({ getRequestHeaders: async (url?: string) => Object.fromEntries(await authClient.getRequestHeaders(url)) }),
      ),
      universeDomain: 'googleapis.com',
    });
    try {
      const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'over-tls', key: { displayName: 'tls' } });
      const [key] = await op.promise();
      assert.equal(key.displayName, 'tls');
      const [got] = await client.getKey({ name: key.name });
      assert.equal(got.uid, key.uid);
    } finally {
      await client.close();
    }
  });

  it('serves TLS only: gRPC on an insecure channel is UNAVAILABLE, cleartext HTTP/1.1 gets a 400 naming the https address', async () => {
    const client = insecureClient(server.port);
    try {
      await rejectsWithCode(client.getKey({ name: `${DEMO_PARENT}/keys/none` }, { retry: null, timeout: 5000 } as never), 14);
    } finally {
      await client.close();
    }
    const res = await fetch(`${server.url.replace('https:', 'http:')}/_twin/v1/health`);
    assert.equal(res.status, 400);
    assert.equal(await res.text(), `This port speaks TLS only: use ${server.url}\n`);
  });
});

/** The server's resident memory (VmRSS) and its peak since the last reset (VmHWM), in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

describe('a gzip bomb over gRPC', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, () => {
  const served = serverHooks([]);

  it('without a token is refused UNAUTHENTICATED before it is read; with one, RESOURCE_EXHAUSTED once its inflated size passes 4 MiB; the server grows by less than 50 MB', async () => {
    // 1 MB on the wire that inflates to 1 GiB: 16 gzip members of 64 MiB of zeros each.
    const member = gzipSync(Buffer.alloc(64 << 20));
    const message = Buffer.concat(Array.from({ length: Math.ceil((1 << 20) / member.length) }, () => member));
    const framed = Buffer.concat([Buffer.from([1]), Buffer.alloc(4), message]);
    framed.writeUInt32BE(message.length, 1);
    const pid = served().proc.pid!;
    const { access_token: token } = await served().admin('POST', '/_twin/v1/tokens', { principal: 'alice@example.com' });
    const session = h2connect(served().url);
    try {
      const call = (body: Buffer, headers: Record<string, string>) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          const stream = session.request({ ':method': 'POST', ':path': '/google.api.apikeys.v2.ApiKeys/GetKey', 'content-type': 'application/grpc', te: 'trailers', ...headers });
          let meta: Record<string, unknown> = {};
          stream.on('response', (h) => (meta = { ...h }));
          stream.on('trailers', (t) => (meta = { ...meta, ...t }));
          stream.on('error', reject);
          stream.resume();
          stream.on('close', () => resolve(meta));
          stream.end(body);
        });
      // The first call loads the gRPC server; the bombs are measured from after it.
      assert.equal((await call(Buffer.from([0, 0, 0, 0, 0]), {}))['grpc-status'], '16');
      for (const [headers, status, message] of [
        // Authenticated first, as REST: a call without a credential is refused before its message is read.
        [{ 'grpc-encoding': 'gzip' }, '16', /^Request is missing required authentication credential/],
        // With one, the message is inflated with a bound and refused past it.
        [{ 'grpc-encoding': 'gzip', authorization: `Bearer ${token}` }, '8', /^Received message larger than max/],
      ] as const) {
        writeFileSync(`/proc/${pid}/clear_refs`, '5'); // VmHWM := VmRSS
        const before = memoryOf(pid);
        const answer = await call(framed, headers);
        const after = memoryOf(pid);
        assert.equal(answer['grpc-status'], status, JSON.stringify(answer));
        assert.match(decodeURIComponent(String(answer['grpc-message'])), message);
        const grewMb = (after.peak - before.rss) / 1e6;
        assert.ok(grewMb < 50, `the server grew by ${grewMb.toFixed(1)} MB`);
      }
    } finally {
      session.close();
    }
  });
});

/** A `cloudtwin serve` with `args` on a fresh database and the test world, for the suite. */
function serverHooks(args: string[]): () => ServerProcess {
  let server: ServerProcess;
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, args });
    await server.admin('POST', '/_twin/v1/world:apply', testWorld);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });
  return () => server;
}

/** The stock client on an insecure channel (the emulator idiom). */
function insecureClient(port: number): ApiKeysClient {
  return new ApiKeysClient({ apiEndpoint: '127.0.0.1', port, sslCreds: grpc.credentials.createInsecure(), universeDomain: 'googleapis.com' });
}

describe('@google-cloud/apikeys over gRPC in permissive mode, no credential at all', () => {
  const served = serverHooks(['--auth', 'permissive']);

  it('accepts a call on an insecure channel with no token as the permissive principal', async () => {
    const client = insecureClient(served().port);
    try {
      const [op] = await client.createKey({ parent: DEMO_PARENT, key: { displayName: 'no auth' } });
      const [key] = await op.promise();
      assert.equal(key.displayName, 'no auth');
      const [keys] = await client.listKeys({ parent: DEMO_PARENT });
      assert.ok(keys.some((k) => k.name === key.name));
    } finally {
      await client.close();
    }
    // REST still wants a bearer token (any) in permissive mode.
    assert.equal((await fetch(`${served().url}/v2/${DEMO_PARENT}/keys`)).status, 401);
  });
});

describe('multi-process on PostgreSQL: created over gRPC on one process, read over REST on another', { skip: TEST_STORE !== 'postgres' ? 'needs PostgreSQL (CLOUDTWIN_TEST_STORE=postgres)' : false }, () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase();
    const env = { CLOUDTWIN_MASTER_KEY: randomBytes(32).toString('base64') };
    a = await startServer({ databaseUrl: db.url, env });
    b = await startServer({ databaseUrl: db.url, env });
    await a.admin('POST', '/_twin/v1/world:apply', testWorld);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    a?.cleanup();
    b?.cleanup();
    await db?.drop();
  });

  it('one service: the key string, the operation and the key agree across processes and transports', async () => {
    const token = (await a.admin('POST', '/_twin/v1/tokens', { principal: 'alice@example.com' })).access_token;
    const client = insecureClient(a.port);
    try {
      const [op] = await client.createKey({ parent: DEMO_PARENT, keyId: 'multi', key: { displayName: 'from A over gRPC' } }, { otherArgs: { headers: { authorization: `Bearer ${token}` } } });
      const [key] = await op.promise();
      const headers = { authorization: `Bearer ${token}` };
      const restKey = await (await fetch(`${b.url}/v2/${key.name}`, { headers })).json();
      assert.equal(restKey.displayName, 'from A over gRPC');
      assert.equal(restKey.uid, key.uid);
      const restOp = await (await fetch(`${b.url}/v2/${op.name}`, { headers })).json();
      assert.equal(restOp.done, true);
      assert.equal(restOp.response.keyString, key.keyString);
    } finally {
      await client.close();
    }
  });
});

describe('SIGTERM drains gRPC calls', () => {
  const served = serverHooks(['--auth', 'permissive']);

  it('answers every call the server took before it exits 0; none is cut (INTERNAL, CANCELLED)', async () => {
    const client = insecureClient(served().port);
    try {
      await client.listKeys({ parent: DEMO_PARENT }); // the channel is up
      let answered = 0;
      const calls = Array.from({ length: 300 }, (_, i) =>
        (i % 2 ? client.listKeys({ parent: DEMO_PARENT }, { retry: null } as never) : client.getKey({ name: `${DEMO_PARENT}/keys/none-${i}` }, { retry: null } as never)).then(
          () => (answered++, 0),
          (err: { code: number }) => (answered++, err.code),
        ),
      );
      // SIGTERM while most of the calls are still in flight.
      while (answered < 10) await new Promise((r) => setTimeout(r, 1));
      const exit = served().stop();
      const codes = await Promise.all(calls);
      assert.equal(await exit, 0);
      // OK, the NOT_FOUND of the gets, or UNAVAILABLE for a call sent after the GOAWAY: never a call cut halfway.
      for (const code of codes) assert.ok([0, 5, 14].includes(code), `a call ended with ${code}: ${codes.join(',')}`);
      assert.ok(codes.filter((c) => c === 0 || c === 5).length > 10, `calls were served while draining: ${codes.join(',')}`);
    } finally {
      await client.close();
    }
  });
});
