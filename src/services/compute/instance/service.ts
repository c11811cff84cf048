/**
 * Instances: insert (a body, or `sourceInstanceTemplate` merged with it), get, list,
 * aggregatedList, start, stop, reset, setLabels, setMetadata, setTags, delete.
 *
 * FOR MANAGED INSTANCE GROUPS: a group makes and removes its instances inside its own operation's
 * transaction, with no request of their own:
 * - `Instances.placeInstance(trx, project, zone, body, principal?)`: checks and stores one instance
 *   (a body as `insert` takes it, a template's properties merged already with `mergeTemplate`),
 *   with its boot disk, its interfaces' internal IPs and its reserved addresses IN_USE; status
 *   RUNNING. Throws the ApiError an insert would answer. Answers the stored row.
 * - `Instances.removeInstance(trx, project, row)`: deletes it, its autoDelete disks, detaches the
 *   others and releases its addresses.
 * - `Instances.templateProperties(db, project, ref)`: a template's properties by reference.
 * Requests (`insert`, `delete`, ...) go through the same two, inside their operation: the writes
 * are stored when the request is (`ComputeOperations.start`'s `prepare`), the status the operation
 * leads to when it completes (at once in instant mode, on the twin's clock in delayed mode).
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../../../platform/auth/principal.ts';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { Ids } from '../../../platform/crypto/random.ts';
import type { AccessControl } from '../../../platform/iam/accessControl.ts';
import type { ProjectRecord } from '../../../platform/iam/directory.ts';
import type { OperationEngine } from '../../../platform/operations/engine.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { type Addresses, INTERNAL_ADDRESS_ALLOCATION, externalAddress, takenInternalAddresses } from '../address/service.ts';
import { ZONES } from '../catalogue.ts';
import { DISKS, diskPath } from '../disk/resource.ts';
import { alreadyExists, computeError, invalidField, resourceInUse, resourceNotFound } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE, computeTimestamp } from '../names.ts';
import type { ComputeOperations, WireOperation } from '../operation/service.ts';
import { parseReference, refPath } from '../references.ts';
import { readResourceBody } from '../resourceBody.ts';
import { GLOBAL, inRegion, inZone, scopeAt } from '../scope.ts';
import type { ResourceReader, StoredKind } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites } from '../store/writes.ts';
import { firstFreeAddress, isIpv4, unusableAddress } from './ipAllocation.ts';
import { type NewDisk, attachedDisks, checkFingerprint, instanceKind, instancePath, instanceToInsert, mergeTemplate, presentInstance, statusAt, zoneOf } from './rules.ts';

type Obj = Record<string, any>;
type Project = Pick<ProjectRecord, 'projectId' | 'projectNumber'>;

export interface InstanceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  access: AccessControl;
  engine: OperationEngine;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  operations: ComputeOperations;
  addresses: Addresses;
}

/** What a lifecycle operation carries: the instance and the status it ends in (null: it is deleted). */
interface LifecycleData {
  name: string;
  to: 'RUNNING' | 'TERMINATED' | null;
}

export class Instances {
  readonly #d: InstanceDeps;
  readonly kind: StoredKind;

