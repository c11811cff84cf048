import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { Ids } from '../../../platform/crypto/random.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { OperationEngine } from '../../../platform/operations/engine.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { AUTOSCALERS } from '../autoscaler/resource.ts';
import { alreadyExists, invalidField, requiredField, resourceInUse } from '../errors.ts';
import { instancePath, mergeTemplate } from '../instance/rules.ts';
import type { Instances } from '../instance/service.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import type { ComputeOperations, WireOperation } from '../operation/service.ts';
import { readResourceBody } from '../resourceBody.ts';
import { type Scope, scopeAt } from '../scope.ts';
import type { ResourceReader, StoredKind } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';
import { type ResourceUsage, refTarget } from '../usage.ts';
import { INSTANCE_GROUP_MANAGERS } from './kind.ts';
import { type StoredMember, goalOf, groupPath, groupToStore, managedInstances, memberMetadata, patchedGroup, plannerView, presentGroup, presentInstanceGroup } from './resource.ts';
import { type MemberAction, isEmptyStep, newMemberTemplates, nextStep, updatedTemplates } from './rollout.ts';
import { type UpdateAction, checkApplyUpdates, checkPerInstanceNames, groupZones, instanceName } from './rules.ts';

type Obj = Record<string, any>;
type Project = { projectId: string; projectNumber: string };

export interface InstanceGroupManagerDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  engine: OperationEngine;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  operations: ComputeOperations;
  usage: ResourceUsage;
  instances: Instances;
}

/**
 * What a change does to named members: deleteInstances / abandonInstances / recreateInstances act
 * on members; createInstances makes members of these names; applyUpdatesToInstances updates
 * members (`names`: the members asked for, or every member when `allInstances`).
 */
type MemberChange =
  | { action: 'DELETING' | 'ABANDONING' | 'RECREATING' | 'CREATING'; names: string[] }
  | { action: 'UPDATING'; names: string[] | 'all'; minimalAction: UpdateAction; mostDisruptiveAllowedAction: UpdateAction };

/** What a change's operation carries: the group's new configuration (everything but its members). */
interface ChangeData {
  name: string;
  config: Obj;
  act?: MemberChange;
}

/** Regional groups list as `compute#regionInstanceGroupManagerList`. */
const REGIONAL_LISTING: StoredKind = { ...INSTANCE_GROUP_MANAGERS, schema: 'RegionInstanceGroupManager' };

/** The same rows read as the instance groups they make (`instanceGroups`, `regionInstanceGroups`). */
const INSTANCE_GROUPS: StoredKind = { ...INSTANCE_GROUP_MANAGERS, collection: 'instanceGroups', schema: 'InstanceGroup', present: presentInstanceGroup };
const REGION_INSTANCE_GROUPS: StoredKind = { ...INSTANCE_GROUPS, schema: 'RegionInstanceGroup' };

/**
 * Managed instance groups, zonal and regional (the scope is the call's): insert, get, list,
 * aggregatedList, delete (its instances go too), resize, listManagedInstances,
 * setInstanceTemplate, patch. The group keeps its size and versions with the rolling-update
 * planner (rollout.ts): each step's actions finish a step's delay later on the twin's clock (at
 * once in instant mode), and the group catches up with the clock whenever it is read or changed.
 */
export class InstanceGroupManagers {
  readonly #d: InstanceGroupManagerDeps;
  readonly kind: WritableKind;

