/**
 * Compatibility: `@google-cloud/compute` over REST (InstancesClient, DisksClient, SnapshotsClient,
 * AddressesClient, waiting on zone and region operations the way the library does) against a
 * `cloudtwin serve` process: the instance path (from a body and from a global template, stop and
 * start, labels with their fingerprint, a disk snapshotted, an address reserved) and its refusals
 * (a stale fingerprint, a service account without actAs, a machine type the zone does not have, a
 * disk in use). Every answer the server journaled is checked against the discovery document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { AddressesClient, DisksClient, InstanceTemplatesClient, InstancesClient, SnapshotsClient } from '@google-cloud/compute';
import { rejectsWithCode } from '../support/gax.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { CORA, LINK, P, REGION, templateBody } from '../http/compute.helpers.ts';
import { type ComputeClientsServer, startComputeClientsServer } from './compute.clients.helpers.ts';

const ZONE = 'us-central1-a';
const IMAGE = 'projects/debian-cloud/global/images/family/debian-12';
const vm = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  machineType: `zones/${ZONE}/machineTypes/e2-medium`,
  disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: IMAGE } }],
  networkInterfaces: [{ network: 'global/networks/default' }],
  ...extra,
});

describe('instances with @google-cloud/compute against cloudtwin serve', () => {
  let twin: ComputeClientsServer;
  let finished: ComputeClientsServer['finished'];
  let instances: InstancesClient;
  let coraInstances: InstancesClient;
  let templates: InstanceTemplatesClient;
  let disks: DisksClient;
  let snapshots: SnapshotsClient;
  let addresses: AddressesClient;

  before(async () => {
    twin = await startComputeClientsServer([CORA]);
    finished = twin.finished;
    const carol = twin.clientOptions(CAROL);
    instances = twin.keep(new InstancesClient(carol));
    coraInstances = twin.keep(new InstancesClient(twin.clientOptions(CORA)));
    templates = twin.keep(new InstanceTemplatesClient(carol));
    disks = twin.keep(new DisksClient(carol));
    snapshots = twin.keep(new SnapshotsClient(carol));
    addresses = twin.keep(new AddressesClient(carol));
  });

  after(() => twin?.close());

  it('insert, get, list, aggregatedList, stop, start, setLabels (a stale fingerprint refused), delete', async () => {
    const op = await finished(instances.insert({ project: P, zone: ZONE, instanceResource: vm('cx-vm') }));
    assert.equal(op.zone, `${LINK}projects/${P}/zones/${ZONE}`);
    const [i] = await instances.get({ project: P, zone: ZONE, instance: 'cx-vm' });
    assert.equal(i.status, 'RUNNING');
    assert.match(i.networkInterfaces![0].networkIP!, /^10\.128\.\d+\.\d+$/);
    const listed: string[] = [];
    for await (const x of instances.listAsync({ project: P, zone: ZONE })) listed.push(x.name!);
    assert.deepEqual(listed, ['cx-vm']);
    const aggregated: string[] = [];
    for await (const [scope, list] of instances.aggregatedListAsync({ project: P })) for (const x of list.instances ?? []) aggregated.push(`${scope}/${x.name}`);
    // Beside the world's vm-1 in us-central1-b.
    assert.deepEqual(aggregated.sort(), [`zones/${ZONE}/cx-vm`, 'zones/us-central1-b/vm-1']);

    await finished(instances.stop({ project: P, zone: ZONE, instance: 'cx-vm' }));
    assert.equal((await instances.get({ project: P, zone: ZONE, instance: 'cx-vm' }))[0].status, 'TERMINATED');
    await finished(instances.start({ project: P, zone: ZONE, instance: 'cx-vm' }));
    assert.equal((await instances.get({ project: P, zone: ZONE, instance: 'cx-vm' }))[0].status, 'RUNNING');

    await finished(instances.setLabels({ project: P, zone: ZONE, instance: 'cx-vm', instancesSetLabelsRequestResource: { labels: { env: 'test' }, labelFingerprint: i.labelFingerprint } }));
    const [labelled] = await instances.get({ project: P, zone: ZONE, instance: 'cx-vm' });
    assert.deepEqual(labelled.labels, { env: 'test' });
    // HTTP 412 is FAILED_PRECONDITION (9) in the library.
    await rejectsWithCode(instances.setLabels({ project: P, zone: ZONE, instance: 'cx-vm', instancesSetLabelsRequestResource: { labels: {}, labelFingerprint: i.labelFingerprint } }), 9, /fingerprint/);

    await finished(instances.delete({ project: P, zone: ZONE, instance: 'cx-vm' }));
    await rejectsWithCode(instances.get({ project: P, zone: ZONE, instance: 'cx-vm' }), 5, /was not found/);
  });

  it('insert from a global template, the body over its properties', async () => {
    await finished(templates.insert({ project: P, instanceTemplateResource: templateBody('cx-tpl', { labels: { from: 'template' } }) }));
    await finished(instances.insert({ project: P, zone: ZONE, sourceInstanceTemplate: 'global/instanceTemplates/cx-tpl', instanceResource: { name: 'cx-vm-t', labels: { from: 'body' } } }));
    const [i] = await instances.get({ project: P, zone: ZONE, instance: 'cx-vm-t' });
    assert.deepEqual(i.labels, { from: 'body' });
    assert.equal(i.machineType, `${LINK}projects/${P}/zones/${ZONE}/machineTypes/e2-medium`);
    await finished(instances.delete({ project: P, zone: ZONE, instance: 'cx-vm-t' }));
    await finished(templates.delete({ project: P, instanceTemplate: 'cx-tpl' }));
  });

  it('disks, snapshots, addresses; the refusals: actAs, the zone\'s machine types, a disk in use', async () => {
    await finished(disks.insert({ project: P, zone: ZONE, diskResource: { name: 'cx-data', sizeGb: '50' } }));
    await finished(disks.createSnapshot({ project: P, zone: ZONE, disk: 'cx-data', snapshotResource: { name: 'cx-snap' } }));
    const [snap] = await snapshots.get({ project: P, snapshot: 'cx-snap' });
    assert.deepEqual([snap.status, snap.diskSizeGb], ['READY', '50']);
    await finished(snapshots.delete({ project: P, snapshot: 'cx-snap' }));
    await finished(disks.delete({ project: P, zone: ZONE, disk: 'cx-data' }));
    await finished(addresses.insert({ project: P, region: REGION, addressResource: { name: 'cx-ip' } }));
    assert.equal((await addresses.get({ project: P, region: REGION, address: 'cx-ip' }))[0].status, 'RESERVED');
    await finished(addresses.delete({ project: P, region: REGION, address: 'cx-ip' }));

    const withAccount = vm('cx-sa', { serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }] });
    await rejectsWithCode(coraInstances.insert({ project: P, zone: ZONE, instanceResource: withAccount }), 3, /does not have access to service account/);
    await rejectsWithCode(instances.insert({ project: P, zone: ZONE, instanceResource: vm('cx-x', { machineType: `zones/${ZONE}/machineTypes/n9-mega-7` }) }), 3, /Machine type with name 'n9-mega-7' does not exist in zone/);
    await finished(instances.insert({ project: P, zone: ZONE, instanceResource: vm('cx-d') }));
    await rejectsWithCode(disks.delete({ project: P, zone: ZONE, disk: 'cx-d' }), 3, /is already being used by/);
    await finished(instances.delete({ project: P, zone: ZONE, instance: 'cx-d' }));
  });

  it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
    assert.ok((await assertJournalConforms(twin.server.url, twin.server.adminToken)) > 20);
  });
});
