/**
 * Fault injection through the official clients against a real `cloudtwin serve` process: each
 * action (error, latency, failOperation, reset) and each schedule (next N, every Kth, seeded
 * probability) as googleapis, gax over REST (@google-cloud/apikeys with fallback, @google-cloud/compute)
 * and gcloud see them; the clients see exactly the injected error and retry as configured.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { ApiKeysClient } from '@google-cloud/apikeys';
import googleGax from 'google-gax';
import { RegionInstanceTemplatesClient } from '@google-cloud/compute';
import { JWT, OAuth2Client } from 'google-auth-library';
import { google } from 'googleapis';
import { rejectsWithCode } from '../support/gax.ts';
import { Gcloud, gcloudAvailable } from '../support/gcloud.ts';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { ALICE, CI_SA, DEMO } from '../support/world.ts';
import { CORA, P, REGION, computeWorld } from '../http/compute.helpers.ts';

const PARENT = `projects/${DEMO.projectId}/locations/global`;
const PROPERTIES = {
  machineType: 'e2-medium',
  disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
  networkInterfaces: [{ network: 'global/networks/default' }],
};

describe('fault injection through the official clients', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let apikeys: ReturnType<typeof google.apikeys>;
  let gax: ApiKeysClient;
  let templates: RegionInstanceTemplatesClient;

  const rule = (r: Record<string, unknown>) => server.admin('POST', '/_twin/v1/faults', r);
  const journal = async (method: string) => (await server.admin('GET', `/_twin/v1/requests?method=${method}`)).requests as any[];

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', computeWorld);
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token });
    apikeys = google.apikeys({ version: 'v2', rootUrl: server.url + '/', auth });
    const keyFile = await server.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    gax = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, credentials: keyFile });
    const authClient = new JWT({ email: keyFile.client_email, key: keyFile.private_key, keyId: keyFile.private_key_id, scopes: ['https://www.googleapis.com/auth/compute'] });
    authClient.useJWTAccessWithScope = true;
    templates = new RegionInstanceTemplatesClient({ apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, authClient });
  });
  afterEach(async () => {
    await server.admin('DELETE', '/_twin/v1/faults');
    await server.admin('DELETE', '/_twin/v1/requests');
  });
  after(async () => {
    await gax?.close();
    await templates?.close();
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('googleapis: the exact injected error without retries; with retries configured it gets through after the next N', async () => {
    await rule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'UNAVAILABLE', message: 'Backend unavailable, try again.' }, when: { next: 2 } });
    const err: any = await apikeys.projects.locations.keys.list({ parent: PARENT }, { retry: false }).catch((e) => e);
    assert.equal(err.status, 503);
    assert.equal(err.message, 'Backend unavailable, try again.');
    assert.equal(err.response.data.error.status, 'UNAVAILABLE');
    // one more faulted call left: a client retrying 5xx (gaxios retryConfig) gets through on its second try
    const res = await apikeys.projects.locations.keys.list({ parent: PARENT }, { retryConfig: { retry: 3, retryDelay: 10, statusCodesToRetry: [[500, 599]] } } as any);
    assert.equal(res.status, 200);
    assert.deepEqual((await journal('apikeys.projects.locations.keys.list')).map((e) => e.status), [200, 503, 503]);
  });

  it('googleapis: every Kth call, 429 RESOURCE_EXHAUSTED rateLimitExceeded in the media envelope', async () => {
    const keyOp = (await apikeys.projects.locations.keys.create({ parent: PARENT, requestBody: {} })).data as any;
    const key = keyOp.response.keyString as string;
    await rule({ match: { method: 'youtube.search.list' }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED', reason: 'rateLimitExceeded' }, when: { every: 2 } });
    const yt = google.youtube({ version: 'v3', rootUrl: server.url + '/', auth: key, retry: false } as any);
    const outcomes: (number | string)[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        outcomes.push((await yt.search.list({ part: ['snippet'], q: 'x' })).status);
      } catch (e: any) {
        outcomes.push(`${e.status} ${e.response?.data?.error?.errors?.[0]?.reason}`);
      }
    }
    assert.deepEqual(outcomes, [200, '429 rateLimitExceeded', 200, '429 rateLimitExceeded']);
  });

  it('googleapis: seeded probability gives the same sequence twice', async () => {
    const run = async () => {
      const r = await rule({ match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'error', status: 'INTERNAL' }, when: { probability: 0.4, seed: 'replay-me' } });
      let seq = '';
      for (let i = 0; i < 16; i++) seq += await apikeys.projects.locations.keys.get({ name: `${PARENT}/keys/none` }, { retry: false }).then(() => '?', (e: any) => (e.status === 500 ? 'x' : '.'));
      await server.admin('DELETE', `/_twin/v1/faults/${r.id}`);
      return seq;
    };
    const first = await run();
    assert.equal(await run(), first);
    assert.match(first, /x/);
    assert.match(first, /\./);
  });

  it('googleapis: a reset connection, and a client that retries it', async () => {
    await rule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'reset' }, when: { next: 1 } });
    const err: any = await apikeys.projects.locations.keys.list({ parent: PARENT }, { retry: false }).catch((e) => e);
    assert.match(String(err.code ?? err.message), /ECONNRESET|socket hang up|other side closed|fetch failed/i);
    await rule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'reset' }, when: { next: 1 } });
    const res = await apikeys.projects.locations.keys.list({ parent: PARENT }, { retryConfig: { retry: 2, retryDelay: 10 } } as any);
    assert.equal(res.status, 200);
    const entries = await journal('apikeys.projects.locations.keys.list');
    assert.deepEqual(entries.map((e) => [e.status, e.fault?.action]), [[200, undefined], [0, 'reset'], [0, 'reset']]);
  });

  it('gax (REST fallback): the injected gRPC code; no retry by default for ListKeys, retries when configured; a deadline under latency', async () => {
    await rule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { next: 2 } });
    await rejectsWithCode(gax.listKeys({ parent: PARENT }, { autoPaginate: false }), 14, /The service is currently unavailable/);
    const [keys] = await gax.listKeys({ parent: PARENT }, { autoPaginate: false, retry: { retryCodes: [14], backoffSettings: { initialRetryDelayMillis: 10, retryDelayMultiplier: 1, maxRetryDelayMillis: 10, initialRpcTimeoutMillis: 5000, rpcTimeoutMultiplier: 1, maxRpcTimeoutMillis: 5000, totalTimeoutMillis: 5000 } } as any });
    assert.ok(Array.isArray(keys));
    assert.equal((await journal('apikeys.projects.locations.keys.list')).length, 3);

    await rule({ match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'latency', delayMs: 600 }, when: { next: 1 } });
    await rejectsWithCode(gax.getKey({ name: `${PARENT}/keys/none` }, { timeout: 150 }), 4);
  });

  it('gax (REST fallback): failOperation makes the createKey operation fail with the given status', async () => {
    await rule({ match: { method: 'apikeys.projects.locations.keys.create' }, action: { type: 'failOperation', status: 'RESOURCE_EXHAUSTED', message: 'Too many keys.' }, when: { next: 1 } });
    const [op] = await gax.createKey({ parent: PARENT, keyId: 'gax-faulted', key: {} });
    await rejectsWithCode(op.promise(), 8, /Too many keys\./);
    await rejectsWithCode(gax.getKey({ name: `${PARENT}/keys/gax-faulted` }), 5);
    const [entry] = await journal('apikeys.projects.locations.keys.create');
    assert.equal(entry.status, 200);
    assert.equal(entry.operation, op.name);
    assert.deepEqual(entry.fault.action, 'failOperation');
  });

  it('@google-cloud/compute (REST): Get retries UNAVAILABLE by default; an insert whose operation is failed', async () => {
    const [lro] = await templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'faulted-get', properties: PROPERTIES } });
    assert.equal((lro as any).latestResponse.status, 'DONE');
    await rule({ match: { method: 'compute.regionInstanceTemplates.get' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { next: 2 } });
    const [got] = await templates.get({ project: P, region: REGION, instanceTemplate: 'faulted-get' });
    assert.equal(got.name, 'faulted-get');
    assert.deepEqual((await journal('compute.regionInstanceTemplates.get')).map((e) => e.status), [200, 503, 503]);

    await rule({ match: { method: 'compute.regionInstanceTemplates.insert', principal: `serviceAccount:${CI_SA}` }, action: { type: 'failOperation', status: 'RESOURCE_EXHAUSTED', reason: 'QUOTA_EXCEEDED', message: "Quota 'INSTANCE_TEMPLATES' exceeded.  Limit: 0.0 globally." } });
    const [failed] = await templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'never-made', properties: PROPERTIES } });
    const op = (failed as any).latestResponse;
    assert.equal(op.status, 'DONE');
    assert.deepEqual(op.error.errors.map((e: any) => [e.code, e.message]), [['QUOTA_EXCEEDED', "Quota 'INSTANCE_TEMPLATES' exceeded.  Limit: 0.0 globally."]]);
    await rejectsWithCode(templates.get({ project: P, region: REGION, instanceTemplate: 'never-made' }, { retry: null } as any), 5);
  });

  it('@google-cloud/apikeys over gRPC: the injected status, a failed operation, a reset stream; journaled by method id', async () => {
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
    const auth = () => ({ otherArgs: { headers: { authorization: `Bearer ${access_token}` } } });
    const client = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port: server.port, sslCreds: googleGax.grpc.credentials.createInsecure(), universeDomain: 'googleapis.com' });
    try {
      await rule({ match: { method: 'apikeys.projects.locations.keys.list', project: DEMO.projectId }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED', message: 'Slow down.' }, when: { next: 1 } });
      await rejectsWithCode(client.listKeys({ parent: PARENT }, { ...auth(), autoPaginate: false }), 8, /Slow down\./);
      const [keys] = await client.listKeys({ parent: PARENT }, { ...auth(), autoPaginate: false });
      assert.ok(Array.isArray(keys));

      await rule({ match: { method: 'apikeys.projects.locations.keys.create' }, action: { type: 'failOperation', status: 'UNAVAILABLE', message: 'Backend gone.' }, when: { next: 1 } });
      const [op] = await client.createKey({ parent: PARENT, keyId: 'grpc-faulted', key: {} }, auth());
      await rejectsWithCode(op.promise(), 14, /Backend gone\./);

      await rule({ match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'reset' }, when: { next: 1 } });
      const err: any = await client.getKey({ name: `${PARENT}/keys/none` }, auth()).catch((e) => e);
      assert.ok([13, 14].includes(err?.code), String(err?.code) + ' ' + err?.message);

      const entries = (await server.admin('GET', '/_twin/v1/requests?method=apikeys.*')).requests as any[];
      const grpcCalls = entries.filter((e) => e.url.startsWith('/google.'));
      assert.deepEqual(
        grpcCalls.filter((e) => e.fault).map((e) => [e.method, e.status, e.fault.action]).reverse(),
        [['apikeys.projects.locations.keys.list', 429, 'error'], ['apikeys.projects.locations.keys.create', 200, 'failOperation'], ['apikeys.projects.locations.keys.get', 0, 'reset']],
      );
      const created = grpcCalls.find((e) => e.method === 'apikeys.projects.locations.keys.create');
      assert.equal(created.operation, op.name);
      assert.equal(created.project, DEMO.projectId);
      assert.equal(created.principal, ALICE);
      // A key called by the name the API gives it (the project's number) is journaled by the project's id.
      await rejectsWithCode(client.getKey({ name: `projects/${DEMO.projectNumber}/locations/global/keys/none` }, auth()), 5);
      const [byNumber] = (await server.admin('GET', '/_twin/v1/requests?method=apikeys.projects.locations.keys.get&limit=1')).requests as any[];
      assert.deepEqual([byNumber.url.startsWith('/google.'), byNumber.status, byNumber.project], [true, 404, DEMO.projectId]);
    } finally {
      await client.close();
    }
  });

  if (gcloudAvailable('gcloud faults')) {
    it('gcloud: the injected error as gcloud reports it, for both services', async () => {
      const g = new Gcloud({ url: server.url, adminToken: server.adminToken, project: P }, CORA);
      try {
        await rule({ match: { method: 'compute.regionInstanceTemplates.list' }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED', httpCode: 403, reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' }, when: { next: 1 } });
        // gcloud's list reports a failed region as a warning ("Some requests did not succeed") with the error's message
        const failed = await g.run(['compute', 'instance-templates', 'list', `--regions=${REGION}`]);
        assert.match(failed.stderr, /Some requests did not succeed\.\s+- Rate Limit Exceeded/);
        const ok = await g.run(['compute', 'instance-templates', 'list', `--regions=${REGION}`]);
        assert.equal(ok.code, 0, ok.stderr);

        await rule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'PERMISSION_DENIED', message: 'Injected: no keys for you.' }, when: { next: 1 } });
        const keys = await g.run(['services', 'api-keys', 'list'], { as: ALICE });
        assert.notEqual(keys.code, 0);
        assert.match(keys.stderr, /Injected: no keys for you\./);
        const entries = await journal('*');
        assert.ok(entries.some((e) => e.method === 'apikeys.projects.locations.keys.list' && e.status === 403 && e.fault));
      } finally {
        g.cleanup();
      }
    });
  }
});
