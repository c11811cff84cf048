/**
 * The world readable as Compute serves it: get / list / aggregatedList of every kind of
 * RESOURCE_KINDS (one generic mechanism), images.getFromFamily, IAM, paging, filter and orderBy,
 * the methods not offered, distinct built-in ids. Every answer is also checked against the
 * discovery document's schemas (startTestTwin's conformance recorder).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_KINDS } from '../../src/services/compute/worldResources.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL, MALLORY, OTHER } from '../support/world.ts';
import { LINK, NINA, P, VIC, assertComputeError, computeWorld } from './compute.helpers.ts';

const V1 = '/compute/v1';
const world = {
  ...computeWorld,
  compute: {
    ...computeWorld.compute,
    disks: [...computeWorld.compute.disks, { name: 'rdisk-1', project: P, region: 'us-central1', sizeGb: 200 }],
    addresses: [...computeWorld.compute.addresses, { name: 'ip-global', project: P, address: '35.1.2.3' }],
    machineTypes: [{ name: 'my-type', project: P, zone: 'us-central1-a', guestCpus: '6', memoryMb: 6144 }],
    acceleratorTypes: [{ name: 'my-gpu', project: P, zone: 'us-central1-a', description: 'A GPU of our own' }],
    instances: [{ name: 'vm-1', project: P, zone: 'us-central1-b', machineType: 'e2-small', status: 'TERMINATED' }],
  },
};

/** A collection URL per kind, with a name the world or the catalogue has there. */
const SAMPLES: Record<string, [collection: string, name: string]> = {
  regions: [`projects/${P}/regions`, 'us-central1'],
  zones: [`projects/${P}/zones`, 'us-central1-a'],
  networks: [`projects/${P}/global/networks`, 'custom-net'],
  subnetworks: [`projects/${P}/regions/us-central1/subnetworks`, 'sub-a'],
  images: [`projects/${P}/global/images`, 'my-image-v1'],
  snapshots: [`projects/${P}/global/snapshots`, 'snap-1'],
  disks: [`projects/${P}/zones/us-central1-a/disks`, 'disk-1'],
  regionDisks: [`projects/${P}/regions/us-central1/disks`, 'rdisk-1'],
  instances: [`projects/${P}/zones/us-central1-b/instances`, 'vm-1'],
  reservations: [`projects/${P}/zones/us-central1-a/reservations`, 'res-1'],
  addresses: [`projects/${P}/regions/us-central1/addresses`, 'ip-std'],
  globalAddresses: [`projects/${P}/global/addresses`, 'ip-global'],
  machineTypes: [`projects/${P}/zones/us-central1-a/machineTypes`, 'e2-medium'],
  acceleratorTypes: [`projects/${P}/zones/us-central1-a/acceleratorTypes`, 'nvidia-l4'],
};

