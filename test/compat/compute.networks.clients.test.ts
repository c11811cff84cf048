/**
 * Compatibility: `@google-cloud/compute` (NetworksClient, SubnetworksClient, FirewallsClient over
 * REST, waiting on their operations the way the library does) and `googleapis` compute v1 against
 * a `cloudtwin serve` process: the networking path and its refusals (overlapping range, network
 * in use). Every answer the server journaled is checked against the discovery document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../support/quietClientWarnings.ts';
import { FirewallsClient, NetworksClient, SubnetworksClient } from '@google-cloud/compute';
import type { OAuth2Client } from 'google-auth-library';
import { google } from 'googleapis';
import { rejectsWithCode } from '../support/gax.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { LINK, P, REGION } from '../http/compute.helpers.ts';
import { type ComputeClientsServer, startComputeClientsServer } from './compute.clients.helpers.ts';

describe('networking with @google-cloud/compute and googleapis against cloudtwin serve', () => {
  let twin: ComputeClientsServer;
  let finished: ComputeClientsServer['finished'];
  let auth: OAuth2Client;
  let networks: NetworksClient;
  let subnetworks: SubnetworksClient;
  let firewalls: FirewallsClient;

  before(async () => {
    twin = await startComputeClientsServer();
    finished = twin.finished;
    const opts = twin.clientOptions(CAROL);
    auth = opts.authClient;
    networks = twin.keep(new NetworksClient(opts));
    subnetworks = twin.keep(new SubnetworksClient(opts));
    firewalls = twin.keep(new FirewallsClient(opts));
  });

  after(() => twin?.close());

  it('@google-cloud/compute: network, subnetwork and firewall made, read, refused and deleted, each operation awaited', async () => {
    await finished(networks.insert({ project: P, networkResource: { name: 'gx-net', autoCreateSubnetworks: false, mtu: 1500 } }));
    const [net] = await networks.get({ project: P, network: 'gx-net' });
    assert.equal(net.mtu, 1500);
    assert.equal(net.selfLinkWithId, `${LINK}projects/${P}/global/networks/${net.id}`);
    await finished(subnetworks.insert({ project: P, region: REGION, subnetworkResource: { name: 'gx-sub', network: net.selfLink, ipCidrRange: '10.9.0.0/24' } }));
    await rejectsWithCode(
      subnetworks.insert({ project: P, region: 'europe-west1', subnetworkResource: { name: 'gx-sub2', network: net.selfLink, ipCidrRange: '10.9.0.0/16' } }),
      3,
      /conflicts with existing subnetwork 'gx-sub' in region 'us-central1'/,
    );
    await finished(firewalls.insert({ project: P, firewallResource: { name: 'gx-fw', network: net.selfLink, allowed: [{ IPProtocol: 'tcp', ports: ['443'] }], sourceRanges: ['10.0.0.0/8'] } }));
    const [fw] = await firewalls.get({ project: P, firewall: 'gx-fw' });
    assert.deepEqual([fw.direction, fw.priority, fw.sourceRanges], ['INGRESS', 1000, ['10.0.0.0/8']]);

    const aggregated: string[] = [];
    for await (const [scope, list] of subnetworks.aggregatedListAsync({ project: P })) for (const s of list.subnetworks ?? []) aggregated.push(`${scope}/${s.name}`);
    assert.ok(aggregated.includes('regions/us-central1/gx-sub'), aggregated.join(' '));
    const listed: string[] = [];
    for await (const n of networks.listAsync({ project: P })) listed.push(n.name!);
    assert.ok(listed.includes('gx-net'));

    await rejectsWithCode(networks.delete({ project: P, network: 'gx-net' }), 3, /The network resource 'projects\/demo-project\/global\/networks\/gx-net' is already being used by/);
    await finished(firewalls.delete({ project: P, firewall: 'gx-fw' }));
    await finished(subnetworks.delete({ project: P, region: REGION, subnetwork: 'gx-sub' }));
    await finished(networks.delete({ project: P, network: 'gx-net' }));
    await rejectsWithCode(networks.get({ project: P, network: 'gx-net' }), 5, /was not found/);
  });

  it('googleapis compute v1: insert and wait, the refusals as HTTP errors', async () => {
    const compute = google.compute({ version: 'v1', rootUrl: `${twin.server.url}/`, auth });
    const ins = await compute.networks.insert({ project: P, requestBody: { name: 'gapi-net', autoCreateSubnetworks: false } });
    assert.equal((await compute.globalOperations.wait({ project: P, operation: ins.data.name! })).data.status, 'DONE');
    const sub = await compute.subnetworks.insert({ project: P, region: REGION, requestBody: { name: 'gapi-sub', network: 'global/networks/gapi-net', ipCidrRange: '172.16.0.0/20' } });
    assert.equal((await compute.regionOperations.wait({ project: P, region: REGION, operation: sub.data.name! })).data.status, 'DONE');
    const overlap = await compute.subnetworks.insert({ project: P, region: REGION, requestBody: { name: 'gapi-sub2', network: 'global/networks/gapi-net', ipCidrRange: '172.16.8.0/24' } }).catch((e) => e);
    assert.equal(overlap.status, 400);
    assert.match(overlap.message, /conflicts with existing subnetwork 'gapi-sub'/);
    const inUse = await compute.networks.delete({ project: P, network: 'gapi-net' }).catch((e) => e);
    assert.equal(inUse.status, 400);
    assert.equal(inUse.response.data.error.errors[0].reason, 'resourceInUseByAnotherResource');
    const got = await compute.subnetworks.get({ project: P, region: REGION, subnetwork: 'gapi-sub' });
    assert.equal(got.data.gatewayAddress, '172.16.0.1');
  });

  it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
    assert.ok((await assertJournalConforms(twin.server.url, twin.server.adminToken)) > 10);
  });
});
