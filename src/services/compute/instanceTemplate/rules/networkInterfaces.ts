/**
 * Rules of `properties.networkInterfaces[]` a template can check alone: URL syntax of network,
 * subnetwork and network attachment, access configs, IPv6, names, VLANs, alias ranges, counts.
 * Whether the network exists, its mode (auto / custom / legacy), subnetwork inference, alias
 * ranges inside the subnetwork and the tier of a static address are the service's (world) rules.
 */
import { isIP } from 'node:net';
import {
  type Findings,
  type Obj,
  MALFORMED_URL,
  NAME,
  PROJECT,
  REGION_NAME,
  boolField,
  checkName,
  listField,
  numField,
  parseRef,
  strField,
} from './common.ts';

export const MAX_NETWORK_INTERFACES = 8;
export const VLAN = { min: 2, max: 255 };

const NETWORK_ATTACHMENT = new RegExp(
  `^(?:https?://(?:www|compute)\\.googleapis\\.com/compute/(?:v1|beta|alpha)/)?projects/(${PROJECT})/regions/([a-z][-a-z0-9]{0,62})/networkAttachments/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$`,
);

export function isNetworkRef(v: string): boolean {
  return NAME.test(v) || parseRef(v, 'global', 'networks') !== undefined;
}

function checkCidr(f: Findings, at: string, v: string): void {
  // A single IP, a netmask (`/24`) or a CIDR range (`10.1.2.0/24`).
  const m = /^(?:([0-9.]+))?(?:\/([0-9]{1,2}))?$/.exec(v);
  const ok = m !== null && v !== '' && (m[1] === undefined || isIP(m[1]) === 4) && (m[2] === undefined || Number(m[2]) <= 32);
  if (!ok) f.invalid(at, v, 'The alias IP range must be a single IP address, a netmask (for example /24) or a CIDR range.');
}

export function checkNetworkInterfaces(f: Findings, nics: unknown[]): void {
  const base = 'resource.properties.networkInterfaces';
  const primary = nics.filter((n) => strField(n as Obj, 'parentNicName') === undefined).length;
  if (primary > MAX_NETWORK_INTERFACES) {
    f.invalid(base, '', `At most ${MAX_NETWORK_INTERFACES} network interfaces may be specified; ${primary} were given.`);
  }
  const names = new Set<string>();
  nics.forEach((n, i) => names.add(strField(n as Obj, 'name') ?? `nic${i}`));
  const usedNames = new Set<string>();

  nics.forEach((n, i) => {
    const nic = n as Obj;
    const at = `${base}[${i}]`;
    const network = strField(nic, 'network');
    if (network !== undefined && network !== '' && !isNetworkRef(network)) f.invalid(`${at}.network`, network, MALFORMED_URL);
    const subnetwork = strField(nic, 'subnetwork');
    if (subnetwork !== undefined && subnetwork !== '') {
      const ref = parseRef(subnetwork, 'regions', 'subnetworks');
      if (!NAME.test(subnetwork) && !ref) f.invalid(`${at}.subnetwork`, subnetwork, MALFORMED_URL);
      else if (ref?.region !== undefined && f.region !== undefined && ref.region !== f.region) {
        f.invalid(`${at}.subnetwork`, subnetwork, `Subnetwork must be in region '${f.region}', the region of the template.`);
      }
    }
    const attachment = strField(nic, 'networkAttachment');
    if (attachment !== undefined && attachment !== '') {
      const m = NETWORK_ATTACHMENT.exec(attachment);
      if (!m) f.invalid(`${at}.networkAttachment`, attachment, 'Network attachment must be of the form projects/{project_number}/regions/{region}/networkAttachments/{name}.');
      else if (!REGION_NAME.test(m[2])) f.invalid(`${at}.networkAttachment`, attachment, MALFORMED_URL);
    }

    const name = strField(nic, 'name');
    const parent = strField(nic, 'parentNicName');
    const vlan = numField(nic, 'vlan');
    if (name !== undefined) {
      const re = parent === undefined ? /^nic[0-7]$/ : /^nic[0-7]\.[0-9]{1,3}$/;
      if (!re.test(name)) f.invalid(`${at}.name`, name, parent === undefined ? 'Network interface names are nic0 to nic7.' : 'Dynamic network interface names are nicN.VLAN.');
      else if (usedNames.has(name)) f.invalid(`${at}.name`, name, `Duplicate network interface name '${name}'.`);
      usedNames.add(name);
    }
    if (vlan !== undefined && (vlan < VLAN.min || vlan > VLAN.max)) {
      f.invalid(`${at}.vlan`, vlan, `VLAN must be between ${VLAN.min} and ${VLAN.max}.`);
    }
    if (vlan !== undefined && parent === undefined) f.required(`${at}.parentNicName`);
    if (parent !== undefined) {
      if (!/^nic[0-7]$/.test(parent) || !names.has(parent)) f.invalid(`${at}.parentNicName`, parent, 'The parent network interface does not exist.');
      if (vlan === undefined) f.required(`${at}.vlan`);
    }

    const networkIP = strField(nic, 'networkIP');
    if (networkIP !== undefined && networkIP !== '' && isIP(networkIP) !== 4) {
      f.invalid(`${at}.networkIP`, networkIP, 'Must be an IPv4 address.');
    }
    const ipv6 = strField(nic, 'ipv6Address');
    if (ipv6 !== undefined && ipv6 !== '' && isIP(ipv6) !== 6) f.invalid(`${at}.ipv6Address`, ipv6, 'Must be an IPv6 address.');
    const prefix = numField(nic, 'internalIpv6PrefixLength');
    if (prefix !== undefined && (prefix < 1 || prefix > 128)) f.invalid(`${at}.internalIpv6PrefixLength`, prefix, 'Must be between 1 and 128.');

    const stack = strField(nic, 'stackType') ?? 'IPV4_ONLY';
    const accessType = strField(nic, 'ipv6AccessType');
    if (accessType !== undefined && stack === 'IPV4_ONLY') {
      f.invalid(`${at}.ipv6AccessType`, accessType, 'ipv6AccessType can only be set when stackType is IPV4_IPV6 or IPV6_ONLY.');
    }
    const queues = numField(nic, 'queueCount');
    if (queues !== undefined && queues < 1) f.invalid(`${at}.queueCount`, queues, 'Queue count must be at least 1.');

    const access = listField(nic, 'accessConfigs');
    if (access.length > 1) f.invalid(`${at}.accessConfigs`, '', 'At most one access config currently supported.');
    if (access.length > 0 && stack === 'IPV6_ONLY') f.invalid(`${at}.accessConfigs`, '', 'An IPv6-only interface cannot have an IPv4 access config.');
    access.forEach((a, j) => checkAccessConfig(f, `${at}.accessConfigs[${j}]`, a as Obj, 'ONE_TO_ONE_NAT'));
    const access6 = listField(nic, 'ipv6AccessConfigs');
    if (access6.length > 1) f.invalid(`${at}.ipv6AccessConfigs`, '', 'At most one IPv6 access config currently supported.');
    if (access6.length > 0 && stack === 'IPV4_ONLY') {
      f.invalid(`${at}.ipv6AccessConfigs`, '', 'IPv6 access configs require stackType IPV4_IPV6 or IPV6_ONLY.');
    }
    access6.forEach((a, j) => checkAccessConfig(f, `${at}.ipv6AccessConfigs[${j}]`, a as Obj, 'DIRECT_IPV6'));

    listField(nic, 'aliasIpRanges').forEach((r, j) => {
      const range = r as Obj;
      const cidr = strField(range, 'ipCidrRange');
      if (cidr === undefined || cidr === '') f.required(`${at}.aliasIpRanges[${j}].ipCidrRange`);
      else checkCidr(f, `${at}.aliasIpRanges[${j}].ipCidrRange`, cidr);
      const rangeName = strField(range, 'subnetworkRangeName');
      if (rangeName !== undefined && rangeName !== '') checkName(f, `${at}.aliasIpRanges[${j}].subnetworkRangeName`, rangeName);
    });
  });
}