  constructor(deps: InstanceDeps) {
    this.#d = deps;
    this.kind = instanceKind((r, projectId) => presentInstance(r, projectId, statusAt(r.body, deps.clock.nowMs(), this.#delayMs())));
    deps.writes.register(this.kind);
    deps.operations.register<LifecycleData>('compute.instances.lifecycle', async (trx, p) => {
      const r = await deps.resources.get(trx, this.kind.kind, p.projectNumber, scopeAt(p.location), p.targetId);
      if (!r) return undefined;
      if (p.data.to === null) await this.removeInstance(trx, p, r);
      else await deps.resources.update(trx, { ...r, body: { ...r.body, status: p.data.to, statusSinceMs: undefined } });
      return undefined;
    }, ({ name }) => ({ name }));
  }

  #delayMs(): number {
    const c = this.#d.engine.config;
    return c.mode === 'delayed' ? c.delayMs : 0;
  }

  #fingerprint = (): string => Buffer.from(this.#d.ids.hex(8), 'hex').toString('base64');

  // ---- for managed instance groups (see the top of this file) --------------------------------

  /** A template's properties, by a reference as `sourceInstanceTemplate` takes it (global or regional); 404 naming it when there is none. */
  async templateProperties(db: Kysely<Database>, project: Project, value: string): Promise<Obj> {
    const ref = parseReference(value, 'instanceTemplates', { project: project.projectId, scope: 'global' });
    if (!ref || ref.collection !== 'instanceTemplates') throw invalidField('sourceInstanceTemplate', value, 'The URL is malformed.');
    const path = refPath(ref);
    const scope = ref.scope === 'global' ? GLOBAL : inRegion(ref.scope.replace(/^regions\//, ''));
    const mine = ref.project === project.projectId || ref.project === project.projectNumber;
    const t = mine ? await this.#d.resources.get(db, 'instanceTemplate', project.projectNumber, scope, ref.name) : undefined;
    if (!t) throw resourceNotFound(path);
    return (t.body.properties ?? {}) as Obj;
  }

  /** Checks and stores one instance with its disks and addresses (see the top of this file). */
  async placeInstance(trx: Kysely<Database>, project: Project, zone: string, input: Obj, status: 'PROVISIONING' | 'RUNNING', principal?: Principal, id = this.#d.operations.newId()): Promise<StoredResource> {
    const body = instanceToInsert(input, { ...project, zone, fingerprint: this.#fingerprint });
    const name = String(body.name);
    const scope = inZone(zone);
    const link = LINK_BASE + instancePath(project.projectId, zone, name);
    if (principal) await this.#checkActAs(principal, project, body.serviceAccounts as Obj[]);
    const now = this.#d.clock.nowMs();
    const { attached, created, sources } = attachedDisks(body, { projectId: project.projectId, zone, instanceLink: link, now: computeTimestamp(now) });
    const row: StoredResource = { kind: this.kind.kind, projectNumber: project.projectNumber, scope, name, id, creationMs: now, body: {} };
    if (await this.#d.resources.nameTaken(trx, this.kind.kind, project.projectNumber, scope, name)) throw alreadyExists(instancePath(project.projectId, zone, name));
    row.body = {
      ...body,
      id,
      creationTimestamp: computeTimestamp(now),
      disks: attached,
      networkInterfaces: await this.#interfaces(trx, project, zone, body, link),
      status,
      ...(status === 'PROVISIONING' ? { statusSinceMs: now } : {}),
      lastStartTimestamp: computeTimestamp(now),
    };
    await this.#attachDisks(trx, project, zone, created, sources, link, now);
    if (!(await this.#d.resources.insertIfAbsent(trx, row))) throw alreadyExists(instancePath(project.projectId, zone, name));
    return row;
  }

  /** Deletes an instance, its autoDelete disks; detaches its other disks and releases its reserved addresses. */
  async removeInstance(trx: Kysely<Database>, project: Project, r: StoredResource): Promise<void> {
    const zone = zoneOf(r.scope);
    const link = LINK_BASE + instancePath(project.projectId, zone, r.name);
    await this.#d.resources.delete(trx, this.kind.kind, project.projectNumber, r.scope, r.id);
    for (const a of (r.body.disks ?? []) as Obj[]) {
      const name = String(a.source ?? '').split('/').pop()!;
      const disk = await this.#d.resources.get(trx, DISKS.kind, project.projectNumber, r.scope, name);
      if (!disk) continue;
      if (a.autoDelete) await this.#d.resources.delete(trx, DISKS.kind, project.projectNumber, r.scope, disk.id);
      else await this.#d.resources.update(trx, { ...disk, body: { ...disk.body, users: ((disk.body.users ?? []) as string[]).filter((u) => u !== link), lastDetachTimestamp: computeTimestamp(this.#d.clock.nowMs()) } });
    }
    for (const a of await this.#d.resources.mentioning(trx, ['address'], project.projectNumber, r.name)) {
      const users = ((a.body.users ?? []) as string[]).filter((u) => u !== link);
      if (users.length === (a.body.users ?? []).length) continue;
      await this.#d.resources.update(trx, { ...a, body: { ...a.body, users, status: users.length ? 'IN_USE' : 'RESERVED' } });
    }
  }

  // ---- the methods -------------------------------------------------------------------------

  async insert(call: ComputeCall): Promise<WireOperation> {
    let body = readResourceBody('Instance', 'instance_resource', call.body);
    const source = call.query.sourceInstanceTemplate;
    if (typeof source === 'string' && source !== '') body = mergeTemplate(await this.templateProperties(this.#d.store.db, call.project, source), body);
    if (typeof call.query.sourceMachineImage === 'string') throw computeError('UNIMPLEMENTED', 'notImplemented', 'Instances from machine images are not offered by cloudtwin.');
    const zone = zoneOf(call.scope);
    // The body's own rules first, outside the transaction (a bad body is answered without writing).
    const checked = instanceToInsert(body, { ...call.project, zone, fingerprint: this.#fingerprint });
    const name = String(checked.name);
    await this.#checkActAs(call.principal, call.project, checked.serviceAccounts as Obj[]);
    if (await this.#d.resources.nameTaken(this.#d.store.db, this.kind.kind, call.project.projectNumber, call.scope, name)) {
      const repeated = await this.#d.operations.repeated(call);
      if (repeated) return repeated;
      throw alreadyExists(instancePath(call.project.projectId, zone, name));
    }
    const id = this.#d.operations.newId();
    return this.#d.operations.start<LifecycleData>(call, {
      kind: 'compute.instances.lifecycle',
      scope: call.scope,
      operationType: 'insert',
      targetLink: LINK_BASE + instancePath(call.project.projectId, zone, name),
      targetId: id,
      data: { name, to: 'RUNNING' },
      prepare: async (trx) => {
        await this.placeInstance(trx, call.project, zone, body, 'PROVISIONING', undefined, id);
      },
    });
  }

  get = (call: ComputeCall) => this.#d.reader.get(call, this.kind, 'instance');
  list = (call: ComputeCall) => this.#d.reader.list(call, this.kind);
  aggregatedList = (call: ComputeCall) => this.#d.reader.aggregatedList(call, this.kind);

  async delete(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    if (r.body.deletionProtection === true) {
      throw computeError('INVALID_ARGUMENT', 'resourceIsProtected', `Invalid resource usage: 'Resource cannot be deleted if it's protected against deletion.'.`);
    }
    return this.#transition(call, r, 'delete', 'STOPPING', null);
  }

  async stop(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    return this.#transition(call, r, 'stop', 'STOPPING', 'TERMINATED');
  }

  async start(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    return this.#transition(call, r, 'start', r.body.status === 'RUNNING' ? 'RUNNING' : 'STAGING', 'RUNNING');
  }

  async reset(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    if (r.body.status !== 'RUNNING') throw computeError('FAILED_PRECONDITION', 'resourceNotReady', `The resource '${instancePath(call.project.projectId, zoneOf(r.scope), r.name)}' is not ready`, { httpCode: 400 });
    return this.#transition(call, r, 'reset', 'RUNNING', 'RUNNING');
  }

  async setLabels(call: ComputeCall): Promise<WireOperation> {
    const asked = readResourceBody('InstancesSetLabelsRequest', 'instances_set_labels_request_resource', call.body);
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    checkFingerprint(r.body.labelFingerprint, asked.labelFingerprint, 'labelFingerprint');
    const labels = asked.labels ?? {};
    return this.#d.writes.update(call, this.kind, r, { ...r.body, labels, labelFingerprint: this.#fingerprint() }, 'setLabels');
  }

  async setMetadata(call: ComputeCall): Promise<WireOperation> {
    const asked = readResourceBody('Metadata', 'metadata_resource', call.body);
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    checkFingerprint(r.body.metadata?.fingerprint, asked.fingerprint, 'metadata.fingerprint');
    const metadata = { kind: 'compute#metadata', ...(asked.items?.length ? { items: asked.items } : {}), fingerprint: this.#fingerprint() };
    return this.#d.writes.update(call, this.kind, r, { ...r.body, metadata }, 'setMetadata');
  }

  async setTags(call: ComputeCall): Promise<WireOperation> {
    const asked = readResourceBody('Tags', 'tags_resource', call.body);
    const r = await this.#d.reader.find(call, this.kind, 'instance');
    checkFingerprint(r.body.tags?.fingerprint, asked.fingerprint, 'tags.fingerprint');
    const tags = { ...(asked.items?.length ? { items: asked.items } : {}), fingerprint: this.#fingerprint() };
    return this.#d.writes.update(call, this.kind, r, { ...r.body, tags }, 'setTags');
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** A status change: `now` stored with the request, `to` when the operation completes (null: deleted). */
  #transition(call: ComputeCall, r: StoredResource, operationType: string, now: string, to: LifecycleData['to']): Promise<WireOperation> {
    return this.#d.operations.start<LifecycleData>(call, {
      kind: 'compute.instances.lifecycle',
      scope: r.scope,
      operationType,
      targetLink: LINK_BASE + instancePath(call.project.projectId, zoneOf(r.scope), r.name),
      targetId: r.id,
      data: { name: r.name, to },
      prepare: async (trx) => {
        const current = await this.#d.resources.get(trx, this.kind.kind, r.projectNumber, r.scope, r.id);
        if (!current) throw resourceNotFound(call.path);
        const stamp = to === 'TERMINATED' ? { lastStopTimestamp: computeTimestamp(this.#d.clock.nowMs()) } : to === 'RUNNING' && operationType === 'start' ? { lastStartTimestamp: computeTimestamp(this.#d.clock.nowMs()) } : {};
        await this.#d.resources.update(trx, { ...current, body: { ...current.body, status: now, ...stamp } });
      },
    });
  }

  /** A service account on an instance needs `iam.serviceAccounts.actAs` on it (its own policy or the project's). */
  async #checkActAs(principal: Principal, project: Project, accounts: Obj[]): Promise<void> {
    for (const a of accounts) {
      if (await this.#d.access.holds(principal, 'iam.serviceAccounts.actAs', project.projectNumber, `/serviceAccounts/${a.email}`)) continue;
      const user = principal.member.replace(/^[a-zA-Z]+:/, '');
      throw computeError('INVALID_ARGUMENT', 'badRequest', `The user does not have access to service account '${a.email}'.  User: '${user}'.  Ask a project owner to grant you the iam.serviceAccountUser role on the service account`);
    }
  }

  /** The body's interfaces: network and subnetwork resolved, an internal IP each (unique in its subnetwork), external ones for access configs. */
  async #interfaces(trx: Kysely<Database>, project: Project, zone: string, body: Obj, instanceLink: string): Promise<Obj[]> {
    const region = ZONES.get(zone)!;
    const nics = (body.networkInterfaces ?? []) as Obj[];
    const out: Obj[] = [];
    for (let i = 0; i < nics.length; i++) {
      const n = nics[i];
      const at = `resource.networkInterfaces[${i}]`;
      const netRef = typeof n.network === 'string' ? parseReference(n.network, 'networks', { project: project.projectId, scope: 'global' }) : undefined;
      if (n.network !== undefined && !netRef) throw invalidField(`${at}.network`, n.network, 'The URL is malformed.');
      const subRef = typeof n.subnetwork === 'string' ? parseReference(n.subnetwork, 'subnetworks', { project: project.projectId, scope: `regions/${region}` }) : undefined;
      if (n.subnetwork !== undefined && !subRef) throw invalidField(`${at}.subnetwork`, n.subnetwork, 'The URL is malformed.');
      let subnetwork: StoredResource | undefined;
      let network: StoredResource | undefined;
      if (subRef) {
        if (subRef.scope !== `regions/${region}`) throw invalidField(`${at}.subnetwork`, n.subnetwork, `Subnetwork must be in region '${region}'.`);
        subnetwork = await this.#d.resources.get(trx, 'subnetwork', project.projectNumber, inRegion(region), subRef.name);
        if (!subnetwork) throw resourceNotFound(refPath(subRef));
        const name = String(subnetwork.body.network ?? '').split('/').pop()!;
        network = await this.#d.resources.get(trx, 'network', project.projectNumber, GLOBAL, name);
      } else {
        const path = netRef ? refPath(netRef) : `projects/${project.projectId}/global/networks/default`;
        network = await this.#d.resources.get(trx, 'network', project.projectNumber, GLOBAL, path.split('/').pop()!);
        if (!network) throw resourceNotFound(path);
        // The region's subnetwork of that network (an auto-mode network's are stored as `global/networks/N`).
        subnetwork = (await this.#d.resources.all(trx, 'subnetwork', project.projectNumber, [inRegion(region)])).find((s) => String(s.body.network).split('/').pop() === network!.name);
        if (!subnetwork && network.body.autoCreateSubnetworks !== true && typeof network.body.IPv4Range !== 'string') {
          throw invalidField(`${at}.subnetwork`, '', `Subnetwork should be specified for custom subnetmode network`);
        }
      }
      if (!network) throw resourceNotFound(`projects/${project.projectId}/global/networks/default`);
      const networkLink = LINK_BASE + `projects/${project.projectId}/global/networks/${network.name}`;
      const subnetworkLink = subnetwork ? LINK_BASE + `projects/${project.projectId}/regions/${region}/subnetworks/${subnetwork.name}` : undefined;
      const range = String(subnetwork?.body.ipCidrRange ?? network.body.IPv4Range);
      if (subnetworkLink) await this.#d.store.serialize(trx, INTERNAL_ADDRESS_ALLOCATION);
      const taken = subnetworkLink ? await takenInternalAddresses(trx, this.#d.resources, project.projectNumber, region, subnetworkLink) : new Set<string>();
      for (const earlier of out) if (earlier.subnetwork === subnetworkLink) taken.add(earlier.networkIP);
      let networkIP: string | undefined;
      if (typeof n.networkIP === 'string' && n.networkIP !== '') {
        const reserved = isIpv4(n.networkIP) ? undefined : await this.#d.addresses.reserved(trx, project.projectId, project.projectNumber, [inRegion(region)], n.networkIP);
        if (!isIpv4(n.networkIP) && !reserved) throw resourceNotFound(`projects/${project.projectId}/regions/${region}/addresses/${String(n.networkIP).split('/').pop()}`);
        networkIP = reserved ? String(reserved.body.address) : n.networkIP;
        const owned = reserved ?? (await this.#d.addresses.reserved(trx, project.projectId, project.projectNumber, [inRegion(region)], networkIP));
        if (owned && owned.body.addressType === 'INTERNAL') {
          await this.#use(trx, owned, instanceLink);
          taken.delete(networkIP);
        }
        const why = unusableAddress(range, networkIP) ?? (taken.has(networkIP) ? `IP address '${networkIP}' is already being used by another resource.` : undefined);
        if (why) throw invalidField(`${at}.networkIP`, networkIP, why);
      } else {
        networkIP = firstFreeAddress(range, taken);
        if (!networkIP) throw computeError('RESOURCE_EXHAUSTED', 'ipSpaceExhausted', `IP space of '${subnetworkLink ?? networkLink}' is exhausted.`, { httpCode: 400 });
      }
      const accessConfigs: Obj[] = [];
      for (const [j, c] of ((n.accessConfigs ?? []) as Obj[]).entries()) {
        let natIP: string;
        if (typeof c.natIP === 'string' && c.natIP !== '') {
          const reserved = await this.#d.addresses.reserved(trx, project.projectId, project.projectNumber, [inRegion(region)], c.natIP);
          if (!reserved || reserved.body.addressType === 'INTERNAL') throw invalidField(`${at}.accessConfigs[${j}].natIP`, c.natIP, 'The IP address is not a reserved external address of this region.');
          if (reserved.body.status === 'IN_USE') throw resourceInUse('address', `projects/${project.projectId}/regions/${region}/addresses/${reserved.name}`, String(reserved.body.users?.[0] ?? '').replace(LINK_BASE, ''));
          await this.#use(trx, reserved, instanceLink);
          natIP = String(reserved.body.address);
        } else natIP = externalAddress(this.#d.ids);
        accessConfigs.push({ kind: 'compute#accessConfig', type: c.type ?? 'ONE_TO_ONE_NAT', name: c.name ?? 'External NAT', natIP, networkTier: c.networkTier ?? 'PREMIUM' });
      }
      out.push({
        kind: 'compute#networkInterface',
        network: networkLink,
        ...(subnetworkLink ? { subnetwork: subnetworkLink } : {}),
        networkIP,
        name: `nic${i}`,
        fingerprint: this.#fingerprint(),
        stackType: n.stackType ?? 'IPV4_ONLY',
        ...(accessConfigs.length ? { accessConfigs } : {}),
        ...(n.aliasIpRanges ? { aliasIpRanges: n.aliasIpRanges } : {}),
      });
    }
    return out;
  }

  /** A reserved address now used by an instance. */
  async #use(trx: Kysely<Database>, a: StoredResource, instanceLink: string): Promise<void> {
    await this.#d.resources.update(trx, { ...a, body: { ...a.body, status: 'IN_USE', users: [...((a.body.users ?? []) as string[]), instanceLink] } });
  }

  /** Creates the disks made with the instance; attaches the existing ones it names (a disk another instance writes to is refused). */
  async #attachDisks(trx: Kysely<Database>, project: Project, zone: string, created: NewDisk[], sources: string[], link: string, now: number): Promise<void> {
    const scope = inZone(zone);
    for (const d of created) {
      const disk: StoredResource = {
        kind: DISKS.kind, projectNumber: project.projectNumber, scope, name: d.name, id: this.#d.operations.newId(), creationMs: now,
        body: { kind: 'compute#disk', ...d.body, status: 'READY', users: [link], labelFingerprint: '42WmSpB8rSM=', physicalBlockSizeBytes: '4096', lastAttachTimestamp: computeTimestamp(now) },
      };
      disk.body.id = disk.id;
      disk.body.creationTimestamp = computeTimestamp(now);
      if (!(await this.#d.resources.insertIfAbsent(trx, disk))) throw alreadyExists(diskPath(project.projectId, zone, d.name));
    }
    for (const path of sources) {
      const name = path.split('/').pop()!;
      const disk = await this.#d.resources.get(trx, DISKS.kind, project.projectNumber, scope, name);
      if (!disk) throw resourceNotFound(path);
      const users = (disk.body.users ?? []) as string[];
      if (users.length) throw resourceInUse('disk', path, users[0].replace(LINK_BASE, ''));
      await this.#d.resources.update(trx, { ...disk, body: { ...disk.body, users: [link], lastAttachTimestamp: computeTimestamp(now) } });
    }
  }
}