  constructor(deps: InstanceGroupManagerDeps) {
    this.#d = deps;
    this.kind = {
      ...INSTANCE_GROUP_MANAGERS,
      present: (r, projectId) => presentGroup(r, projectId),
      afterInsert: (trx, r, p) => this.#settle(trx, p, r),
      afterDelete: (trx, r, p) => this.#removeMembers(trx, p, r),
    };
    deps.writes.register(this.kind);
    deps.operations.register<ChangeData>('compute.instanceGroupManagers.change', async (trx, p) => {
      const r = await deps.resources.get(trx, this.kind.kind, p.projectNumber, scopeAt(p.location), p.targetId);
      if (!r) return undefined;
      const caught = await this.#advance(trx, p, r);
      const body = { ...p.data.config, members: caught.body.members, stepSinceMs: caught.body.stepSinceMs };
      if (p.data.act) await this.#act(trx, p, caught, body, p.data.act);
      await this.#settle(trx, p, { ...caught, body });
      return undefined;
    }, ({ name }) => ({ name }));
    // A group uses its versions' templates: a template's delete asks who uses it.
    deps.usage.register({
      kind: this.kind.kind,
      collection: this.kind.collection,
      refs: (body, at) => ((body.versions ?? []) as Obj[]).map((v) => refTarget(v.instanceTemplate, 'instanceTemplates', { projectId: at.projectId, scope: 'global' })).filter((x): x is string => !!x),
    });
  }

