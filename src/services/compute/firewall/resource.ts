/** The Firewall resource: its rules (protocols and ports, direction, priority, ranges, tags, service accounts) and how a stored rule is answered. Pure. */
import ipaddr from 'ipaddr.js';
import { computeError, invalidField, requiredField } from '../errors.ts';
import { applyPatch, checkDescription, checkRange, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { NAME } from '../instanceTemplate/rules/common.ts';
import { LINK_BASE } from '../names.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';
import { refTarget } from '../usage.ts';

export const FIREWALLS: StoredKind = { kind: 'firewall', collection: 'firewalls', schema: 'Firewall', aggregatedScopes: [], present: (r, projectId) => presentFirewall(r, projectId) };

const NAMED_PROTOCOLS = new Set(['tcp', 'udp', 'icmp', 'esp', 'ah', 'sctp', 'ipip', 'all']);
const PORTED_PROTOCOLS = new Set(['tcp', 'udp', 'sctp', '6', '17', '132']);
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MUTABLE = new Set(['description', 'allowed', 'denied', 'direction', 'priority', 'sourceRanges', 'destinationRanges', 'sourceTags', 'targetTags', 'sourceServiceAccounts', 'targetServiceAccounts', 'disabled', 'logConfig', 'params']);

export const firewallPath = (project: string, name: string) => `projects/${project}/global/firewalls/${name}`;

function checkPorts(field: string, ports: unknown): void {
  for (const [i, p] of ((ports ?? []) as unknown[]).entries()) {
    const m = typeof p === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(p) : null;
    const [lo, hi] = m ? [Number(m[1]), Number(m[2] ?? m[1])] : [NaN, NaN];
    if (!m || lo > 65535 || hi > 65535 || lo > hi) throw invalidField(`${field}.ports[${i}]`, p, 'Must be a port (0-65535) or a range of ports such as 8000-9000.');
  }
}

function checkRules(field: 'allowed' | 'denied', rules: unknown): void {
  for (const [i, r] of ((rules ?? []) as Record<string, unknown>[]).entries()) {
    const at = `resource.${field}[${i}]`;
    const protocol = r.IPProtocol;
    if (protocol === undefined || protocol === '') throw requiredField(`${at}.IPProtocol`);
    const numeric = typeof protocol === 'string' && /^\d{1,3}$/.test(protocol) && Number(protocol) <= 255;
    if (typeof protocol !== 'string' || (!NAMED_PROTOCOLS.has(protocol.toLowerCase()) && !numeric)) {
      throw invalidField(`${at}.IPProtocol`, protocol, 'Must be tcp, udp, icmp, esp, ah, sctp, ipip, all, or an IP protocol number.');
    }
    if (Array.isArray(r.ports) && r.ports.length) {
      if (!PORTED_PROTOCOLS.has(protocol.toLowerCase())) throw invalidField(`${at}.ports`, r.ports.join(','), 'Ports may be given only for tcp, udp and sctp.');
      checkPorts(at, r.ports);
    }
  }
}

function checkCidrs(field: string, list: unknown): void {
  for (const [i, v] of ((list ?? []) as unknown[]).entries()) {
    const ok = typeof v === 'string' && (ipaddr.isValidCIDR(v) || ipaddr.isValid(v));
    if (!ok) throw invalidField(`resource.${field}[${i}]`, v, 'Must be an IP address or a CIDR range.');
  }
}

function checkTags(field: string, list: unknown): void {
  for (const [i, v] of ((list ?? []) as unknown[]).entries()) {
    if (typeof v !== 'string' || !NAME.test(v)) throw invalidField(`resource.${field}[${i}]`, v, 'A tag must be 1-63 lowercase letters, digits or hyphens, starting with a letter.');
  }
}

function checkAccounts(field: string, list: unknown): void {
  for (const [i, v] of ((list ?? []) as unknown[]).entries()) {
    if (typeof v !== 'string' || !EMAIL.test(v)) throw invalidField(`resource.${field}[${i}]`, v, 'Must be a service account e-mail address.');
  }
}

const given = (v: unknown) => Array.isArray(v) && v.length > 0;

/** The rules every firewall (inserted, patched or replaced) obeys; answers it with its defaults filled in. */
export function checkedFirewall(body: Record<string, any>): Record<string, any> {
  checkResourceName(body);
  checkDescription(body);
  checkRange(body, 'priority', 0, 65535);
  if (given(body.allowed) === given(body.denied)) {
    throw computeError('INVALID_ARGUMENT', 'invalid', given(body.allowed) ? "Invalid value for field 'resource.denied': ''. A firewall rule either allows or denies: give 'allowed' or 'denied', not both." : "Required field 'resource.allowed' not specified: a firewall rule needs 'allowed' or 'denied'.");
  }
  checkRules('allowed', body.allowed);
  checkRules('denied', body.denied);
  const direction = body.direction ?? 'INGRESS';
  checkCidrs('sourceRanges', body.sourceRanges);
  checkCidrs('destinationRanges', body.destinationRanges);
  checkTags('sourceTags', body.sourceTags);
  checkTags('targetTags', body.targetTags);
  checkAccounts('sourceServiceAccounts', body.sourceServiceAccounts);
  checkAccounts('targetServiceAccounts', body.targetServiceAccounts);
  if (direction === 'EGRESS' && (given(body.sourceTags) || given(body.sourceServiceAccounts))) {
    throw invalidField(given(body.sourceTags) ? 'resource.sourceTags' : 'resource.sourceServiceAccounts', '', 'An EGRESS rule takes no source tags or source service accounts.');
  }
  if (given(body.targetTags) && given(body.targetServiceAccounts)) throw invalidField('resource.targetServiceAccounts', '', 'Target tags and target service accounts cannot be used together.');
  if (given(body.sourceTags) && given(body.sourceServiceAccounts)) throw invalidField('resource.sourceServiceAccounts', '', 'Source tags and source service accounts cannot be used together.');
  if (given(body.sourceServiceAccounts) && given(body.targetTags)) throw invalidField('resource.targetTags', '', 'Source service accounts cannot be used with target tags.');
  const anySource = given(body.sourceRanges) || given(body.sourceTags) || given(body.sourceServiceAccounts);
  return {
    ...body,
    kind: 'compute#firewall',
    direction,
    priority: body.priority ?? 1000,
    ...(direction === 'INGRESS' && !anySource ? { sourceRanges: ['0.0.0.0/0'] } : {}),
    ...(direction === 'EGRESS' && !given(body.destinationRanges) ? { destinationRanges: ['0.0.0.0/0'] } : {}),
    logConfig: body.logConfig ?? { enable: false },
    disabled: body.disabled ?? false,
  };
}

/** The network a firewall names (the project's `default` when it names none), as a path. */
export function firewallNetwork(body: Record<string, any>, projectId: string): string {
  const path = refTarget(body.network ?? 'global/networks/default', 'networks', { projectId, scope: 'global' });
  if (!path || !/^projects\/[^/]+\/global\/networks\/[^/]+$/.test(path)) throw invalidField('resource.network', body.network, 'The URL is malformed.');
  return path;
}

export const firewallToInsert = (input: Record<string, any>, networkLink: string) => checkedFirewall({ ...withoutOutputFields(input, []), network: networkLink });

/** A patch (merged) or an update (replaced whole): the name and network stay. */
export function changedFirewall(current: Record<string, any>, input: Record<string, any>, replace: boolean): Record<string, any> {
  const asked = withoutOutputFields(input, []) as Record<string, any>;
  if (asked.name !== undefined && asked.name !== current.name) throw invalidField('resource.name', asked.name, 'This field cannot be changed.');
  if (asked.network !== undefined && refTarget(asked.network, 'networks', { projectId: '-', scope: 'global' })?.split('/').pop() !== String(current.network).split('/').pop()) {
    throw invalidField('resource.network', asked.network, 'This field cannot be changed.');
  }
  const { network: _n, name: _name, ...rest } = asked;
  const next = replace ? { name: current.name, network: current.network, ...rest } : applyPatch(current, rest, MUTABLE, []);
  return checkedFirewall(next);
}

/** A firewall rule as Compute answers it. */
export function presentFirewall(r: StoredResource, projectId: string): Record<string, unknown> {
  const network = refTarget(r.body.network, 'networks', { projectId, scope: 'global' });
  return presented('Firewall', r, { priority: 1000, direction: 'INGRESS', logConfig: { enable: false }, disabled: false }, {
    network: network ? LINK_BASE + network : r.body.network,
    selfLink: LINK_BASE + firewallPath(projectId, r.name),
  });
}
