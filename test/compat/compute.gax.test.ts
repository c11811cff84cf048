/**
 * Compatibility: the official `@google-cloud/compute` clients (REST) and `googleapis` compute v1
 * against a real `cloudtwin serve` process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { GlobalOperationsClient, InstanceTemplatesClient, RegionInstanceTemplatesClient, RegionOperationsClient } from '@google-cloud/compute';
import { JWT, OAuth2Client } from 'google-auth-library';
import { google } from 'googleapis';
import { rejectsWithCode } from '../support/gax.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { CAROL, CI_SA, MALLORY } from '../support/world.ts';
import { CORA, P, REGION, computeWorld } from '../http/compute.helpers.ts';

const PROPERTIES = {
  machineType: 'e2-medium',
  disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
  networkInterfaces: [{ network: 'global/networks/default' }],
  labels: { env: 'ci' },
};

describe('@google-cloud/compute and googleapis compute v1 against cloudtwin serve', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let templates: RegionInstanceTemplatesClient;
  let operations: RegionOperationsClient;
  let globalTemplates: InstanceTemplatesClient;
  let globalOperations: GlobalOperationsClient;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, args: ['--journal-bodies'] });
    await server.admin('POST', '/_twin/v1/world:apply', computeWorld);
    const credentials = await server.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    // The key from the admin API, self-signing its JWTs (no token endpoint involved): the compute
    // client, unlike apikeys', asks the token endpoint when it builds the JWT client itself.
    const authClient = new JWT({ email: credentials.client_email, key: credentials.private_key, keyId: credentials.private_key_id, scopes: ['https://www.googleapis.com/auth/compute'] });
    authClient.useJWTAccessWithScope = true;
    const opts = { apiEndpoint: '127.0.0.1', port: server.port, protocol: 'http', fallback: true, authClient } as const;
    templates = new RegionInstanceTemplatesClient(opts);
    operations = new RegionOperationsClient(opts);
    globalTemplates = new InstanceTemplatesClient(opts);
    globalOperations = new GlobalOperationsClient(opts);
  });

  after(async () => {
    await templates?.close();
    await operations?.close();
    await globalTemplates?.close();
    await globalOperations?.close();
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  /** The user's loop: wait until DONE. */
  async function waitDone(name: string): Promise<any> {
    for (let i = 0; i < 100; i++) {
      const [op] = await operations.wait({ project: P, region: REGION, operation: name });
      if (op.status === 'DONE') return op;
    }
    assert.fail('operation did not finish');
  }

  it('insert, wait until DONE, get, list with pagination and a filter, delete; operations list/get/delete', async () => {
    await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 300 });
    const [lro] = await templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'gax-1', properties: PROPERTIES }, requestId: '3c1b7d2e-8f9a-4b6c-8d0e-1f2a3b4c5d6e' });
    const first = (lro as any).latestResponse;
    assert.equal(first.status, 'PENDING');
    assert.equal(first.operationType, 'compute.regionInstanceTemplates.insert');
    // one wait blocks until the operation is DONE (300 ms here; the server waits up to 2 minutes)
    const [waited] = await operations.wait({ project: P, region: REGION, operation: first.name });
    assert.equal(waited.status, 'DONE');
    const done = await waitDone(first.name);
    assert.equal(done.progress, 100);
    assert.equal(done.clientOperationId, '3c1b7d2e-8f9a-4b6c-8d0e-1f2a3b4c5d6e');
    assert.ok(!done.error);
    await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });

    const [tpl] = await templates.get({ project: P, region: REGION, instanceTemplate: 'gax-1' });
    assert.equal(tpl.name, 'gax-1');
    assert.equal(tpl.properties?.machineType, 'e2-medium');
    assert.equal(String(tpl.id), done.targetId);
    assert.deepEqual(tpl.properties?.labels, { env: 'ci' });

    for (const n of ['gax-2', 'gax-3']) {
      const [op] = await templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: n, properties: { ...PROPERTIES, labels: { env: n } } } });
      assert.equal((op as any).latestResponse.status, 'DONE');
    }
    const names: string[] = [];
    for await (const t of templates.listAsync({ project: P, region: REGION, maxResults: 1 })) names.push(t.name!);
    assert.deepEqual(names, ['gax-1', 'gax-2', 'gax-3']);
    const [filtered] = await templates.list({ project: P, region: REGION, filter: 'properties.labels.env = gax-2' }, { autoPaginate: false });
    assert.deepEqual(filtered.map((t) => t.name), ['gax-2']);

    const [del] = await templates.delete({ project: P, region: REGION, instanceTemplate: 'gax-3' });
    assert.equal((del as any).latestResponse.operationType, 'compute.regionInstanceTemplates.delete');
    await rejectsWithCode(templates.get({ project: P, region: REGION, instanceTemplate: 'gax-3' }), 5, /was not found/);

    const ops: any[] = [];
    for await (const o of operations.listAsync({ project: P, region: REGION })) ops.push(o);
    assert.ok(ops.length >= 4);
    const [got] = await operations.get({ project: P, region: REGION, operation: first.name });
    assert.equal(got.name, first.name);
    await operations.delete({ project: P, region: REGION, operation: first.name });
    await rejectsWithCode(operations.get({ project: P, region: REGION, operation: first.name }), 5);
  });

  it('errors surface with their codes: 400, 404, 409, 403, and failed operations carry error.errors[]', async () => {
    await rejectsWithCode(templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'Bad_Name', properties: PROPERTIES } }), 3, /resource\.name/);
    await rejectsWithCode(templates.get({ project: P, region: 'mars-central1', instanceTemplate: 'x' }), 5, /projects\/demo-project\/regions\/mars-central1/);
    // Compute's envelope carries no `status`: gax maps HTTP 409 to ABORTED (10), as against Google.
    await rejectsWithCode(templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'gax-1', properties: PROPERTIES } }), 10, /already exists/);
    await rejectsWithCode(templates.list({ project: 'other-project', region: REGION }), 7, /compute\.instanceTemplates\.list/);
    const [lro] = await templates.insert({ project: P, region: REGION, instanceTemplateResource: { name: 'gax-bad-net', properties: { ...PROPERTIES, networkInterfaces: [{ network: 'global/networks/nope' }] } } });
    const op = (lro as any).latestResponse;
    assert.equal(op.status, 'DONE');
    assert.equal(op.httpErrorStatusCode, 404);
    assert.equal(op.error.errors[0].code, 'RESOURCE_NOT_FOUND');
    assert.match(op.error.errors[0].message, /projects\/demo-project\/global\/networks\/nope/);
  });

  it('googleapis compute v1 with a fixed access token: insert, wait, get, list', async () => {
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: CORA, scopes: ['https://www.googleapis.com/auth/compute'] });
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token });
    const compute = google.compute({ version: 'v1', rootUrl: `${server.url}/`, auth });
    const ins = await compute.regionInstanceTemplates.insert({ project: P, region: REGION, requestBody: { name: 'gapi-1', properties: PROPERTIES } });
    assert.equal(ins.data.kind, 'compute#operation');
    const waited = await compute.regionOperations.wait({ project: P, region: REGION, operation: ins.data.name! });
    assert.equal(waited.data.status, 'DONE');
    const got = await compute.regionInstanceTemplates.get({ project: P, region: REGION, instanceTemplate: 'gapi-1' });
    assert.equal(got.data.name, 'gapi-1');
    const list = await compute.regionInstanceTemplates.list({ project: P, region: REGION, maxResults: 500 });
    assert.ok(list.data.items!.some((t) => t.name === 'gapi-1'));
    const agg = await compute.instanceTemplates.aggregatedList({ project: P, includeAllScopes: true });
    assert.ok(agg.data.items!['regions/us-central1'].instanceTemplates!.some((t) => t.name === 'gapi-1'));
    await assert.rejects(compute.regionInstanceTemplates.get({ project: P, region: REGION, instanceTemplate: 'nope' }, { retry: false }), (err: any) => err.status === 404 || err.code === 404);
  });

  it('global templates with InstanceTemplatesClient and GlobalOperationsClient: insert, wait, get, list; the template IAM policy', async () => {
    await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 300 });
    const [lro] = await globalTemplates.insert({ project: P, instanceTemplateResource: { name: 'gax-g1', properties: PROPERTIES } });
    const first = (lro as any).latestResponse;
    assert.equal(first.status, 'PENDING');
    assert.equal(first.operationType, 'compute.instanceTemplates.insert');
    const [waited] = await globalOperations.wait({ project: P, operation: first.name });
    assert.equal(waited.status, 'DONE');
    await server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    const [tpl] = await globalTemplates.get({ project: P, instanceTemplate: 'gax-g1' });
    assert.equal(tpl.selfLink, `https://www.googleapis.com/compute/v1/projects/${P}/global/instanceTemplates/gax-g1`);
    assert.ok(!tpl.region);
    const names: string[] = [];
    for await (const t of globalTemplates.listAsync({ project: P, maxResults: 1 })) names.push(t.name!);
    assert.deepEqual(names, ['gax-g1']);
    const ops: any[] = [];
    for await (const o of globalOperations.listAsync({ project: P })) ops.push(o);
    assert.deepEqual(ops.map((o) => o.name), [first.name]);

    // IAM: a policy with one binding; testIamPermissions answers the subset held
    const [empty] = await globalTemplates.getIamPolicy({ project: P, resource: 'gax-g1' });
    assert.equal(empty.etag, 'ACAB');
    const [set] = await globalTemplates.setIamPolicy({ project: P, resource: 'gax-g1', globalSetPolicyRequestResource: { policy: { etag: empty.etag, bindings: [{ role: 'roles/compute.viewer', members: [MALLORY] }] } } });
    assert.deepEqual(set.bindings?.map((b) => [b.role, b.members]), [['roles/compute.viewer', [MALLORY]]]);
    const [got] = await globalTemplates.getIamPolicy({ project: P, resource: 'gax-g1' });
    assert.equal(got.etag, set.etag);
    // a stale etag: 409, which gax maps to ABORTED (10)
    await rejectsWithCode(globalTemplates.setIamPolicy({ project: P, resource: 'gax-g1', globalSetPolicyRequestResource: { policy: { etag: empty.etag, bindings: [] } } }), 10, /concurrent policy changes/);
    const [tested] = await globalTemplates.testIamPermissions({ project: P, resource: 'gax-g1', testPermissionsRequestResource: { permissions: ['compute.instanceTemplates.get', 'compute.instanceTemplates.setIamPolicy'] } });
    assert.deepEqual(tested.permissions, ['compute.instanceTemplates.get', 'compute.instanceTemplates.setIamPolicy']);
    await rejectsWithCode(globalTemplates.getIamPolicy({ project: P, resource: 'nope' }), 5, /was not found/);
  });

  it('googleapis: the member bound on one global template reads it and nothing else; inheritance from the organization', async () => {
    const client = async (principal: string) => {
      const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal, scopes: ['https://www.googleapis.com/auth/compute'] });
      const auth = new OAuth2Client();
      auth.setCredentials({ access_token });
      return google.compute({ version: 'v1', rootUrl: `${server.url}/`, auth });
    };
    const cora = await client(CORA);
    for (const n of ['gapi-g1', 'gapi-g2']) {
      const ins = await cora.instanceTemplates.insert({ project: P, requestBody: { name: n, properties: PROPERTIES } });
      assert.equal((await cora.globalOperations.wait({ project: P, operation: ins.data.name! })).data.status, 'DONE');
    }
    const policy = (await cora.instanceTemplates.getIamPolicy({ project: P, resource: 'gapi-g1' })).data;
    await cora.instanceTemplates.setIamPolicy({ project: P, resource: 'gapi-g1', requestBody: { policy: { etag: policy.etag, bindings: [{ role: 'roles/compute.viewer', members: [MALLORY] }] } } });
    const mallory = await client(MALLORY);
    assert.equal((await mallory.instanceTemplates.get({ project: P, instanceTemplate: 'gapi-g1' })).data.name, 'gapi-g1');
    await assert.rejects(mallory.instanceTemplates.get({ project: P, instanceTemplate: 'gapi-g2' }, { retry: false }), (err: any) => err.status === 403);
    await assert.rejects(mallory.instanceTemplates.list({ project: P }, { retry: false }), (err: any) => err.status === 403);
    const test = async (c: typeof cora, resource: string) =>
      (await c.instanceTemplates.testIamPermissions({ project: P, resource, requestBody: { permissions: ['compute.instanceTemplates.get', 'compute.instanceTemplates.delete'] } })).data.permissions ?? [];
    assert.deepEqual(await test(mallory, 'gapi-g1'), ['compute.instanceTemplates.get']);
    assert.deepEqual(await test(mallory, 'gapi-g2'), []);
    assert.deepEqual(await test(await client(CAROL), 'gapi-g2'), ['compute.instanceTemplates.get', 'compute.instanceTemplates.delete']);
    const agg = await cora.instanceTemplates.aggregatedList({ project: P });
    assert.ok(agg.data.items!.global.instanceTemplates!.some((t) => t.name === 'gapi-g1'));
  });

  it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
    assert.ok((await assertJournalConforms(server.url, server.adminToken)) > 0);
  });
});