  #delayMs(): number {
    const c = this.#d.engine.config;
    return c.mode === 'delayed' ? c.delayMs : 0;
  }

  #fingerprint = (): string => Buffer.from(this.#d.ids.hex(8), 'hex').toString('base64');

  // ---- the rollout on the twin's clock -----------------------------------------------------

  /** The group caught up with the clock, then stored. */
  async #settle(trx: Kysely<Database>, p: Project, r: StoredResource): Promise<void> {
    await this.#d.resources.update(trx, await this.#advance(trx, p, r));
  }

  /**
   * The group as it stands now: the actions in flight finish once a step's delay has passed
   * since they started, then the next step starts (at that time), until a step is still running
   * or nothing is left to do.
   */
  async #advance(trx: Kysely<Database>, p: Project, r: StoredResource): Promise<StoredResource> {
    const delay = this.#delayMs();
    const now = this.#d.clock.nowMs();
    const body: Obj = { ...r.body, members: ((r.body.members ?? []) as StoredMember[]).map((m) => ({ ...m })) };
    let members: StoredMember[] = body.members;
    for (let guard = 0; guard < 100_000; guard++) {
      let at = now;
      if (members.some((m) => m.action !== 'NONE')) {
        const due = (body.stepSinceMs ?? now) + delay;
        if (now < due) break;
        members = await this.#finish(trx, p, r, members);
        at = due;
      }
      const step = nextStep(plannerView(members), goalOf(body));
      if (isEmptyStep(step)) break;
      const placed = await this.#start(trx, p, r, body, members, step);
      body.stepSinceMs = at;
      if (!placed) break;
    }
    body.members = members;
    return { ...r, body };
  }

  /**
   * Finishes the members' actions: created ones run, deleted ones go, recreated ones come back
   * from their new template. Idle members are not read (a rolling update of N instances finishes
   * about N steps: reading every member at each step made it quadratic).
   */
  async #finish(trx: Kysely<Database>, p: Project, group: StoredResource, members: StoredMember[]): Promise<StoredMember[]> {
    const out: StoredMember[] = [];
    for (const m of members) {
      if (m.action === 'NONE') {
        out.push(m);
        continue;
      }
      const row = await this.#d.resources.get(trx, this.#d.instances.kind.kind, p.projectNumber, { type: 'zone', name: m.zone }, m.name);
      if (m.action === 'DELETING') {
        if (row) await this.#d.instances.removeInstance(trx, p, row);
        continue;
      }
      if ((m.action === 'CREATING' || m.action === 'RESTARTING') && row) {
        const { statusSinceMs: _, ...rest } = row.body;
        await this.#d.resources.update(trx, { ...row, body: { ...rest, status: 'RUNNING' } });
      }
      if (m.action === 'RECREATING') {
        if (row) await this.#d.instances.removeInstance(trx, p, row);
        const placed = await this.#place(trx, p, group, m.zone, m.name, m.template, 'RUNNING');
        if (!placed) continue;
        m.id = placed.id;
      }
      out.push({ ...m, action: 'NONE' });
    }
    return out;
  }

  /** Starts a step's actions; false when an instance could not be created (the group waits, as Compute retries). */
  async #start(trx: Kysely<Database>, p: Project, r: StoredResource, body: Obj, members: StoredMember[], step: ReturnType<typeof nextStep>): Promise<boolean> {
    for (const name of step.delete) {
      const m = members.find((x) => x.name === name)!;
      m.action = 'DELETING';
      await this.#setStatus(trx, p, m, 'STOPPING');
    }
    for (const { name, template } of step.recreate) {
      const m = members.find((x) => x.name === name)!;
      m.action = 'RECREATING';
      m.template = template;
      await this.#setStatus(trx, p, m, 'STOPPING');
    }
    const zones = zonesOf(r.scope, body);
    for (const template of step.create) {
      const zone = leastUsedZone(zones, members);
      const taken = new Set(members.map((m) => m.name));
      let name = instanceName(body.baseInstanceName, taken, () => this.#d.ids.hex(2));
      while (await this.#d.resources.nameTaken(trx, this.#d.instances.kind.kind, p.projectNumber, { type: 'zone', name: zone }, name)) {
        taken.add(name);
        name = instanceName(body.baseInstanceName, taken, () => this.#d.ids.hex(2));
      }
      const placed = await this.#place(trx, p, r, zone, name, template, 'PROVISIONING');
      if (!placed) return false;
      members.push({ name, zone, id: placed.id, template, action: 'CREATING' });
    }
    return true;
  }

  /**
   * Creates one member instance of `group` from its template, with the metadata Compute adds
   * (`memberMetadata`); undefined when Compute would fail to (the template is gone, no address is left).
   */
  async #place(trx: Kysely<Database>, p: Project, group: StoredResource, zone: string, name: string, template: string, status: 'PROVISIONING' | 'RUNNING'): Promise<StoredResource | undefined> {
    try {
      const properties = await this.#d.instances.templateProperties(trx, p, template);
      const metadata = { items: [...((properties.metadata?.items ?? []) as Obj[]), ...memberMetadata(p, group, template)] };
      return await this.#d.instances.placeInstance(trx, p, zone, mergeTemplate(properties, { name, metadata }), status);
    } catch (err) {
      if (err instanceof ApiError) return undefined;
      throw err;
    }
  }

  async #setStatus(trx: Kysely<Database>, p: Project, m: StoredMember, status: string): Promise<void> {
    const row = await this.#d.resources.get(trx, this.#d.instances.kind.kind, p.projectNumber, { type: 'zone', name: m.zone }, m.name);
    if (row) await this.#d.resources.update(trx, { ...row, body: { ...row.body, status } });
  }

  async #removeMembers(trx: Kysely<Database>, p: Project, r: StoredResource): Promise<void> {
    for (const m of (r.body.members ?? []) as StoredMember[]) {
      const row = await this.#d.resources.get(trx, this.#d.instances.kind.kind, p.projectNumber, { type: 'zone', name: m.zone }, m.name);
      if (row) await this.#d.instances.removeInstance(trx, p, row);
    }
  }

  /**
   * Members named by deleteInstances (they go), abandonInstances (they leave the group, their
   * instances stay), recreateInstances, createInstances (made with these names) or
   * applyUpdatesToInstances.
   */
  async #act(trx: Kysely<Database>, p: Project, group: StoredResource, body: Obj, act: MemberChange): Promise<void> {
    const members = body.members as StoredMember[];
    if (act.action === 'ABANDONING') {
      body.members = members.filter((m) => !act.names.includes(m.name));
      return;
    }
    const idle = !members.some((m) => m.action !== 'NONE');
    if (act.action === 'CREATING') await this.#createNamed(trx, p, group, body, act.names);
    else if (act.action === 'UPDATING') await this.#update(trx, p, body, act);
    else {
      for (const m of members) {
        if (!act.names.includes(m.name) || m.action === 'DELETING') continue;
        m.action = act.action;
        await this.#setStatus(trx, p, m, 'STOPPING');
      }
    }
    if (idle) body.stepSinceMs = this.#d.clock.nowMs();
  }

  /**
   * createInstances: a member of each name, from the template of a version short of instances, in
   * the zone with the fewest members. A name taken since the request is skipped (the group makes a
   * `BASE-xxxx` instance in its place, as it keeps its target size).
   */
  async #createNamed(trx: Kysely<Database>, p: Project, group: StoredResource, body: Obj, names: readonly string[]): Promise<void> {
    const members = body.members as StoredMember[];
    const zones = zonesOf(group.scope, body);
    const fresh = names.filter((n) => !members.some((m) => m.name === n));
    const templates = newMemberTemplates(plannerView(members), goalOf(body), fresh.length);
    for (const [i, name] of fresh.entries()) {
      const zone = leastUsedZone(zones, members);
      const placed = await this.#place(trx, p, group, zone, name, templates[i], 'PROVISIONING');
      if (placed) members.push({ name, zone, id: placed.id, template: templates[i], action: 'CREATING' });
    }
  }

  /**
   * applyUpdatesToInstances: each selected idle member whose version has too many members is
   * recreated from a version with too few (REPLACE, when allowed); a member already up to date is
   * recreated when `minimalAction` is REPLACE, restarted when it is RESTART, left running otherwise.
   */
  async #update(trx: Kysely<Database>, p: Project, body: Obj, act: Extract<MemberChange, { action: 'UPDATING' }>): Promise<void> {
    const members = body.members as StoredMember[];
    const selected = new Set(act.names === 'all' ? members.map((m) => m.name) : act.names);
    const targets = updatedTemplates(plannerView(members), goalOf(body), selected);
    for (const m of members) {
      const target = targets.get(m.name);
      if (target === undefined) continue;
      const action = target !== m.template ? 'REPLACE' : act.minimalAction;
      if (action === 'REPLACE' && act.mostDisruptiveAllowedAction === 'REPLACE') {
        m.action = 'RECREATING';
        m.template = target;
      } else if (action === 'RESTART') m.action = 'RESTARTING';
      else continue;
      await this.#setStatus(trx, p, m, 'STOPPING');
    }
  }

  /** Every group the call can see caught up with the clock (reads answer the groups as they stand now). */
  async #catchUp(call: ComputeCall, scopes?: readonly Scope[]): Promise<void> {
    await this.#d.store.db.transaction().execute(async (trx) => {
      for (const r of await this.#d.resources.all(trx, this.kind.kind, call.project.projectNumber, scopes)) {
        const caught = await this.#advance(trx, call.project, r);
        if (JSON.stringify(caught.body) !== JSON.stringify(r.body)) await this.#d.resources.update(trx, caught);
      }
    });
  }

  // ---- the methods -------------------------------------------------------------------------

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('InstanceGroupManager', 'instance_group_manager_resource', call.body);
    const group = groupToStore(body, { projectId: call.project.projectId, scope: call.scope, fingerprint: this.#fingerprint() });
    await this.#templatesExist(call, group);
    return this.#d.writes.insert(call, this.kind, String(group.name), group);
  }

  /** Every version's template must exist (404 naming it). */
  async #templatesExist(call: ComputeCall, group: Obj): Promise<void> {
    for (const v of group.versions as Obj[]) await this.#d.instances.templateProperties(this.#d.store.db, call.project, v.instanceTemplate);
  }

  async get(call: ComputeCall): Promise<Obj> {
    await this.#catchUp(call, [call.scope]);
    return this.#d.reader.get(call, this.kind, 'instanceGroupManager');
  }

  async list(call: ComputeCall): Promise<Obj> {
    await this.#catchUp(call, [call.scope]);
    return this.#d.reader.list(call, call.scope.type === 'region' ? { ...REGIONAL_LISTING, present: this.kind.present } : this.kind);
  }

  async aggregatedList(call: ComputeCall): Promise<Obj> {
    await this.#catchUp(call);
    return this.#d.reader.aggregatedList(call, this.kind);
  }

  /** The instance groups the managed groups make: get, list (zonal or regional), aggregatedList. */
  async instanceGroups(call: ComputeCall, method: 'get' | 'list' | 'aggregatedList'): Promise<Obj> {
    await this.#catchUp(call, method === 'aggregatedList' ? undefined : [call.scope]);
    if (method === 'aggregatedList') return this.#d.reader.aggregatedList(call, INSTANCE_GROUPS);
    if (method === 'get') return this.#d.reader.get(call, INSTANCE_GROUPS, 'instanceGroup');
    return this.#d.reader.list(call, call.scope.type === 'region' ? REGION_INSTANCE_GROUPS : INSTANCE_GROUPS);
  }

  async listManagedInstances(call: ComputeCall): Promise<Obj> {
    await this.#catchUp(call, [call.scope]);
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const rows = new Map<string, StoredResource>();
    for (const m of (r.body.members ?? []) as StoredMember[]) {
      const row = await this.#d.resources.get(this.#d.store.db, this.#d.instances.kind.kind, call.project.projectNumber, { type: 'zone', name: m.zone }, m.name);
      if (row) rows.set(`${m.zone}/${m.name}`, row);
    }
    const items = managedInstances(r, call.project.projectId, (m) => rows.get(`${m.zone}/${m.name}`)?.body.status);
    return items.length ? { managedInstances: items } : {};
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const path = groupPath(call.project.projectId, r.scope, r.name);
    const autoscaler = await this.#d.usage.userOf(this.#d.store.db, call.project, path, (x) => x.kind !== AUTOSCALERS.kind);
    if (autoscaler) throw resourceInUse('instance group manager', path, autoscaler);
    return this.#d.writes.delete(call, this.kind, r);
  }

  async resize(call: ComputeCall): Promise<WireOperation> {
    const size = call.query.size;
    if (size === undefined) throw requiredField('size');
    if (!Number.isInteger(size) || size < 0) throw invalidField('size', size, 'Must be greater than or equal to 0.');
    return this.#change(call, 'resize', (current) => patchedGroup(current, { targetSize: size }, this.#ctx(call)));
  }

  async setInstanceTemplate(call: ComputeCall): Promise<WireOperation> {
    const asked = (call.body ?? {}) as Obj;
    if (!asked.instanceTemplate) throw requiredField('instanceTemplate');
    // The template replaces the group's versions with one of it.
    return this.#change(call, 'setInstanceTemplate', (current) => patchedGroup(current, { instanceTemplate: asked.instanceTemplate, versions: [{ instanceTemplate: asked.instanceTemplate }] }, this.#ctx(call)));
  }

  async patch(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('InstanceGroupManager', 'instance_group_manager_resource', call.body);
    return this.#change(call, 'patch', (current) => patchedGroup(current, body, this.#ctx(call)));
  }

  /**
   * deleteInstances (the group's target size drops by their number), abandonInstances (the same;
   * the instances stay, outside the group) and recreateInstances: `instances` names members by URL.
   */
  async actOnInstances(call: ComputeCall, action: 'DELETING' | 'ABANDONING' | 'RECREATING'): Promise<WireOperation> {
    const asked = (call.body ?? {}) as Obj;
    const urls: unknown[] = Array.isArray(asked.instances) ? asked.instances : [];
    if (urls.length === 0) throw requiredField('instances');
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const names = memberNames(r, urls);
    const shrink = action === 'RECREATING' ? 0 : new Set(names).size;
    const operationType = { DELETING: 'deleteInstances', ABANDONING: 'abandonInstances', RECREATING: 'recreateInstances' }[action];
    return this.#change(call, operationType, (current) => ({ ...current, targetSize: Math.max(0, current.targetSize - shrink) }), { action, names });
  }

  /**
   * createInstances: instances of the names asked for (`instances[].name`), made from the group's
   * versions; the target size grows by their number. A name of a member, or of an instance in one
   * of the group's zones, is refused.
   */
  async createInstances(call: ComputeCall): Promise<WireOperation> {
    const asked = requestBody(call, 'CreateInstancesRequest');
    const names = checkPerInstanceNames(asked);
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const members = (r.body.members ?? []) as StoredMember[];
    for (const [i, name] of names.entries()) {
      if (members.some((m) => m.name === name)) throw invalidField(`instances[${i}].name`, name, `Instance '${name}' is already a member of the managed instance group.`);
      for (const zone of zonesOf(r.scope, r.body)) {
        if (await this.#d.resources.nameTaken(this.#d.store.db, this.#d.instances.kind.kind, call.project.projectNumber, { type: 'zone', name: zone }, name)) {
          throw alreadyExists(instancePath(call.project.projectId, zone, name));
        }
      }
    }
    return this.#change(call, 'createInstances', (current) => ({ ...current, targetSize: current.targetSize + names.length }), { action: 'CREATING', names });
  }

  /**
   * applyUpdatesToInstances: the members asked for (or all) brought to their versions now, whatever
   * the update policy's type, within `mostDisruptiveAllowedAction` (a member whose update needs
   * more is refused), at least `minimalAction` done to each.
   */
  async applyUpdatesToInstances(call: ComputeCall): Promise<WireOperation> {
    const asked = requestBody(call, 'ApplyUpdatesRequest');
    const u = checkApplyUpdates(asked);
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const names = u.allInstances ? 'all' : memberNames(r, u.instances);
    if (u.mostDisruptiveAllowedAction !== 'REPLACE') {
      const members = (r.body.members ?? []) as StoredMember[];
      const targets = updatedTemplates(plannerView(members), goalOf(r.body), new Set(names === 'all' ? members.map((m) => m.name) : names));
      const blocked = members.find((m) => targets.has(m.name) && targets.get(m.name) !== m.template);
      if (blocked) {
        throw invalidField('mostDisruptiveAllowedAction', u.mostDisruptiveAllowedAction, `Updating instance '${blocked.name}' to its version's template requires REPLACE, which is more disruptive than the most disruptive allowed action.`);
      }
    }
    return this.#change(call, 'applyUpdatesToInstances', (current) => current, { action: 'UPDATING', names, minimalAction: u.minimalAction, mostDisruptiveAllowedAction: u.mostDisruptiveAllowedAction });
  }

  #ctx = (call: ComputeCall) => ({ projectId: call.project.projectId, scope: call.scope, fingerprint: this.#fingerprint() });

  /** A change of the group's configuration: checked now, applied (and rolled out) when its operation completes. */
  async #change(call: ComputeCall, operationType: string, change: (current: Obj) => Obj, act?: MemberChange): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'instanceGroupManager');
    const { members: _, stepSinceMs: __, ...config } = change(r.body);
    await this.#templatesExist(call, config);
    return this.#d.operations.start<ChangeData>(call, {
      kind: 'compute.instanceGroupManagers.change',
      scope: r.scope,
      operationType,
      targetLink: LINK_BASE + groupPath(call.project.projectId, r.scope, r.name),
      targetId: r.id,
      data: { name: r.name, config, ...(act ? { act } : {}) },
    });
  }
}