function checkAccessConfig(f: Findings, at: string, ac: Obj, only: 'ONE_TO_ONE_NAT' | 'DIRECT_IPV6'): void {
  const type = strField(ac, 'type');
  if (type !== undefined && type !== only) f.invalid(`${at}.type`, type, `Access config type must be ${only}.`);
  const natIP = strField(ac, 'natIP');
  const external6 = strField(ac, 'externalIpv6');
  if (only === 'ONE_TO_ONE_NAT') {
    if (natIP !== undefined && natIP !== '' && isIP(natIP) !== 4) f.invalid(`${at}.natIP`, natIP, 'Must be an IPv4 address.');
    if (external6 !== undefined) f.invalid(`${at}.externalIpv6`, external6, 'externalIpv6 can only be set on an IPv6 access config.');
    if (numField(ac, 'externalIpv6PrefixLength') !== undefined) f.invalid(`${at}.externalIpv6PrefixLength`, numField(ac, 'externalIpv6PrefixLength'), 'externalIpv6PrefixLength can only be set on an IPv6 access config.');
  } else {
    if (natIP !== undefined) f.invalid(`${at}.natIP`, natIP, 'natIP can only be set on an IPv4 access config.');
    if (external6 !== undefined && external6 !== '' && isIP(external6) !== 6) f.invalid(`${at}.externalIpv6`, external6, 'Must be an IPv6 address.');
    const len = numField(ac, 'externalIpv6PrefixLength');
    if (len !== undefined && (len < 1 || len > 128)) f.invalid(`${at}.externalIpv6PrefixLength`, len, 'Must be between 1 and 128.');
  }
  const ptr = strField(ac, 'publicPtrDomainName');
  if (ptr !== undefined && ptr !== '' && boolField(ac, 'setPublicPtr') !== true) {
    f.invalid(`${at}.publicPtrDomainName`, ptr, 'publicPtrDomainName can only be set when setPublicPtr is true.');
  }
}
