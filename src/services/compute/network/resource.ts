/**
 * The Network resource: its insert and patch rules and how a stored network is answered. Pure:
 * no I/O (the service reads and writes).
 */
import ipaddr from 'ipaddr.js';
import { invalidField } from '../errors.ts';
import { applyPatch, checkDescription, checkRange, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { LINK_BASE } from '../names.ts';
import { parseReference, refPath } from '../references.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';
import { parseIpv4Cidr, gatewayOf } from './cidr.ts';

export const NETWORKS: StoredKind = { kind: 'network', collection: 'networks', schema: 'Network', aggregatedScopes: [], present: (r, projectId) => presentNetwork(r, projectId, []) };

/** Fields the service sets. */
const OUTPUT = ['subnetworks', 'peerings', 'gatewayIPv4', 'firewallPolicy'];
const MUTABLE = new Set(['description', 'routingConfig', 'mtu', 'networkFirewallPolicyEnforcementOrder', 'enableUlaInternalIpv6', 'internalIpv6Range']);
const DEFAULT_MTU = 1460;

export const networkPath = (project: string, name: string) => `projects/${project}/global/networks/${name}`;

/** The ULA block Compute allocates networks' internal IPv6 ranges from: fd20::/20. */
const ULA_BLOCK = ipaddr.IPv6.parseCIDR('fd20::/20');

/** An IPv6 /48 as Compute writes it: every group, without leading zeros (`fd20:e6a:4d5f:0:0:0:0:0/48`). */
const ipv6Text = (a: ipaddr.IPv6, prefix: number) => `${a.parts.map((p) => p.toString(16)).join(':')}/${prefix}`;

/** A /48 in fd20::/20 drawn from 28 random bits (`randomHex`: at least 7 hex digits). */
export function allocateUlaRange(randomHex: string): string {
  const bits = parseInt(randomHex.slice(0, 7), 16);
  return ipv6Text(new ipaddr.IPv6([0xfd20, (bits >>> 16) & 0x0fff, bits & 0xffff, 0, 0, 0, 0, 0]), 48);
}

function checkUlaRange(v: unknown): string {
  try {
    const [addr, prefix] = ipaddr.IPv6.parseCIDR(String(v));
    if (prefix === 48 && addr.match(ULA_BLOCK) && addr.parts.slice(3).every((p) => p === 0)) return ipv6Text(addr, 48);
  } catch {
    // answered below
  }
  throw invalidField('resource.internalIpv6Range', v, 'The internal IPv6 range must be a /48 within fd20::/20.');
}

/** `networkProfile` as a full URL (`projects/P/global/networkProfiles/N` or a URL on any host). */
function networkProfileLink(v: unknown, projectId: string): string {
  const r = typeof v === 'string' ? parseReference(v, 'networkProfiles', { project: projectId, scope: 'global' }) : undefined;
  if (!r || r.scope !== 'global') throw invalidField('resource.networkProfile', v, 'The URL is malformed.');
  return LINK_BASE + refPath(r);
}

/** The IPv6 fields once `enableUlaInternalIpv6` is set: the range asked for, or one allocated. */
function ulaFields(body: Record<string, any>, randomHex: () => string): Record<string, unknown> {
  if (body.internalIpv6Range !== undefined && body.enableUlaInternalIpv6 !== true) {
    throw invalidField('resource.internalIpv6Range', body.internalIpv6Range, 'An internal IPv6 range needs enableUlaInternalIpv6.');
  }
  if (body.enableUlaInternalIpv6 !== true) return {};
  return { enableUlaInternalIpv6: true, internalIpv6Range: body.internalIpv6Range !== undefined ? checkUlaRange(body.internalIpv6Range) : allocateUlaRange(randomHex()) };
}

/** Checks an insert body (read by resourceBody.ts) and answers the network to store (links are added when it is answered). */
export function networkToInsert(input: Record<string, any>, ctx: { projectId: string; randomHex: () => string }): Record<string, unknown> {
  const body = withoutOutputFields(input, OUTPUT) as Record<string, any>;
  const name = checkResourceName(body);
  checkDescription(body);
  checkRange(body, 'mtu', 1300, 8896);
  const legacy = body.IPv4Range !== undefined;
  if (legacy && body.autoCreateSubnetworks !== undefined) {
    throw invalidField('resource.IPv4Range', body.IPv4Range, 'IPv4Range may be set only for a legacy network (autoCreateSubnetworks not set).');
  }
  if (!legacy && body.autoCreateSubnetworks === undefined) {
    throw invalidField('resource.autoCreateSubnetworks', '', 'Set autoCreateSubnetworks (true: auto mode, false: custom mode), or IPv4Range for a legacy network.');
  }
  const range = legacy ? parseIpv4Cidr(body.IPv4Range) : undefined;
  if (legacy && !range) throw invalidField('resource.IPv4Range', body.IPv4Range, 'Must be an IPv4 CIDR range such as 10.240.0.0/16.');
  return {
    kind: 'compute#network',
    name,
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(legacy ? { IPv4Range: body.IPv4Range, gatewayIPv4: gatewayOf(range!) } : { autoCreateSubnetworks: body.autoCreateSubnetworks }),
    routingConfig: { routingMode: 'REGIONAL', bgpBestPathSelectionMode: 'LEGACY', ...body.routingConfig },
    networkFirewallPolicyEnforcementOrder: body.networkFirewallPolicyEnforcementOrder ?? 'AFTER_CLASSIC_FIREWALL',
    ...(legacy ? {} : { mtu: body.mtu ?? DEFAULT_MTU }),
    ...ulaFields(body, ctx.randomHex),
    ...(body.networkProfile !== undefined ? { networkProfile: networkProfileLink(body.networkProfile, ctx.projectId) } : {}),
    ...(body.params !== undefined ? { params: body.params } : {}),
  };
}

/** A patch of a network: description, routingConfig (merged), mtu, the firewall policy order, turning on ULA IPv6. */
export function patchedNetwork(current: Record<string, any>, input: Record<string, any>, randomHex: () => string): Record<string, unknown> {
  checkDescription(input);
  checkRange(input, 'mtu', 1300, 8896);
  if (current.enableUlaInternalIpv6 === true && input.enableUlaInternalIpv6 === false) throw invalidField('resource.enableUlaInternalIpv6', false, 'ULA internal IPv6 cannot be turned off.');
  const next = applyPatch(current, input, MUTABLE, OUTPUT) as Record<string, any>;
  next.routingConfig = { ...current.routingConfig, ...input.routingConfig };
  if (input.enableUlaInternalIpv6 === true && current.enableUlaInternalIpv6 !== true) Object.assign(next, ulaFields(input, randomHex));
  else if (input.internalIpv6Range !== undefined && input.internalIpv6Range !== current.internalIpv6Range) throw invalidField('resource.internalIpv6Range', input.internalIpv6Range, 'This field cannot be changed.');
  return next;
}

/** Whether a stored network is auto mode (its subnetworks made with it, one per region). */
export const isAutoMode = (body: Record<string, any>) => body.autoCreateSubnetworks === true;
export const isLegacy = (body: Record<string, any>) => typeof body.IPv4Range === 'string';

/** A network as Compute answers it: defaults where the stored one gives none, its links and its subnetworks. */
export function presentNetwork(r: StoredResource, projectId: string, subnetworks: readonly string[]): Record<string, unknown> {
  const selfLink = LINK_BASE + networkPath(projectId, r.name);
  const legacy = isLegacy(r.body);
  return presented('Network', r, {
    routingConfig: { routingMode: 'REGIONAL', bgpBestPathSelectionMode: 'LEGACY', ...r.body.routingConfig },
    networkFirewallPolicyEnforcementOrder: 'AFTER_CLASSIC_FIREWALL',
    ...(legacy ? {} : { mtu: DEFAULT_MTU }),
  }, {
    routingConfig: { routingMode: 'REGIONAL', bgpBestPathSelectionMode: 'LEGACY', ...r.body.routingConfig },
    selfLink,
    selfLinkWithId: LINK_BASE + networkPath(projectId, r.id),
    ...(subnetworks.length ? { subnetworks } : {}),
  });
}
