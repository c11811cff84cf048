/** The networking rules, without I/O: CIDR ranges, networks, subnetwork overlaps, firewall rules, auto-mode ranges. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/platform/http/errors.ts';
import { REGIONS } from '../../src/services/compute/catalogue.ts';
import { checkedFirewall } from '../../src/services/compute/firewall/resource.ts';
import { AUTO_MODE_RANGES } from '../../src/services/compute/network/autoMode.ts';
import { addressAt, cidrText, contains, gatewayOf, isReserved, overlaps, parseIpv4Cidr } from '../../src/services/compute/network/cidr.ts';
import { allocateUlaRange, networkToInsert, patchedNetwork } from '../../src/services/compute/network/resource.ts';
import { GLOBAL, inRegion } from '../../src/services/compute/scope.ts';
import type { StoredResource } from '../../src/services/compute/store/resources.ts';
import { checkSubnetRange, expandedRange, rangeConflict } from '../../src/services/compute/subnetwork/resource.ts';

const refused = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof ApiError && message.test(e.message), String(message));

const row = (kind: string, name: string, region: string | undefined, body: Record<string, unknown>): StoredResource => ({
  kind, projectNumber: '1', scope: region ? inRegion(region) : GLOBAL, name, id: '1', creationMs: 0, body: { name, ...body },
});

describe('IPv4 ranges', () => {
  test('parse: CIDRs with no host bits only', () => {
    assert.deepEqual(parseIpv4Cidr('10.0.0.0/24'), { start: 10 * 2 ** 24, prefix: 24 });
    for (const bad of ['10.0.0.1/24', '10.0.0.0/33', '10.0.0.0', '256.0.0.0/8', 'fd20::/48', ' 10.0.0.0/24', '10.0.0.0/024x']) assert.equal(parseIpv4Cidr(bad), undefined, bad);
    assert.equal(cidrText(parseIpv4Cidr('192.168.0.0/16')!), '192.168.0.0/16');
  });

  test('overlap, containment, gateway, reserved blocks', () => {
    const a = parseIpv4Cidr('10.0.0.0/16')!;
    assert.ok(overlaps(a, parseIpv4Cidr('10.0.255.0/24')!));
    assert.ok(!overlaps(a, parseIpv4Cidr('10.1.0.0/24')!));
    assert.ok(contains(a, parseIpv4Cidr('10.0.4.0/22')!));
    assert.ok(!contains(parseIpv4Cidr('10.0.4.0/22')!, a));
    assert.equal(gatewayOf(parseIpv4Cidr('10.128.0.0/20')!), '10.128.0.1');
    assert.equal(addressAt(parseIpv4Cidr('10.128.0.0/20')!, 4095), '10.128.15.255');
    assert.ok(isReserved(parseIpv4Cidr('127.0.0.0/24')!));
    assert.ok(isReserved(parseIpv4Cidr('224.0.0.0/8')!));
    assert.ok(!isReserved(parseIpv4Cidr('100.64.0.0/10')!));
  });

  test('the auto-mode table: a disjoint /20 inside 10.128.0.0/9 for every region of the catalogue', () => {
    assert.deepEqual([...AUTO_MODE_RANGES.keys()].sort(), [...REGIONS.keys()].sort());
    const block = parseIpv4Cidr('10.128.0.0/9')!;
    const ranges = [...AUTO_MODE_RANGES.values()].map((t) => parseIpv4Cidr(t)!);
    for (const [i, r] of ranges.entries()) {
      assert.equal(r.prefix, 20);
      assert.ok(contains(block, r));
      for (const other of ranges.slice(i + 1)) assert.ok(!overlaps(r, other));
    }
    assert.equal(AUTO_MODE_RANGES.get('us-central1'), '10.128.0.0/20');
    assert.equal(AUTO_MODE_RANGES.get('europe-west1'), '10.132.0.0/20');
  });
});

describe('networks', () => {
  const ctx = { projectId: 'p', randomHex: () => 'abcdef12' };
  test('custom, auto and legacy networks with their defaults', () => {
    assert.deepEqual(networkToInsert({ name: 'n', autoCreateSubnetworks: false }, ctx), {
      kind: 'compute#network', name: 'n', autoCreateSubnetworks: false,
      routingConfig: { routingMode: 'REGIONAL', bgpBestPathSelectionMode: 'LEGACY' }, networkFirewallPolicyEnforcementOrder: 'AFTER_CLASSIC_FIREWALL', mtu: 1460,
    });
    const legacy = networkToInsert({ name: 'l', IPv4Range: '10.240.0.0/16' }, ctx);
    assert.deepEqual([legacy.IPv4Range, legacy.gatewayIPv4, legacy.mtu], ['10.240.0.0/16', '10.240.0.1', undefined]);
    assert.deepEqual(networkToInsert({ name: 'g', autoCreateSubnetworks: true, routingConfig: { routingMode: 'GLOBAL' } }, ctx).routingConfig, { routingMode: 'GLOBAL', bgpBestPathSelectionMode: 'LEGACY' });
    // what a client sends back from a get is not refused
    assert.equal(networkToInsert({ name: 'n', autoCreateSubnetworks: false, id: '9', selfLink: 'x', subnetworks: ['y'] }, ctx).id, undefined);
  });

  test('refusals: no mode, both modes, a bad legacy range, mtu, names', () => {
    refused(() => networkToInsert({ name: 'n' }, ctx), /autoCreateSubnetworks/);
    refused(() => networkToInsert({ name: 'n', autoCreateSubnetworks: true, IPv4Range: '10.0.0.0/16' }, ctx), /legacy network/);
    refused(() => networkToInsert({ name: 'n', IPv4Range: '10.0.0.1/16' }, ctx), /IPv4 CIDR/);
    refused(() => networkToInsert({ name: 'n', autoCreateSubnetworks: false, mtu: 9000 }, ctx), /between 1300 and 8896/);
    refused(() => networkToInsert({ name: '1n', autoCreateSubnetworks: false }, ctx), /Must be a match of regex/);
    refused(() => networkToInsert({ autoCreateSubnetworks: false }, ctx), /Required field 'resource.name'/);
  });

  test('ULA IPv6: a /48 in fd20::/20 drawn from the random bits, or the one asked for', () => {
    assert.equal(allocateUlaRange('abcdef12'), 'fd20:abc:def1:0:0:0:0:0/48');
    assert.equal(allocateUlaRange('0000000f'), 'fd20:0:0:0:0:0:0:0/48');
    const asked = networkToInsert({ name: 'n', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, internalIpv6Range: 'fd20:0fff:ffff::/48' }, ctx);
    assert.equal(asked.internalIpv6Range, 'fd20:fff:ffff:0:0:0:0:0/48');
    refused(() => networkToInsert({ name: 'n', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, internalIpv6Range: 'fd21::/48' }, ctx), /fd20::\/20/);
    refused(() => networkToInsert({ name: 'n', autoCreateSubnetworks: false, enableUlaInternalIpv6: true, internalIpv6Range: 'fd20::/47' }, ctx), /fd20::\/20/);
    refused(() => networkToInsert({ name: 'n', autoCreateSubnetworks: false, internalIpv6Range: 'fd20::/48' }, ctx), /needs enableUlaInternalIpv6/);
  });

  test('patch: what may change, merged routingConfig, ULA turned on but never off', () => {
    const current = networkToInsert({ name: 'n', autoCreateSubnetworks: false }, ctx) as Record<string, any>;
    const p = patchedNetwork(current, { routingConfig: { routingMode: 'GLOBAL' }, mtu: 1500, name: 'n' }, ctx.randomHex) as Record<string, any>;
    assert.deepEqual([p.routingConfig, p.mtu], [{ routingMode: 'GLOBAL', bgpBestPathSelectionMode: 'LEGACY' }, 1500]);
    refused(() => patchedNetwork(current, { autoCreateSubnetworks: true }, ctx.randomHex), /cannot be changed/);
    const v6 = patchedNetwork(current, { enableUlaInternalIpv6: true }, ctx.randomHex) as Record<string, any>;
    assert.equal(v6.internalIpv6Range, 'fd20:abc:def1:0:0:0:0:0/48');
    refused(() => patchedNetwork(v6, { enableUlaInternalIpv6: false }, ctx.randomHex), /cannot be turned off/);
  });
});

describe('subnetwork ranges', () => {
  const custom = row('network', 'net', undefined, { autoCreateSubnetworks: false });
  const auto = row('network', 'auto', undefined, { autoCreateSubnetworks: true });
  const others = [row('subnetwork', 'a', 'us-central1', { ipCidrRange: '10.0.0.0/24', secondaryIpRanges: [{ rangeName: 'pods', ipCidrRange: '10.8.0.0/16' }] })];

  test('a valid range: no host bits, /8 to /29, not reserved', () => {
    assert.equal(checkSubnetRange('f', '10.0.0.0/8').prefix, 8);
    refused(() => checkSubnetRange('f', '10.0.0.0/7'), /between \/8 and \/29/);
    refused(() => checkSubnetRange('f', '10.0.0.0/30'), /between \/8 and \/29/);
    refused(() => checkSubnetRange('f', '169.254.0.0/16'), /reserved/);
    refused(() => checkSubnetRange('f', '10.0.0.8/28x'), /not a valid IPv4 CIDR/);
  });

  test('conflicts: another subnetwork\'s primary or secondary range, its own ranges, the auto-mode block', () => {
    assert.equal(rangeConflict({ ipCidrRange: '10.1.0.0/24' }, custom, others), undefined);
    assert.equal(rangeConflict({ ipCidrRange: '10.0.0.128/25' }, custom, others)?.message, "Invalid IPCidrRange: 10.0.0.128/25 conflicts with existing subnetwork 'a' in region 'us-central1'.");
    assert.match(rangeConflict({ ipCidrRange: '10.9.0.0/24', secondaryIpRanges: [{ ipCidrRange: '10.8.4.0/24' }] }, custom, others)!.field, /secondaryIpRanges\[0\]/);
    assert.match(rangeConflict({ ipCidrRange: '10.9.0.0/24', secondaryIpRanges: [{ ipCidrRange: '10.9.0.0/28' }] }, custom, [])!.message, /of the same subnetwork/);
    assert.match(rangeConflict({ ipCidrRange: '10.200.0.0/24' }, auto, [])!.message, /auto mode range 10\.128\.0\.0\/9 of network 'auto'/);
    assert.equal(rangeConflict({ ipCidrRange: '10.0.0.0/24' }, auto, []), undefined);
  });

  test('expandIpCidrRange: a larger range holding the current one', () => {
    assert.equal(expandedRange({ ipCidrRange: '10.0.1.0/24' }, '10.0.0.0/23'), '10.0.0.0/23');
    refused(() => expandedRange({ ipCidrRange: '10.0.1.0/24' }, '10.0.2.0/23'), /must contain/);
    refused(() => expandedRange({ ipCidrRange: '10.0.1.0/24' }, '10.0.1.0/24'), /must contain/);
  });
});

describe('firewall rules', () => {
  const base = { name: 'fw', network: 'n', allowed: [{ IPProtocol: 'tcp', ports: ['22'] }] };
  test('defaults: INGRESS from anywhere, priority 1000, logging off, enabled; EGRESS to anywhere', () => {
    const f = checkedFirewall(base);
    assert.deepEqual([f.direction, f.priority, f.sourceRanges, f.logConfig, f.disabled], ['INGRESS', 1000, ['0.0.0.0/0'], { enable: false }, false]);
    assert.equal(checkedFirewall({ ...base, sourceTags: ['a'] }).sourceRanges, undefined, 'a source given: no default range');
    assert.deepEqual(checkedFirewall({ ...base, direction: 'EGRESS' }).destinationRanges, ['0.0.0.0/0']);
  });

  test('protocols and ports', () => {
    for (const ok of ['tcp', 'UDP', 'icmp', 'esp', 'ah', 'sctp', 'ipip', 'all', '6', '255']) assert.ok(checkedFirewall({ ...base, allowed: [{ IPProtocol: ok }] }), ok);
    for (const bad of ['http', '256', '-1', '']) refused(() => checkedFirewall({ ...base, allowed: [{ IPProtocol: bad }] }), /IPProtocol/);
    for (const ports of [['65535'], ['0-65535'], ['80', '443'], ['1000-2000']]) assert.ok(checkedFirewall({ ...base, allowed: [{ IPProtocol: 'udp', ports }] }));
    for (const ports of [['65536'], ['2000-1000'], ['80-'], ['http'], [22]]) refused(() => checkedFirewall({ ...base, allowed: [{ IPProtocol: 'tcp', ports }] }), /ports\[0\]/);
    refused(() => checkedFirewall({ ...base, allowed: [{ IPProtocol: 'icmp', ports: ['1'] }] }), /only for tcp, udp and sctp/);
  });

  test('allowed xor denied, priority, ranges, tags and service accounts', () => {
    refused(() => checkedFirewall({ name: 'fw' }), /'allowed' or 'denied'/);
    refused(() => checkedFirewall({ ...base, denied: [{ IPProtocol: 'all' }] }), /not both/);
    assert.equal(checkedFirewall({ ...base, priority: 0 }).priority, 0);
    assert.equal(checkedFirewall({ ...base, priority: 65535 }).priority, 65535);
    refused(() => checkedFirewall({ ...base, priority: -1 }), /between 0 and 65535/);
    assert.ok(checkedFirewall({ ...base, sourceRanges: ['10.0.0.0/8', '2001:db8::/32', '1.2.3.4'] }));
    refused(() => checkedFirewall({ ...base, destinationRanges: ['10.0.0.0/40'] }), /destinationRanges\[0\]/);
    refused(() => checkedFirewall({ ...base, sourceTags: ['a'], sourceServiceAccounts: ['x@y.iam.gserviceaccount.com'] }), /cannot be used together/);
    refused(() => checkedFirewall({ ...base, sourceServiceAccounts: ['x@y.iam.gserviceaccount.com'], targetTags: ['b'] }), /target tags/);
    refused(() => checkedFirewall({ ...base, targetServiceAccounts: ['not-an-email'] }), /service account/);
    refused(() => checkedFirewall({ ...base, direction: 'EGRESS', sourceServiceAccounts: ['x@y.iam.gserviceaccount.com'] }), /EGRESS/);
  });
});
