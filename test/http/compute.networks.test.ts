/**
 * Networks, subnetworks and firewalls written through the API: insert, get, list, patch, delete
 * with Compute's rules (auto and custom mode, CIDR ranges and overlaps, firewall rules), the
 * refusals (a network or subnetwork in use, a stale fingerprint), the default network a project
 * comes with, operations in instant and delayed mode, requestId idempotency and IAM. Every answer
 * is checked against the discovery document (startTestTwin's conformance recorder).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL, MALLORY, OTHER } from '../support/world.ts';
import { CORA, LINK, P, VIC, assertComputeError, computeWorld, insertTemplate, templateBody } from './compute.helpers.ts';
import { advanceClock, setOperationsMode } from './helpers.ts';

const V1 = '/compute/v1';
const networks = (project = P) => `${V1}/projects/${project}/global/networks`;
const subnetworks = (region = 'us-central1', project = P) => `${V1}/projects/${project}/regions/${region}/subnetworks`;
const firewalls = (project = P) => `${V1}/projects/${project}/global/firewalls`;

describe('networks, subnetworks and firewalls', () => {
  let t: TestTwin;
  const as = (who: string) => ({
    post: (url: string, payload: unknown) => t.call(who, { method: 'POST', url, payload: payload as Record<string, unknown> }),
    patch: (url: string, payload: unknown) => t.call(who, { method: 'PATCH', url, payload: payload as Record<string, unknown> }),
    put: (url: string, payload: unknown) => t.call(who, { method: 'PUT', url, payload: payload as Record<string, unknown> }),
    get: (url: string) => t.call(who, { method: 'GET', url }),
    del: (url: string) => t.call(who, { method: 'DELETE', url }),
  });
  const admin = () => as(CAROL);
  /** A write that must end DONE without error: its operation. */
  const done = async (res: Awaited<ReturnType<ReturnType<typeof as>['post']>>) => {
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.equal(op.status, 'DONE', res.body);
    assert.equal(op.error, undefined, res.body);
    return op;
  };
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('a custom-mode network: insert answers a DONE operation, get the network as Compute answers it', async () => {
    const op = await done(await admin().post(networks(), { name: 'net-custom', autoCreateSubnetworks: false, description: 'mine' }));
    assert.equal(op.operationType, 'insert');
    assert.equal(op.targetLink, `${LINK}projects/${P}/global/networks/net-custom`);
    assert.equal(op.selfLink.startsWith(`${LINK}projects/${P}/global/operations/`), true);
    const net = (await as(VIC).get(`${networks()}/net-custom`)).json();
    assert.equal(net.kind, 'compute#network');
    assert.equal(net.id, op.targetId);
    assert.equal(net.selfLink, `${LINK}projects/${P}/global/networks/net-custom`);
    assert.equal(net.selfLinkWithId, `${LINK}projects/${P}/global/networks/${net.id}`);
    assert.deepEqual(net.routingConfig, { routingMode: 'REGIONAL', bgpBestPathSelectionMode: 'LEGACY' });
    assert.equal(net.autoCreateSubnetworks, false);
    assert.equal(net.mtu, 1460);
    assert.equal(net.networkFirewallPolicyEnforcementOrder, 'AFTER_CLASSIC_FIREWALL');
    assert.equal(net.subnetworks, undefined);
    assert.match(net.creationTimestamp, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual((await as(VIC).get(`${networks()}/${net.id}`)).json(), net, 'by id too');
    const list = (await as(VIC).get(networks())).json();
    assert.deepEqual(list.items.find((n: any) => n.name === 'net-custom'), net);
    assertComputeError(await admin().post(networks(), { name: 'net-custom', autoCreateSubnetworks: false }), 409, 'alreadyExists', `The resource 'projects/${P}/global/networks/net-custom' already exists`);
  });

  test('an auto-mode network gets a subnetwork in every region with its auto-mode range, and they go with it', async () => {
    await done(await admin().post(networks(), { name: 'net-auto', autoCreateSubnetworks: true, routingConfig: { routingMode: 'GLOBAL' } }));
    const net = (await as(VIC).get(`${networks()}/net-auto`)).json();
    assert.deepEqual(net.routingConfig, { routingMode: 'GLOBAL', bgpBestPathSelectionMode: 'LEGACY' });
    assert.equal(net.subnetworks.length, 42);
    assert.ok(net.subnetworks.includes(`${LINK}projects/${P}/regions/us-central1/subnetworks/net-auto`));
    const central = (await as(VIC).get(`${subnetworks()}/net-auto`)).json();
    assert.equal(central.ipCidrRange, '10.128.0.0/20');
    assert.equal(central.gatewayAddress, '10.128.0.1');
    assert.equal(central.network, `${LINK}projects/${P}/global/networks/net-auto`);
    assert.equal((await as(VIC).get(`${subnetworks('europe-west1')}/net-auto`)).json().ipCidrRange, '10.132.0.0/20');
    assertComputeError(await admin().del(`${subnetworks()}/net-auto`), 400, 'invalid', /Cannot delete auto subnetwork/);
    // A custom subnetwork of an auto-mode network stays out of 10.128.0.0/9.
    assertComputeError(await admin().post(subnetworks(), { name: 'in-auto', network: 'global/networks/net-auto', ipCidrRange: '10.130.0.0/24' }), 400, 'invalid', /conflicts with the auto mode range 10\.128\.0\.0\/9/);
    await done(await admin().post(subnetworks(), { name: 'beside-auto', network: 'global/networks/net-auto', ipCidrRange: '192.168.7.0/24' }));
    assertComputeError(await admin().del(`${networks()}/net-auto`), 400, 'resourceInUseByAnotherResource', `The network resource 'projects/${P}/global/networks/net-auto' is already being used by 'projects/${P}/regions/us-central1/subnetworks/beside-auto'`);
    await done(await admin().del(`${subnetworks()}/beside-auto`));
    await done(await admin().del(`${networks()}/net-auto`));
    assertComputeError(await as(VIC).get(`${subnetworks()}/net-auto`), 404, 'notFound');
    const agg = (await as(VIC).get(`${V1}/projects/${P}/aggregated/subnetworks`)).json();
    assert.ok(!JSON.stringify(agg).includes('/subnetworks/net-auto'));
  });

  test('ULA internal IPv6: a /48 in fd20::/20 allocated; networkProfile answered as a full URL', async () => {
    await done(await admin().post(networks(), { name: 'net-v6', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, networkProfile: `projects/${P}/global/networkProfiles/us-central1-a-vpc-roce` }));
    const net = (await as(VIC).get(`${networks()}/net-v6`)).json();
    assert.match(net.internalIpv6Range, /^fd20:[0-9a-f]{1,3}:[0-9a-f]{1,4}:0:0:0:0:0\/48$/);
    assert.equal(net.networkProfile, `${LINK}projects/${P}/global/networkProfiles/us-central1-a-vpc-roce`);
    await done(await admin().post(networks(), { name: 'net-v6b', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, internalIpv6Range: 'fd20:abc:1234::/48' }));
    assert.equal((await as(VIC).get(`${networks()}/net-v6b`)).json().internalIpv6Range, 'fd20:abc:1234:0:0:0:0:0/48');
    assertComputeError(await admin().post(networks(), { name: 'net-v6c', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, internalIpv6Range: 'fd30::/48' }), 400, 'invalid', /fd20::\/20/);
  });

  test('insert refusals: name, mode, mtu, unknown fields (the transcoder\'s 400)', async () => {
    assertComputeError(await admin().post(networks(), { autoCreateSubnetworks: false }), 400, 'required', "Required field 'resource.name' not specified");
    assertComputeError(await admin().post(networks(), { name: 'Bad_Name', autoCreateSubnetworks: false }), 400, 'invalid', /Must be a match of regex/);
    assertComputeError(await admin().post(networks(), { name: 'no-mode' }), 400, 'invalid', /autoCreateSubnetworks/);
    assertComputeError(await admin().post(networks(), { name: 'mtu-low', autoCreateSubnetworks: false, mtu: 100 }), 400, 'invalid', /between 1300 and 8896/);
    const unknown = await admin().post(networks(), { name: 'odd', autoCreateSubnetworks: false, colour: 'red' });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /Unknown name "colour" at 'network_resource': Cannot find field\./);
    const wrongType = await admin().post(networks(), { name: 'odd', autoCreateSubnetworks: 'yes' });
    assert.equal(wrongType.statusCode, 400, wrongType.body);
    assert.match(wrongType.json().error.message, /network_resource\.auto_create_subnetworks/);
  });

  test('subnetworks: CIDR rules, overlaps within the network, the region, the network', async () => {
    await done(await admin().post(networks(), { name: 'net-s', autoCreateSubnetworks: false }));
    const op = await done(await admin().post(subnetworks(), { name: 'sub-1', network: `projects/${P}/global/networks/net-s`, ipCidrRange: '10.10.0.0/24', secondaryIpRanges: [{ rangeName: 'pods', ipCidrRange: '10.20.0.0/16' }] }));
    assert.equal(op.operationType, 'insert');
    assert.equal(op.region, `${LINK}projects/${P}/regions/us-central1`);
    const sub = (await as(VIC).get(`${subnetworks()}/sub-1`)).json();
    assert.equal(sub.gatewayAddress, '10.10.0.1');
    assert.equal(sub.region, `${LINK}projects/${P}/regions/us-central1`);
    assert.equal(sub.network, `${LINK}projects/${P}/global/networks/net-s`);
    assert.deepEqual(sub.secondaryIpRanges, [{ rangeName: 'pods', ipCidrRange: '10.20.0.0/16' }]);
    assert.equal(sub.privateIpGoogleAccess, false);
    assert.equal(sub.stackType, 'IPV4_ONLY');
    assert.match(sub.fingerprint, /^[A-Za-z0-9+/]{11}=$/);
    assert.deepEqual((await as(VIC).get(`${networks()}/net-s`)).json().subnetworks, [`${LINK}projects/${P}/regions/us-central1/subnetworks/sub-1`]);
    const sub2 = { network: 'global/networks/net-s' };
    // Overlaps with any range of the network's subnetworks, in any region.
    assertComputeError(await admin().post(subnetworks('europe-west1'), { ...sub2, name: 'sub-x', ipCidrRange: '10.10.0.128/25' }), 400, 'invalid', `Invalid value for field 'resource.ipCidrRange': '10.10.0.128/25'. Invalid IPCidrRange: 10.10.0.128/25 conflicts with existing subnetwork 'sub-1' in region 'us-central1'.`);
    assertComputeError(await admin().post(subnetworks(), { ...sub2, name: 'sub-x', ipCidrRange: '10.20.5.0/24' }), 400, 'invalid', /conflicts with existing subnetwork 'sub-1'/);
    assertComputeError(await admin().post(subnetworks(), { ...sub2, name: 'sub-x', ipCidrRange: '10.30.0.0/24', secondaryIpRanges: [{ rangeName: 'a', ipCidrRange: '10.30.0.0/28' }] }), 400, 'invalid', /conflicts with 10\.30\.0\.0\/24 of the same subnetwork/);
    // Ranges that are not ranges.
    for (const bad of ['10.0.0.1/24', '10.0.0.0/33', 'ten', '10.0.0.0', '10.0.0.0/30', '127.0.0.0/24', '2001:db8::/64']) {
      assertComputeError(await admin().post(subnetworks(), { ...sub2, name: 'sub-x', ipCidrRange: bad }), 400, 'invalid', /Invalid IPCidrRange/);
    }
    assertComputeError(await admin().post(subnetworks(), { ...sub2, name: 'sub-x' }), 400, 'required', "Required field 'resource.ipCidrRange' not specified");
    assertComputeError(await admin().post(subnetworks(), { name: 'sub-x', ipCidrRange: '10.40.0.0/24' }), 400, 'required', "Required field 'resource.network' not specified");
    assertComputeError(await admin().post(subnetworks(), { name: 'sub-x', network: 'global/networks/nope', ipCidrRange: '10.40.0.0/24' }), 404, 'notFound', `The resource 'projects/${P}/global/networks/nope' was not found`);
    assertComputeError(await admin().post(subnetworks('mars-central1'), { ...sub2, name: 'sub-x', ipCidrRange: '10.40.0.0/24' }), 404, 'notFound', `The resource 'projects/${P}/regions/mars-central1' was not found`);
    assertComputeError(await admin().post(subnetworks(), { name: 'sub-x', network: 'global/networks/legacy-net', ipCidrRange: '10.40.0.0/24' }), 400, 'invalid', /legacy network/);
    // The same range in another network is fine.
    await done(await admin().post(networks(), { name: 'net-s2', autoCreateSubnetworks: false }));
    await done(await admin().post(subnetworks(), { name: 'sub-same', network: 'global/networks/net-s2', ipCidrRange: '10.10.0.0/24' }));
  });

  test('subnetwork patch needs the current fingerprint; expandIpCidrRange and setPrivateIpGoogleAccess', async () => {
    await done(await admin().post(networks(), { name: 'net-p', autoCreateSubnetworks: false }));
    await done(await admin().post(subnetworks(), { name: 'sub-p', network: 'global/networks/net-p', ipCidrRange: '10.50.0.0/24' }));
    const before = (await as(VIC).get(`${subnetworks()}/sub-p`)).json();
    assertComputeError(await admin().patch(`${subnetworks()}/sub-p`, { privateIpGoogleAccess: true }), 412, 'conditionNotMet');
    assertComputeError(await admin().patch(`${subnetworks()}/sub-p`, { privateIpGoogleAccess: true, fingerprint: 'AAAAAAAAAAA=' }), 412, 'conditionNotMet');
    const op = await done(await admin().patch(`${subnetworks()}/sub-p`, { privateIpGoogleAccess: true, description: 'patched', fingerprint: before.fingerprint }));
    assert.equal(op.operationType, 'patch');
    const after = (await as(VIC).get(`${subnetworks()}/sub-p`)).json();
    assert.equal(after.privateIpGoogleAccess, true);
    assert.equal(after.description, 'patched');
    assert.notEqual(after.fingerprint, before.fingerprint);
    assertComputeError(await admin().patch(`${subnetworks()}/sub-p`, { ipCidrRange: '10.60.0.0/24', fingerprint: after.fingerprint }), 400, 'invalid', /cannot be changed/);
    await done(await admin().post(`${subnetworks()}/sub-p/expandIpCidrRange`, { ipCidrRange: '10.50.0.0/23' }));
    assert.equal((await as(VIC).get(`${subnetworks()}/sub-p`)).json().ipCidrRange, '10.50.0.0/23');
    assertComputeError(await admin().post(`${subnetworks()}/sub-p/expandIpCidrRange`, { ipCidrRange: '10.50.0.0/24' }), 400, 'invalid', /must contain the current range/);
    await done(await admin().post(`${subnetworks()}/sub-p/setPrivateIpGoogleAccess`, { privateIpGoogleAccess: false }));
    assert.equal((await as(VIC).get(`${subnetworks()}/sub-p`)).json().privateIpGoogleAccess, false);
  });

  test('firewalls: defaults, rules refused, patch merges, update replaces, delete', async () => {
    await done(await admin().post(networks(), { name: 'net-fw', autoCreateSubnetworks: false }));
    await done(await admin().post(firewalls(), { name: 'fw-ssh', network: 'global/networks/net-fw', allowed: [{ IPProtocol: 'tcp', ports: ['22', '8000-8080'] }], targetTags: ['web'] }));
    const fw = (await as(VIC).get(`${firewalls()}/fw-ssh`)).json();
    assert.equal(fw.kind, 'compute#firewall');
    assert.equal(fw.network, `${LINK}projects/${P}/global/networks/net-fw`);
    assert.deepEqual([fw.direction, fw.priority, fw.disabled], ['INGRESS', 1000, false]);
    assert.deepEqual(fw.sourceRanges, ['0.0.0.0/0']);
    assert.deepEqual(fw.logConfig, { enable: false });
    assert.equal(fw.selfLink, `${LINK}projects/${P}/global/firewalls/fw-ssh`);
    await done(await admin().post(firewalls(), { name: 'fw-out', network: 'global/networks/net-fw', direction: 'EGRESS', denied: [{ IPProtocol: 'all' }], priority: 0 }));
    assert.deepEqual((await as(VIC).get(`${firewalls()}/fw-out`)).json().destinationRanges, ['0.0.0.0/0']);
    const base = { network: 'global/networks/net-fw', name: 'fw-bad' };
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ ...base, allowed: [{ IPProtocol: 'tcp', ports: ['70000'] }] }, /ports\[0\]/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp', ports: ['90-80'] }] }, /range of ports/],
      [{ ...base, allowed: [{ IPProtocol: 'icmp', ports: ['22'] }] }, /only for tcp, udp and sctp/],
      [{ ...base, allowed: [{ IPProtocol: 'bogus' }] }, /IPProtocol/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], denied: [{ IPProtocol: 'udp' }] }, /not both/],
      [{ ...base }, /'allowed' or 'denied'/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], priority: 65536 }, /between 0 and 65535/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], sourceRanges: ['10.0.0.0/99'] }, /sourceRanges\[0\]/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], targetTags: ['Web'] }, /targetTags\[0\]/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], targetTags: ['web'], targetServiceAccounts: ['a@b.iam.gserviceaccount.com'] }, /cannot be used together/],
      [{ ...base, allowed: [{ IPProtocol: 'tcp' }], direction: 'EGRESS', sourceTags: ['web'] }, /EGRESS rule takes no source/],
    ];
    for (const [body, message] of refusals) assertComputeError(await admin().post(firewalls(), body), 400, 'invalid', message);
    assertComputeError(await admin().post(firewalls(), { ...base, network: 'global/networks/nope', allowed: [{ IPProtocol: 'tcp' }] }), 404, 'notFound', `The resource 'projects/${P}/global/networks/nope' was not found`);
    const patched = await done(await admin().patch(`${firewalls()}/fw-ssh`, { priority: 500, sourceRanges: ['10.0.0.0/8'] }));
    assert.equal(patched.operationType, 'patch');
    const afterPatch = (await as(VIC).get(`${firewalls()}/fw-ssh`)).json();
    assert.deepEqual([afterPatch.priority, afterPatch.sourceRanges, afterPatch.targetTags], [500, ['10.0.0.0/8'], ['web']]);
    const updated = await done(await admin().put(`${firewalls()}/fw-ssh`, { name: 'fw-ssh', allowed: [{ IPProtocol: 'udp', ports: ['53'] }] }));
    assert.equal(updated.operationType, 'update');
    const afterUpdate = (await as(VIC).get(`${firewalls()}/fw-ssh`)).json();
    assert.deepEqual([afterUpdate.priority, afterUpdate.targetTags, afterUpdate.allowed, afterUpdate.sourceRanges], [1000, undefined, [{ IPProtocol: 'udp', ports: ['53'] }], ['0.0.0.0/0']]);
    assertComputeError(await admin().patch(`${firewalls()}/fw-ssh`, { network: 'global/networks/default' }), 400, 'invalid', /cannot be changed/);
    assertComputeError(await admin().del(`${networks()}/net-fw`), 400, 'resourceInUseByAnotherResource', `The network resource 'projects/${P}/global/networks/net-fw' is already being used by 'projects/${P}/global/firewalls/fw-out'`);
    await done(await admin().del(`${firewalls()}/fw-out`));
    await done(await admin().del(`${firewalls()}/fw-ssh`));
    await done(await admin().del(`${networks()}/net-fw`));
    assertComputeError(await as(VIC).get(`${firewalls()}/fw-ssh`), 404, 'notFound');
  });

  test('a network or subnetwork a template uses cannot be deleted; nor one a world instance uses', async () => {
    await done(await admin().post(networks(), { name: 'net-t', autoCreateSubnetworks: false }));
    await done(await admin().post(subnetworks(), { name: 'sub-t', network: 'global/networks/net-t', ipCidrRange: '10.70.0.0/24' }));
    const op = await insertTemplate(t, templateBody('uses-net-t', { networkInterfaces: [{ network: 'global/networks/net-t', subnetwork: 'regions/us-central1/subnetworks/sub-t' }] }));
    assert.equal(op.error, undefined, JSON.stringify(op));
    assertComputeError(await admin().del(`${subnetworks()}/sub-t`), 400, 'resourceInUseByAnotherResource', `The subnetwork resource 'projects/${P}/regions/us-central1/subnetworks/sub-t' is already being used by 'projects/${P}/regions/us-central1/instanceTemplates/uses-net-t'`);
    assertComputeError(await admin().del(`${networks()}/net-t`), 400, 'resourceInUseByAnotherResource', /already being used by 'projects\/demo-project\/regions\/us-central1\/(instanceTemplates\/uses-net-t|subnetworks\/sub-t)'/);
    await done(await t.call(CORA, { method: 'DELETE', url: `${V1}/projects/${P}/regions/us-central1/instanceTemplates/uses-net-t` }));
    await done(await admin().del(`${subnetworks()}/sub-t`));
    await done(await admin().del(`${networks()}/net-t`));
  });

  test('the world\'s networks are ordinary resources: patched and deleted through the API', async () => {
    const op = await done(await admin().patch(`${networks()}/custom-net`, { description: 'now described', routingConfig: { routingMode: 'GLOBAL' } }));
    assert.equal(op.operationType, 'patch');
    const net = (await as(VIC).get(`${networks()}/custom-net`)).json();
    assert.deepEqual([net.description, net.routingConfig.routingMode, net.routingConfig.bgpBestPathSelectionMode], ['now described', 'GLOBAL', 'LEGACY']);
    assertComputeError(await admin().patch(`${networks()}/custom-net`, { autoCreateSubnetworks: true }), 400, 'invalid', /cannot be changed/);
    assertComputeError(await admin().del(`${networks()}/custom-net`), 400, 'resourceInUseByAnotherResource', /already being used by 'projects\/demo-project\/regions\/(europe-west1|us-central1)\/subnetworks\/sub-/);
    await done(await admin().del(`${networks()}/legacy-net`));
    assertComputeError(await as(VIC).get(`${networks()}/legacy-net`), 404, 'notFound');
    // switchToCustomMode: the world's auto-mode `default` keeps its subnetworks as ordinary ones.
    await done(await admin().post(`${networks()}/default/switchToCustomMode`, {}));
    assert.equal((await as(VIC).get(`${networks()}/default`)).json().autoCreateSubnetworks, false);
    assertComputeError(await admin().post(`${networks()}/default/switchToCustomMode`, {}), 400, 'invalid');
  });

  test('a project comes with its default network, its subnetworks and four firewall rules; deleting them is final', async () => {
    const carol = as(CAROL);
    const list = (await carol.get(networks(OTHER.projectId))).json();
    assert.deepEqual(list.items.map((n: any) => [n.name, n.autoCreateSubnetworks, n.subnetworks.length]), [['default', true, 42]]);
    const rules = (await carol.get(firewalls(OTHER.projectId))).json().items;
    assert.deepEqual(rules.map((f: any) => f.name), ['default-allow-icmp', 'default-allow-internal', 'default-allow-rdp', 'default-allow-ssh']);
    assert.deepEqual(rules[1].sourceRanges, ['10.128.0.0/9']);
    assert.deepEqual(rules[3].allowed, [{ IPProtocol: 'tcp', ports: ['22'] }]);
    assert.equal(rules[3].priority, 65534);
    assertComputeError(await carol.del(`${networks(OTHER.projectId)}/default`), 400, 'resourceInUseByAnotherResource', /firewalls\/default-allow-icmp/);
    for (const f of rules) await done(await carol.del(`${firewalls(OTHER.projectId)}/${f.name}`));
    await done(await carol.del(`${networks(OTHER.projectId)}/default`));
    assert.equal((await carol.get(networks(OTHER.projectId))).json().items, undefined, 'not made again');
    assert.equal((await carol.get(`${V1}/projects/${OTHER.projectId}/aggregated/subnetworks`)).json().items['regions/us-central1'].warning.code, 'NO_RESULTS_ON_PAGE');
  });

  test('delayed mode: the network exists once its operation has run on the twin\'s clock', async () => {
    await setOperationsMode(t, 'delayed', 10_000);
    try {
      const op = (await admin().post(networks(), { name: 'net-later', autoCreateSubnetworks: false })).json();
      assert.equal(op.status, 'PENDING');
      assertComputeError(await as(VIC).get(`${networks()}/net-later`), 404, 'notFound');
      await advanceClock(t, 11);
      const finished = (await as(VIC).get(new URL(op.selfLink).pathname)).json();
      assert.equal(finished.status, 'DONE');
      assert.equal((await as(VIC).get(`${networks()}/net-later`)).statusCode, 200);
      const del = (await admin().del(`${networks()}/net-later`)).json();
      assert.equal(del.status, 'PENDING');
      assert.equal((await as(VIC).get(`${networks()}/net-later`)).statusCode, 200, 'still there until the delete has run');
      await advanceClock(t, 11);
      assert.equal((await as(VIC).get(new URL(del.selfLink).pathname)).json().status, 'DONE');
      assertComputeError(await as(VIC).get(`${networks()}/net-later`), 404, 'notFound');
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('requestId: a repeated insert answers the first operation', async () => {
    const id = '3f0e0d0c-0b0a-4908-8706-050403020101';
    const first = await done(await admin().post(`${networks()}?requestId=${id}`, { name: 'net-once', autoCreateSubnetworks: false }));
    const again = await admin().post(`${networks()}?requestId=${id}`, { name: 'net-once', autoCreateSubnetworks: false });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().id, first.id);
  });

  test('IAM: the instance admin may not change networks; a stranger learns nothing', async () => {
    assertComputeError(await t.call(CORA, { method: 'POST', url: networks(), payload: { name: 'x-net', autoCreateSubnetworks: false } }), 403, 'forbidden', `Required 'compute.networks.create' permission for 'projects/${P}/global/networks/x-net'`);
    assertComputeError(await t.call(CORA, { method: 'POST', url: firewalls(), payload: { name: 'x-fw', allowed: [{ IPProtocol: 'tcp' }] } }), 403, 'forbidden', /compute\.firewalls\.create/);
    assert.equal((await t.call(CORA, { method: 'GET', url: firewalls() })).statusCode, 200);
    const real = await as(MALLORY).del(`${networks()}/custom-net`);
    const fake = await as(MALLORY).del(`${networks()}/no-such-net`);
    assert.equal(real.body.replaceAll('custom-net', '<n>'), fake.body.replaceAll('no-such-net', '<n>'));
    assertComputeError(real, 403, 'forbidden');
  });
});