describe('the world as Compute serves it', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world });
  });
  after(() => t.close());
  const get = (url: string, who = VIC) => t.call(who, { method: 'GET', url: `${V1}/${url}` });

  test('every kind: list and get answer the real GET shape; get by name and by id; each list item is what get answers', async () => {
    // The world's read-only kinds, and the kinds the API writes too (their world entries are ordinary resources).
    const written = [['networks', 'Network'], ['subnetworks', 'Subnetwork'], ['instances', 'Instance'], ['disks', 'Disk'], ['snapshots', 'Snapshot'], ['addresses', 'Address'], ['globalAddresses', 'Address']];
    const kinds = [...RESOURCE_KINDS, ...written.map(([resource, schema]) => ({ resource, schema }))];
    assert.deepEqual(Object.keys(SAMPLES).sort(), kinds.map((k) => k.resource).sort());
    for (const k of kinds) {
      const [collection, name] = SAMPLES[k.resource];
      const list = await get(collection);
      assert.equal(list.statusCode, 200, `${k.resource}: ${list.body}`);
      const body = list.json();
      assert.equal(body.kind, `compute#${k.schema[0].toLowerCase()}${k.schema.slice(1)}List`);
      assert.equal(body.id, collection);
      assert.equal(body.selfLink, LINK + collection);
      const item = body.items.find((i: any) => i.name === name);
      assert.ok(item, `${k.resource}: ${name} listed`);
      for (const field of ['kind', 'id', 'creationTimestamp', 'selfLink']) assert.ok(item[field], `${k.resource}.${field}`);
      assert.match(item.id, /^[0-9]+$/);
      const one = await get(`${collection}/${name}`);
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(one.json(), item);
      assert.equal(item.selfLink, k.resource === 'regions' || k.resource === 'zones' ? `${LINK}${collection}/${name}` : `${LINK}${collection}/${name}`);
      const byId = await get(`${collection}/${item.id}`);
      assert.equal(byId.statusCode, 200, `${k.resource} by id: ${byId.body}`);
      assert.equal(byId.json().name, name);
    }
  });

  test('entries render with links and defaults, and only fields of the schema', async () => {
    const sub = (await get(`projects/${P}/regions/europe-west1/subnetworks/sub-eu`)).json();
    assert.equal(sub.network, `${LINK}projects/${P}/global/networks/custom-net`);
    assert.equal(sub.region, `${LINK}projects/${P}/regions/europe-west1`);
    assert.equal(sub.project, undefined);
    const vm = (await get(`projects/${P}/zones/us-central1-b/instances/vm-1`)).json();
    assert.equal(vm.zone, `${LINK}projects/${P}/zones/us-central1-b`);
    assert.equal(vm.machineType, `${LINK}projects/${P}/zones/us-central1-b/machineTypes/e2-small`);
    assert.equal(vm.status, 'TERMINATED');
    const disk = (await get(`projects/${P}/regions/us-central1/disks/rdisk-1`)).json();
    assert.equal(disk.sizeGb, '200', 'int64 as a string');
    assert.equal(disk.region, `${LINK}projects/${P}/regions/us-central1`);
    const own = (await get(`projects/${P}/zones/us-central1-a/machineTypes/my-type`)).json();
    assert.equal(own.guestCpus, 6, 'int32 as a number');
    assert.equal(own.zone, 'us-central1-a', "a machine type's zone is the zone's name");
    const mt = (await get(`projects/${P}/zones/us-central1-a/machineTypes/e2-medium`)).json();
    assert.deepEqual([mt.guestCpus, mt.memoryMb, mt.isSharedCpu], [2, 4096, true]);
    // A project whose world declares no network has the auto-mode default network.
    const other = (await get(`projects/${OTHER.projectId}/global/networks`, CAROL)).json();
    assert.deepEqual(other.items.map((n: any) => [n.name, n.autoCreateSubnetworks]), [['default', true]]);
  });

  test('images: the public catalogue is readable by anyone authenticated, every public image project gcloud asks answers; getFromFamily', async () => {
    const debian = await get('projects/debian-cloud/global/images', MALLORY);
    assert.equal(debian.statusCode, 200, debian.body);
    assert.ok(debian.json().items.every((i: any) => i.selfLink.startsWith(`${LINK}projects/debian-cloud/global/images/`)));
    for (const empty of ['rhel-sap-cloud', 'windows-sql-cloud', 'ubuntu-os-pro-cloud']) {
      const r = await get(`projects/${empty}/global/images`, MALLORY);
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json().items, undefined);
    }
    const fam = await get('projects/debian-cloud/global/images/family/debian-12', MALLORY);
    assert.equal(fam.json().family, 'debian-12');
    assert.equal((await get(`projects/${P}/global/images/family/my-fam`)).json().name, 'my-image-v2');
    assertComputeError(await get(`projects/${P}/global/images/family/no-fam`), 404, 'notFound', `The resource 'projects/${P}/global/images/family/no-fam' was not found`);
    assertComputeError(await get(`projects/${P}/global/images`, MALLORY), 403, 'forbidden', `Required 'compute.images.list' permission for 'projects/${P}'`);
  });

  test('list: filter, orderBy, maxResults and pageToken as every Compute list', async () => {
    const url = `projects/${P}/zones/us-central1-a/machineTypes`;
    const all = (await get(url)).json().items.map((i: any) => i.name);
    assert.deepEqual(all, [...all].sort());
    const seen: string[] = [];
    let token = '';
    for (let i = 0; i < 20; i++) {
      const page = (await get(`${url}?maxResults=50${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`)).json();
      seen.push(...page.items.map((x: any) => x.name));
      if (!page.nextPageToken) break;
      token = page.nextPageToken;
    }
    assert.deepEqual(seen, all);
    const e2 = (await get(`${url}?filter=${encodeURIComponent('name eq "e2-.*"')}`)).json().items.map((x: any) => x.name);
    assert.ok(e2.length > 5 && e2.every((n: string) => n.startsWith('e2-')));
    const big = (await get(`${url}?filter=${encodeURIComponent('guestCpus > 100')}`)).json().items.map((x: any) => x.name);
    assert.ok(big.includes('n2d-standard-224') && !big.includes('e2-medium'));
    const images = (await get(`projects/${P}/global/images?orderBy=${encodeURIComponent('creationTimestamp desc')}`)).json().items.map((x: any) => x.name);
    assert.deepEqual(images, ['my-image-v2', 'my-image-v1']);
    assertComputeError(await get(`${url}?orderBy=guestCpus`), 400, 'invalid', /orderBy/);
    assertComputeError(await get(`${url}?maxResults=501`), 400, 'invalidParameter');
    assertComputeError(await get(`${url}?pageToken=nonsense`), 400, 'invalid');
    assertComputeError(await get(`${url}?filter=${encodeURIComponent('name eq (')}`), 400, 'invalid', /filter/);
    assertComputeError(await get(`${url}?bogus=1`), 400, 'badRequest', /Unknown name "bogus"/);
  });

  test('aggregatedList: items keyed by every zone or region, each with its items or a warning', async () => {
    const subs = (await get(`projects/${P}/aggregated/subnetworks`)).json();
    assert.equal(subs.kind, 'compute#subnetworkAggregatedList');
    // `sub-a`, and `default` of the world's auto-mode `default` network.
    assert.deepEqual(subs.items['regions/us-central1'].subnetworks.map((s: any) => s.name), ['default', 'sub-a']);
    assert.deepEqual(subs.items['regions/asia-east1'].subnetworks.map((s: any) => s.name), ['default']);
    const onePage = (await get(`projects/${P}/aggregated/subnetworks?maxResults=2`)).json();
    assert.equal(onePage.items['regions/asia-east1'].warning.code, 'NO_RESULTS_ON_PAGE');
    const types = (await get(`projects/${P}/aggregated/machineTypes?filter=${encodeURIComponent('zone eq us-central1-a')}`)).json();
    const zones = Object.entries(types.items).filter(([, v]: [string, any]) => v.machineTypes).map(([k]) => k);
    assert.deepEqual(zones, ['zones/us-central1-a']);
    assert.ok(types.items['zones/us-central1-a'].machineTypes.some((m: any) => m.name === 'my-type'));
    const gpus = (await get(`projects/${P}/aggregated/acceleratorTypes?maxResults=10`)).json();
    assert.ok(gpus.nextPageToken);
    assert.equal((await get(`projects/${P}/aggregated/networks`)).statusCode, 404, 'networks have no aggregatedList');
  });

  test('IAM, unknown locations and resources, bad names', async () => {
    assertComputeError(await get(`projects/${P}/global/networks`, NINA), 403, 'forbidden', `Required 'compute.networks.list' permission for 'projects/${P}'`);
    assertComputeError(await get(`projects/${P}/global/networks/custom-net`, MALLORY), 403, 'forbidden', `Required 'compute.networks.get' permission for 'projects/${P}/global/networks/custom-net'`);
    assertComputeError(await get(`projects/${P}/zones/us-central1-a/disks`, NINA), 403, 'forbidden', `Required 'compute.disks.list' permission for 'projects/${P}/zones/us-central1-a'`);
    assertComputeError(await get('projects/no-such-project-9/zones', MALLORY), 403, 'forbidden');
    assertComputeError(await get(`projects/${P}/zones/mars-central1-a/machineTypes`), 404, 'notFound', `The resource 'projects/${P}/zones/mars-central1-a' was not found`);
    assertComputeError(await get(`projects/${P}/zones/us-central1-a/disks/nope`), 404, 'notFound', `The resource 'projects/${P}/zones/us-central1-a/disks/nope' was not found`);
    assertComputeError(await get(`projects/${P}/zones/nowhere-9`), 404, 'notFound');
    assertComputeError(await get(`projects/${P}/global/networks/Bad_Name`), 400, 'invalidParameter');
    const noScope = await t.call(VIC, { method: 'GET', url: `${V1}/projects/${P}/global/networks`, scopes: ['https://www.googleapis.com/auth/devstorage.read_only'] });
    assert.equal(noScope.statusCode, 403, noScope.body);
    const anonymous = await t.call(null, { method: 'GET', url: `${V1}/projects/${P}/global/networks` });
    assert.equal(anonymous.statusCode, 401);
  });

  test('methods cloudtwin does not offer answer 501 notImplemented in Compute\'s envelope, never a bare 404', async () => {
    for (const [method, url, id] of [
      ['POST', `projects/${P}/global/networks/custom-net/addPeering`, 'compute.networks.addPeering'],
      ['DELETE', `projects/${P}/global/images/my-image-v1`, 'compute.images.delete'],
      ['POST', `projects/${P}/zones/us-central1-b/instances/vm-1/setMachineType`, 'compute.instances.setMachineType'],
      ['POST', `projects/${P}/regions/us-central1/subnetworks/sub-a/setIamPolicy`, 'compute.subnetworks.setIamPolicy'],
      ['POST', `projects/${P}/global/addresses/ip-global/setLabels`, 'compute.globalAddresses.setLabels'],
    ] as const) {
      const res = await t.call(VIC, { method, url: `${V1}/${url}`, payload: method === 'DELETE' ? undefined : {} });
      const error = assertComputeError(res, 501, 'notImplemented');
      assert.match(error.message, new RegExp(`Method ${id.replaceAll('.', '\\.')} is not offered`));
    }
    assert.equal((await t.call(null, { method: 'POST', url: `${V1}/projects/${P}/global/images`, payload: {} })).statusCode, 401);
  });

  test('every built-in region, zone, image and machine type has a distinct, stable id', async () => {
    const ids = async (url: string) => (await get(url)).json().items.map((i: any) => i.id as string);
    const regions = await ids(`projects/${P}/regions`);
    const zones = await ids(`projects/${P}/zones`);
    const types = await ids(`projects/${P}/zones/us-central1-a/machineTypes`);
    const images: string[] = [];
    for (const p of ['debian-cloud', 'ubuntu-os-cloud', 'cos-cloud', 'windows-cloud', 'rhel-cloud']) images.push(...(await ids(`projects/${p}/global/images`)));
    const every = [...regions, ...zones, ...types, ...images];
    assert.equal(new Set(every).size, every.length, 'no two built-in resources share an id');
    assert.equal(regions.length, 42);
    // Stable: the same ids in another project (they are derived from the names, not from the run).
    const other = await get(`projects/${OTHER.projectId}/regions`, CAROL);
    assert.equal(other.statusCode, 200, other.body);
    assert.deepEqual(other.json().items.map((i: any) => i.id), regions);
    assert.equal(regions[regions.length - 1], (await get(`projects/${P}/regions/us-west4`)).json().id);
  });
});
