/**
 * Compatibility: managed instance groups with `@google-cloud/compute` (REST) and `googleapis`
 * compute v1 against a `cloudtwin serve` process, each library through the whole path: a network,
 * a subnetwork, a firewall rule, two templates, then a zonal and a regional group inserted,
 * resized, listed (listManagedInstances), grown by named instances (createInstances), moved to the
 * other template (setInstanceTemplate), rolled back by a PROACTIVE update on the twin's clock in
 * delayed mode (until `status.isStable` and `status.versionTarget.isReached`), shrunk
 * (deleteInstances) and deleted, then the rest torn down. The refusals as each library surfaces
 * them: a template a group uses cannot be deleted (both); through googleapis the instance refusals
 * the instances suite shows through @google-cloud/compute (a stale fingerprint, a service account
 * without actAs, a machine type the zone does not have); overlapping ranges and a network in use
 * are the networks suite's. Every answer the server journaled is checked against the discovery
 * document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { FirewallsClient, InstanceGroupManagersClient, InstanceTemplatesClient, NetworksClient, RegionInstanceGroupManagersClient, SubnetworksClient } from '@google-cloud/compute';
import { type compute_v1, google } from 'googleapis';
import { rejectsWithCode } from '../support/gax.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { CORA, LINK, P, REGION } from '../http/compute.helpers.ts';
import { type ComputeClientsServer, startComputeClientsServer } from './compute.clients.helpers.ts';

const ZONE = 'us-central1-a';
type Obj = Record<string, any>;
type Where = { zone: string } | { region: string };

/** One library's calls along the path, each write awaited until its operation is DONE. */
interface PathApi {
  network(body: Obj): Promise<void>;
  subnetwork(body: Obj): Promise<void>;
  firewall(body: Obj): Promise<void>;
  template(body: Obj): Promise<void>;
  group: {
    insert(at: Where, body: Obj): Promise<void>;
    get(at: Where, name: string): Promise<Obj>;
    resize(at: Where, name: string, size: number): Promise<void>;
    listManagedInstances(at: Where, name: string): Promise<Obj[]>;
    createInstances(at: Where, name: string, names: string[]): Promise<void>;
    setInstanceTemplate(at: Where, name: string, template: string): Promise<void>;
    patch(at: Where, name: string, body: Obj): Promise<void>;
    deleteInstances(at: Where, name: string, instances: string[]): Promise<void>;
    delete(at: Where, name: string): Promise<void>;
  };
  /** Deletes a template; expects the refusal of one a group uses, as the library surfaces it. */
  templateDeleteRefusedInUse(name: string, user: RegExp): Promise<void>;
  deleteTemplate(name: string): Promise<void>;
  deleteFirewall(name: string): Promise<void>;
  deleteSubnetwork(name: string): Promise<void>;
  deleteNetwork(name: string): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('managed instance groups with @google-cloud/compute and googleapis against cloudtwin serve', () => {
  let twin: ComputeClientsServer;
  let compute: compute_v1.Compute;
  let coraCompute: compute_v1.Compute;

  before(async () => {
    twin = await startComputeClientsServer([CORA]);
    compute = google.compute({ version: 'v1', rootUrl: `${twin.server.url}/`, auth: twin.auth(CAROL) });
    coraCompute = google.compute({ version: 'v1', rootUrl: `${twin.server.url}/`, auth: twin.auth(CORA) });
  });
  after(() => twin?.close());

  const operationsMode = (mode: 'instant' | 'delayed', delayMs?: number) => twin.server.admin('PUT', '/_twin/v1/operations/config', { mode, ...(delayMs ? { delayMs } : {}) });

  /** The whole path through one library: `prefix` names its resources, `range` is its subnetwork's. */
  async function walkThePath(api: PathApi, prefix: string, range: string): Promise<void> {
    await api.network({ name: `${prefix}-net`, autoCreateSubnetworks: false });
    await api.subnetwork({ name: `${prefix}-sub`, network: `global/networks/${prefix}-net`, ipCidrRange: range });
    await api.firewall({ name: `${prefix}-fw`, network: `global/networks/${prefix}-net`, allowed: [{ IPProtocol: 'tcp', ports: ['80'] }], targetTags: ['web'] });
    for (const t of ['a', 'b']) {
      await api.template({
        name: `${prefix}-${t}`,
        properties: {
          machineType: 'e2-small',
          tags: { items: ['web'] },
          disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
          networkInterfaces: [{ subnetwork: `regions/${REGION}/subnetworks/${prefix}-sub` }],
        },
      });
    }
    const tpl = (t: string) => `${LINK}projects/${P}/global/instanceTemplates/${prefix}-${t}`;
    const groups: { at: Where; name: string; size: number; policy?: Obj }[] = [
      { at: { zone: ZONE }, name: `${prefix}-z`, size: 2, policy: { type: 'PROACTIVE', maxSurge: { fixed: 1 }, maxUnavailable: { fixed: 0 } } },
      { at: { region: REGION }, name: `${prefix}-r`, size: 3 },
    ];
    for (const { at, name, size, policy } of groups) {
      const g = api.group;
      await g.insert(at, { name, baseInstanceName: name, targetSize: size, instanceTemplate: `global/instanceTemplates/${prefix}-a`, ...(policy ? { updatePolicy: policy } : {}) });
      let got = await g.get(at, name);
      assert.deepEqual([got.targetSize, got.instanceTemplate, got.status.isStable], [size, tpl('a'), true]);

      await g.resize(at, name, size + 1);
      let members = await g.listManagedInstances(at, name);
      assert.equal(members.length, size + 1);
      for (const m of members) {
        assert.match(m.instance, new RegExp(`/instances/${name}-[a-z0-9]{4}$`));
        assert.deepEqual([m.currentAction, m.instanceStatus, m.version.instanceTemplate], ['NONE', 'RUNNING', tpl('a')]);
      }
      // us-central1 has four zones: four instances, one in each
      if ('region' in at) assert.equal(new Set(members.map((m) => m.instance.split('/')[8])).size, size + 1, 'spread over the region\'s zones');

      await g.createInstances(at, name, [`${name}-named`]);
      members = await g.listManagedInstances(at, name);
      const named = members.find((m) => m.instance.endsWith(`/instances/${name}-named`));
      assert.ok(named, 'the named instance is a member');
      assert.equal((await g.get(at, name)).targetSize, size + 2);

      await g.setInstanceTemplate(at, name, `global/instanceTemplates/${prefix}-b`);
      got = await g.get(at, name);
      assert.deepEqual([got.instanceTemplate, got.status.versionTarget.isReached], [tpl('b'), true]);
      assert.deepEqual((await g.listManagedInstances(at, name)).map((m) => m.version.instanceTemplate), Array(size + 2).fill(tpl('b')));

      await api.templateDeleteRefusedInUse(`${prefix}-b`, new RegExp(`instanceGroupManagers/${name}`));

      // A PROACTIVE update back to template a, step by step on the twin's clock: wait until stable.
      await operationsMode('delayed', 300);
      try {
        await g.patch(at, name, { versions: [{ instanceTemplate: `global/instanceTemplates/${prefix}-a` }], updatePolicy: { type: 'PROACTIVE', minimalAction: 'REPLACE' } });
        let unsettled = 0;
        for (let i = 0; ; i++) {
          assert.ok(i < 300, 'the update converged within 60 s');
          got = await g.get(at, name);
          if (got.status.isStable && got.status.versionTarget.isReached) break;
          unsettled++;
          await sleep(200);
        }
        assert.ok(unsettled > 0, 'the update was seen in progress');
      } finally {
        await operationsMode('instant');
      }
      members = await g.listManagedInstances(at, name);
      assert.equal(members.length, size + 2);
      for (const m of members) assert.deepEqual([m.currentAction, m.instanceStatus, m.version.instanceTemplate], ['NONE', 'RUNNING', tpl('a')]);

      const gone = members[0].instance;
      await g.deleteInstances(at, name, [gone]);
      members = await g.listManagedInstances(at, name);
      assert.equal(members.length, size + 1);
      assert.ok(!members.some((m) => m.instance === gone));
      assert.equal((await g.get(at, name)).targetSize, size + 1);

      await g.delete(at, name);
    }
    for (const t of ['a', 'b']) await api.deleteTemplate(`${prefix}-${t}`);
    await api.deleteFirewall(`${prefix}-fw`);
    await api.deleteSubnetwork(`${prefix}-sub`);
    await api.deleteNetwork(`${prefix}-net`);
  }

  it('@google-cloud/compute: the whole path, each operation awaited with the operations clients', async () => {
    const opts = twin.clientOptions(CAROL);
    const networks = twin.keep(new NetworksClient(opts));
    const subnetworks = twin.keep(new SubnetworksClient(opts));
    const firewalls = twin.keep(new FirewallsClient(opts));
    const templates = twin.keep(new InstanceTemplatesClient(opts));
    const zonal = twin.keep(new InstanceGroupManagersClient(opts));
    const regional = twin.keep(new RegionInstanceGroupManagersClient(opts));
    const { finished } = twin;
    const on = (at: Where) => ({ project: P, ...at });
    const api: PathApi = {
      network: async (b) => void (await finished(networks.insert({ project: P, networkResource: b }))),
      subnetwork: async (b) => void (await finished(subnetworks.insert({ project: P, region: REGION, subnetworkResource: b }))),
      firewall: async (b) => void (await finished(firewalls.insert({ project: P, firewallResource: b }))),
      template: async (b) => void (await finished(templates.insert({ project: P, instanceTemplateResource: b }))),
      group: {
        insert: async (at, b) => void (await finished('zone' in at ? zonal.insert({ ...on(at), instanceGroupManagerResource: b }) : regional.insert({ ...on(at), instanceGroupManagerResource: b }))),
        get: async (at, name) => ('zone' in at ? (await zonal.get({ ...on(at), instanceGroupManager: name }))[0] : (await regional.get({ ...on(at), instanceGroupManager: name }))[0]) as Obj,
        resize: async (at, name, size) => void (await finished('zone' in at ? zonal.resize({ ...on(at), instanceGroupManager: name, size }) : regional.resize({ ...on(at), instanceGroupManager: name, size }))),
        listManagedInstances: async (at, name) =>
          ('zone' in at ? (await zonal.listManagedInstances({ ...on(at), instanceGroupManager: name }))[0] : (await regional.listManagedInstances({ ...on(at), instanceGroupManager: name }))[0]) as Obj[],
        createInstances: async (at, name, names) => {
          const instances = names.map((n) => ({ name: n }));
          await finished(
            'zone' in at
              ? zonal.createInstances({ ...on(at), instanceGroupManager: name, instanceGroupManagersCreateInstancesRequestResource: { instances } })
              : regional.createInstances({ ...on(at), instanceGroupManager: name, regionInstanceGroupManagersCreateInstancesRequestResource: { instances } }),
          );
        },
        setInstanceTemplate: async (at, name, instanceTemplate) => {
          await finished(
            'zone' in at
              ? zonal.setInstanceTemplate({ ...on(at), instanceGroupManager: name, instanceGroupManagersSetInstanceTemplateRequestResource: { instanceTemplate } })
              : regional.setInstanceTemplate({ ...on(at), instanceGroupManager: name, regionInstanceGroupManagersSetTemplateRequestResource: { instanceTemplate } }),
          );
        },
        patch: async (at, name, b) => void (await finished('zone' in at ? zonal.patch({ ...on(at), instanceGroupManager: name, instanceGroupManagerResource: b }) : regional.patch({ ...on(at), instanceGroupManager: name, instanceGroupManagerResource: b }))),
        deleteInstances: async (at, name, instances) => {
          await finished(
            'zone' in at
              ? zonal.deleteInstances({ ...on(at), instanceGroupManager: name, instanceGroupManagersDeleteInstancesRequestResource: { instances } })
              : regional.deleteInstances({ ...on(at), instanceGroupManager: name, regionInstanceGroupManagersDeleteInstancesRequestResource: { instances } }),
          );
        },
        delete: async (at, name) => {
          await finished('zone' in at ? zonal.delete({ ...on(at), instanceGroupManager: name }) : regional.delete({ ...on(at), instanceGroupManager: name }));
          await rejectsWithCode('zone' in at ? zonal.get({ ...on(at), instanceGroupManager: name }) : regional.get({ ...on(at), instanceGroupManager: name }), 5, /was not found/);
        },
      },
      // HTTP 400 is INVALID_ARGUMENT (3) in the library.
      templateDeleteRefusedInUse: (name, user) => rejectsWithCode(templates.delete({ project: P, instanceTemplate: name }), 3, new RegExp(`is already being used by '.*${user.source}`)).then(() => undefined),
      deleteTemplate: async (name) => void (await finished(templates.delete({ project: P, instanceTemplate: name }))),
      deleteFirewall: async (name) => void (await finished(firewalls.delete({ project: P, firewall: name }))),
      deleteSubnetwork: async (name) => void (await finished(subnetworks.delete({ project: P, region: REGION, subnetwork: name }))),
      deleteNetwork: async (name) => void (await finished(networks.delete({ project: P, network: name }))),
    };
    await walkThePath(api, 'gx', '10.40.0.0/24');
  });

  /** googleapis: waits on an operation with its zone's, region's or global `wait` until DONE; asserts no error. */
  async function awaited(started: Promise<{ data: compute_v1.Schema$Operation }>): Promise<compute_v1.Schema$Operation> {
    let op = (await started).data;
    while (op.status !== 'DONE') {
      const operation = op.name!;
      if (op.zone) op = (await compute.zoneOperations.wait({ project: P, zone: op.zone.split('/').pop()!, operation })).data;
      else if (op.region) op = (await compute.regionOperations.wait({ project: P, region: op.region.split('/').pop()!, operation })).data;
      else op = (await compute.globalOperations.wait({ project: P, operation })).data;
    }
    assert.ok(!op.error, JSON.stringify(op.error));
    return op;
  }

  /** googleapis rejects with a GaxiosError: its HTTP status and Compute's envelope. */
  async function refused(call: Promise<unknown>, status: number, reason: string, message: RegExp): Promise<void> {
    const err: any = await call.then(() => assert.fail('expected a refusal'), (e) => e);
    assert.equal(err.status, status, err.message);
    assert.equal(err.response.data.error.errors[0].reason, reason);
    assert.match(err.message, message);
  }

  it('googleapis compute v1: the whole path, each operation awaited with operations.wait', async () => {
    const z = compute.instanceGroupManagers;
    const r = compute.regionInstanceGroupManagers;
    const api: PathApi = {
      network: async (b) => void (await awaited(compute.networks.insert({ project: P, requestBody: b }))),
      subnetwork: async (b) => void (await awaited(compute.subnetworks.insert({ project: P, region: REGION, requestBody: b }))),
      firewall: async (b) => void (await awaited(compute.firewalls.insert({ project: P, requestBody: b }))),
      template: async (b) => void (await awaited(compute.instanceTemplates.insert({ project: P, requestBody: b }))),
      group: {
        insert: async (at, b) => void (await awaited('zone' in at ? z.insert({ project: P, ...at, requestBody: b }) : r.insert({ project: P, ...at, requestBody: b }))),
        get: async (at, name) => ('zone' in at ? await z.get({ project: P, ...at, instanceGroupManager: name }) : await r.get({ project: P, ...at, instanceGroupManager: name })).data as Obj,
        resize: async (at, name, size) => void (await awaited('zone' in at ? z.resize({ project: P, ...at, instanceGroupManager: name, size }) : r.resize({ project: P, ...at, instanceGroupManager: name, size }))),
        listManagedInstances: async (at, name) =>
          ('zone' in at ? await z.listManagedInstances({ project: P, ...at, instanceGroupManager: name }) : await r.listManagedInstances({ project: P, ...at, instanceGroupManager: name })).data.managedInstances ?? [],
        createInstances: async (at, name, names) => {
          const requestBody = { instances: names.map((n) => ({ name: n })) };
          await awaited('zone' in at ? z.createInstances({ project: P, ...at, instanceGroupManager: name, requestBody }) : r.createInstances({ project: P, ...at, instanceGroupManager: name, requestBody }));
        },
        setInstanceTemplate: async (at, name, instanceTemplate) => {
          await awaited('zone' in at ? z.setInstanceTemplate({ project: P, ...at, instanceGroupManager: name, requestBody: { instanceTemplate } }) : r.setInstanceTemplate({ project: P, ...at, instanceGroupManager: name, requestBody: { instanceTemplate } }));
        },
        patch: async (at, name, b) => void (await awaited('zone' in at ? z.patch({ project: P, ...at, instanceGroupManager: name, requestBody: b }) : r.patch({ project: P, ...at, instanceGroupManager: name, requestBody: b }))),
        deleteInstances: async (at, name, instances) => {
          await awaited('zone' in at ? z.deleteInstances({ project: P, ...at, instanceGroupManager: name, requestBody: { instances } }) : r.deleteInstances({ project: P, ...at, instanceGroupManager: name, requestBody: { instances } }));
        },
        delete: async (at, name) => {
          await awaited('zone' in at ? z.delete({ project: P, ...at, instanceGroupManager: name }) : r.delete({ project: P, ...at, instanceGroupManager: name }));
          await refused('zone' in at ? z.get({ project: P, ...at, instanceGroupManager: name }) : r.get({ project: P, ...at, instanceGroupManager: name }), 404, 'notFound', /was not found/);
        },
      },
      templateDeleteRefusedInUse: (name, user) => refused(compute.instanceTemplates.delete({ project: P, instanceTemplate: name }), 400, 'resourceInUseByAnotherResource', new RegExp(`is already being used by '.*${user.source}`)),
      deleteTemplate: async (name) => void (await awaited(compute.instanceTemplates.delete({ project: P, instanceTemplate: name }))),
      deleteFirewall: async (name) => void (await awaited(compute.firewalls.delete({ project: P, firewall: name }))),
      deleteSubnetwork: async (name) => void (await awaited(compute.subnetworks.delete({ project: P, region: REGION, subnetwork: name }))),
      deleteNetwork: async (name) => void (await awaited(compute.networks.delete({ project: P, network: name }))),
    };
    await walkThePath(api, 'gapi', '10.41.0.0/24');
  });

  it('googleapis compute v1: a stale fingerprint (412), a service account without actAs, a machine type the zone does not have', async () => {
    const vm = (name: string, extra: Obj = {}) => ({
      name,
      machineType: `zones/${ZONE}/machineTypes/e2-small`,
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
      networkInterfaces: [{ network: 'global/networks/default' }],
      ...extra,
    });
    await awaited(compute.instances.insert({ project: P, zone: ZONE, requestBody: vm('gapi-vm') }));
    const { labelFingerprint } = (await compute.instances.get({ project: P, zone: ZONE, instance: 'gapi-vm' })).data;
    await awaited(compute.instances.setLabels({ project: P, zone: ZONE, instance: 'gapi-vm', requestBody: { labels: { env: 'test' }, labelFingerprint } }));
    await refused(compute.instances.setLabels({ project: P, zone: ZONE, instance: 'gapi-vm', requestBody: { labels: {}, labelFingerprint } }), 412, 'conditionNotMet', /fingerprint/);
    const withAccount = vm('gapi-sa', { serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }] });
    await refused(coraCompute.instances.insert({ project: P, zone: ZONE, requestBody: withAccount }), 400, 'badRequest', /does not have access to service account/);
    await refused(compute.instances.insert({ project: P, zone: ZONE, requestBody: vm('gapi-x', { machineType: `zones/${ZONE}/machineTypes/n9-mega-7` }) }), 400, 'invalid', /Machine type with name 'n9-mega-7' does not exist in zone/);
    await awaited(compute.instances.delete({ project: P, zone: ZONE, instance: 'gapi-vm' }));
  });

  it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
    assert.ok((await assertJournalConforms(twin.server.url, twin.server.adminToken)) > 50);
  });
});
