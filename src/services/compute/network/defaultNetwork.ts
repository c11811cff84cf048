/**
 * The `default` network every new project has: auto mode, a subnetwork named `default` in every
 * region (its auto-mode range), and the four firewall rules Google makes with it. A project comes
 * into being with it: the first time anything reads or writes a project's networking (or a
 * template or instance names `default`), unless the project already has a network or had the
 * default network before (then deleting it is final). Stored as the world's entries are (rendered
 * with the project's links when answered), with ids derived from the project, so that processes
 * making it at the same moment make the same rows.
 */
import type { Kysely } from 'kysely';
import { stableId } from '../../../platform/crypto/stableId.ts';
import type { Database } from '../../../platform/store/schema.ts';
import { GLOBAL, type Scope, inRegion, locationOf } from '../scope.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import { AUTO_MODE_BLOCK, AUTO_MODE_RANGES } from './autoMode.ts';

/** The row that says a project has had its default network (deleting every network does not bring it back). */
const MADE = 'defaultNetworkMade';

const DEFAULT_FIREWALLS = [
  { name: 'default-allow-icmp', description: 'Allow ICMP from anywhere', sourceRanges: ['0.0.0.0/0'], allowed: [{ IPProtocol: 'icmp' }] },
  {
    name: 'default-allow-internal',
    description: 'Allow internal traffic on the default network',
    sourceRanges: [AUTO_MODE_BLOCK],
    allowed: [{ IPProtocol: 'tcp', ports: ['0-65535'] }, { IPProtocol: 'udp', ports: ['0-65535'] }, { IPProtocol: 'icmp' }],
  },
  { name: 'default-allow-rdp', description: 'Allow RDP from anywhere', sourceRanges: ['0.0.0.0/0'], allowed: [{ IPProtocol: 'tcp', ports: ['3389'] }] },
  { name: 'default-allow-ssh', description: 'Allow SSH from anywhere', sourceRanges: ['0.0.0.0/0'], allowed: [{ IPProtocol: 'tcp', ports: ['22'] }] },
];

/** The subnetworks an auto-mode network `network` has, one per region (bodies as stored: links are made when answered). */
export function autoSubnetworks(network: string): { scope: Scope; body: Record<string, unknown> }[] {
  return [...AUTO_MODE_RANGES].map(([region, ipCidrRange]) => ({ scope: inRegion(region), body: { name: network, network: `global/networks/${network}`, ipCidrRange } }));
}

export class DefaultNetwork {
  readonly #resources: ResourceStore;

  constructor(resources: ResourceStore) {
    this.#resources = resources;
  }

  /** Makes the project's default network unless it has a network or had the default one. */
  async ensure(db: Kysely<Database>, projectNumber: string, nowMs: number): Promise<void> {
    if (await this.#resources.any(db, ['network', MADE], projectNumber)) return;
    const row = (kind: string, scope: Scope, body: Record<string, unknown>): StoredResource => ({
      kind,
      projectNumber,
      scope,
      name: String(body.name),
      id: stableId(`${kind}/${projectNumber}/${locationOf(scope)}/${body.name}`),
      creationMs: nowMs,
      body,
    });
    await this.#resources.insertManyIfAbsent(db, [
      row(MADE, GLOBAL, { name: 'default' }),
      row('network', GLOBAL, { name: 'default', description: 'Default network for the project', autoCreateSubnetworks: true }),
      ...autoSubnetworks('default').map((s) => row('subnetwork', s.scope, s.body)),
      ...DEFAULT_FIREWALLS.map((f) => row('firewall', GLOBAL, { ...f, network: 'global/networks/default', direction: 'INGRESS', priority: 65534 })),
    ]);
  }
}