/** The zones a stored group runs in (a regional group's distribution policy's). */
const zonesOf = (scope: Scope, body: Obj): string[] => groupZones(scope, body.distributionPolicy ? { distributionPolicy: { zones: body.distributionPolicy.zones } } : {});

/** Even over the zones: the one with the fewest members. */
const leastUsedZone = (zones: readonly string[], members: readonly StoredMember[]): string =>
  zones.reduce((best, z) => (members.filter((m) => m.zone === z).length < members.filter((m) => m.zone === best).length ? z : best), zones[0]);

/** The members instance URLs name (`instances[i]`: a full or partial URL); 400 naming the first that is not a member. */
function memberNames(r: StoredResource, urls: readonly unknown[]): string[] {
  const members = (r.body.members ?? []) as StoredMember[];
  return urls.map((u, i) => {
    const name = typeof u === 'string' ? u.slice(u.lastIndexOf('/') + 1) : '';
    if (!members.some((m) => m.name === name)) throw invalidField(`instances[${i}]`, u, 'The instance is not a member of the managed instance group.');
    return name;
  });
}

/** The body of a method of both collections, read as `InstanceGroupManagers<schema>` or `RegionInstanceGroupManagers<schema>`. */
function requestBody(call: ComputeCall, schema: 'CreateInstancesRequest' | 'ApplyUpdatesRequest'): Obj {
  const name = `${call.scope.type === 'region' ? 'Region' : ''}InstanceGroupManagers${schema}`;
  const field = `${name.replace(/^[A-Z]/, (c) => c.toLowerCase()).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_resource`;
  return readResourceBody(name, field, call.body ?? {});
}
