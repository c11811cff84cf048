/**
 * The InstanceGroupManager resource (zonal and regional managed instance groups): the stored
 * group, its members and how it is answered. Pure: the service reads and writes.
 *
 * A stored group is the resource as answered plus its members (`members`, not a field of the
 * resource, so never answered): each member's instance name, zone, template, current action, and
 * `stepSinceMs`, when the actions in flight started (they finish a step's delay later on the
 * twin's clock, at once in instant mode).
 */
import { ZONES } from '../catalogue.ts';
import { invalidField } from '../errors.ts';
import { checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { LINK_BASE } from '../names.ts';
import { parseReference } from '../references.ts';
import { type Scope, scopeLink, scopePath } from '../scope.ts';
import { presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';
import { type GroupMember, type MemberAction, type RolloutGoal, rolloutStatus } from './rollout.ts';
import {
  type ManagedVersion,
  type UpdatePolicy,
  checkBaseInstanceName,
  checkTargetSize,
  checkUpdatePolicy,
  checkVersions,
  groupZones,
  presentedPolicy,
  resolveFixedOrPercent,
  versionTargets,
} from './rules.ts';

type Obj = Record<string, any>;

export interface StoredMember {
  name: string;
  zone: string;
  id: string;
  template: string;
  action: MemberAction;
}

const OUTPUT = ['currentActions', 'status', 'instanceGroup', 'fingerprint', 'zone', 'region', 'members', 'stepSinceMs'];
const ACTIONS = ['abandoning', 'creating', 'creatingWithoutRetries', 'deleting', 'none', 'recreating', 'refreshing', 'restarting', 'resuming', 'starting', 'stopping', 'suspending', 'verifying'];

export const groupPath = (project: string, scope: Scope, name: string) => `${scopePath(project, scope)}/instanceGroupManagers/${name}`;

/**
 * The metadata a group's instance gets besides its template's, as Compute adds it to every
 * instance a managed group makes: `instance-template` (the template it was made from) and
 * `created-by` (the group), each by the project's number (Google's console reads them for an
 * instance's template and group).
 */
export function memberMetadata(project: { projectId: string; projectNumber: string }, group: StoredResource, template: string): { key: string; value: string }[] {
  const ref = parseReference(template, 'instanceTemplates', { project: project.projectId, scope: 'global' });
  return [
    ...(ref ? [{ key: 'instance-template', value: `projects/${project.projectNumber}/${ref.scope}/instanceTemplates/${ref.name}` }] : []),
    { key: 'created-by', value: groupPath(project.projectNumber, group.scope, group.name) },
  ];
}

/** The region whose regional templates the group may use: its own, or its zone's. */
const regionOfScope = (scope: Scope) => (scope.type === 'region' ? scope.name : scope.type === 'zone' ? ZONES.get(scope.name) : undefined);

/** The group's versions, policy and zones from a body, checked together (the size decides what a percent may be). */
function checkShape(body: Obj, projectId: string, scope: Scope): { versions: ManagedVersion[]; policy: UpdatePolicy; zones: string[] } {
  const zones = groupZones(scope, body);
  const versions = checkVersions(body, projectId, regionOfScope(scope));
  const policy = checkUpdatePolicy(body.updatePolicy, body.targetSize, zones.length, scope.type === 'region');
  return { versions, policy, zones };
}

/** The top-level `instanceTemplate` the versions give: the one version's, or the version without a target size. */
const mainTemplate = (versions: readonly ManagedVersion[]) => (versions.find((v) => !v.targetSize) ?? versions[0]).instanceTemplate;

/** An insert body checked, with Compute's defaults: the group to store (no members yet). */
export function groupToStore(input: Obj, ctx: { projectId: string; scope: Scope; fingerprint: string }): Obj {
  const body = withoutOutputFields(input, OUTPUT) as Obj;
  const name = checkResourceName(body);
  checkDescription(body);
  const baseInstanceName = checkBaseInstanceName(body);
  const targetSize = checkTargetSize(body);
  const { versions, policy, zones } = checkShape({ ...body, targetSize }, ctx.projectId, ctx.scope);
  return {
    ...body,
    name,
    baseInstanceName,
    targetSize,
    instanceTemplate: mainTemplate(versions),
    versions,
    updatePolicy: policy,
    ...(ctx.scope.type === 'region' ? { distributionPolicy: { zones: zones.map((z) => ({ zone: `${LINK_BASE}projects/${ctx.projectId}/zones/${z}` })), targetShape: body.distributionPolicy?.targetShape ?? 'EVEN' } } : {}),
    listManagedInstancesResults: body.listManagedInstancesResults ?? 'PAGELESS',
    fingerprint: ctx.fingerprint,
    members: [],
  };
}

/** A patch: versions, instanceTemplate, targetSize, updatePolicy, description; the rest may only repeat what it is. */
export function patchedGroup(current: Obj, input: Obj, ctx: { projectId: string; scope: Scope; fingerprint: string }): Obj {
  const asked = withoutOutputFields(input, OUTPUT) as Obj;
  checkDescription(asked);
  for (const k of ['name', 'baseInstanceName']) {
    if (asked[k] !== undefined && asked[k] !== current[k]) throw invalidField(`resource.${k}`, asked[k], 'This field cannot be changed.');
  }
  const targetSize = asked.targetSize === undefined ? current.targetSize : checkTargetSize(asked);
  // A new template alone replaces the versions; new versions replace the template.
  const versionsAsked = asked.versions ?? (asked.instanceTemplate !== undefined ? undefined : current.versions);
  const policyAsked = asked.updatePolicy === undefined ? current.updatePolicy : { ...current.updatePolicy, ...asked.updatePolicy };
  const { versions, policy } = checkShape({ ...current, ...asked, targetSize, versions: versionsAsked, updatePolicy: stripCalculated(policyAsked) }, ctx.projectId, ctx.scope);
  return { ...current, ...asked, targetSize, instanceTemplate: mainTemplate(versions), versions, updatePolicy: policy, members: current.members, fingerprint: ctx.fingerprint };
}

const stripCalculated = (p: Obj | undefined) => {
  if (!p) return p;
  const { maxSurge, maxUnavailable, ...rest } = p;
  const clean = (v: Obj | undefined) => (v ? (v.fixed !== undefined ? { fixed: v.fixed } : { percent: v.percent }) : undefined);
  return { ...rest, ...(maxSurge ? { maxSurge: clean(maxSurge) } : {}), ...(maxUnavailable ? { maxUnavailable: clean(maxUnavailable) } : {}) };
};

/** What the group's rollout aims at: its size, each version's count, the bounds as counts, whether to replace and how. */
export function goalOf(body: Obj): RolloutGoal {
  const versions: ManagedVersion[] = body.versions;
  const counts = versionTargets(versions, body.targetSize);
  const p: UpdatePolicy = body.updatePolicy;
  return {
    size: body.targetSize,
    versions: versions.map((v, i) => ({ template: v.instanceTemplate, count: counts[i] })),
    maxSurge: resolveFixedOrPercent(p.maxSurge, body.targetSize),
    maxUnavailable: resolveFixedOrPercent(p.maxUnavailable, body.targetSize),
    replace: p.type === 'PROACTIVE' && p.mostDisruptiveAllowedAction === 'REPLACE',
    method: p.replacementMethod,
  };
}

/** The members as the planner sees them: an idle member runs; one in flight is on its way. */
export const plannerView = (members: readonly StoredMember[]): GroupMember[] =>
  members.map((m) => ({ name: m.name, template: m.template, action: m.action, status: m.action === 'NONE' ? 'RUNNING' : m.action === 'CREATING' ? 'PROVISIONING' : 'STOPPING' }));

const versionOf = (body: Obj, template: string) => {
  const v = (body.versions as ManagedVersion[]).find((x) => x.instanceTemplate === template);
  return { instanceTemplate: template, ...(v?.name ? { name: v.name } : {}) };
};

/** A group as Compute answers it: status, current actions and the bounds' calculated counts from its members. */
export function presentGroup(r: StoredResource, projectId: string): Obj {
  const b = r.body;
  const members: StoredMember[] = b.members ?? [];
  const counts: Record<string, number> = Object.fromEntries(ACTIONS.map((a) => [a, 0]));
  for (const m of members) counts[m.action === 'NONE' ? 'none' : m.action.toLowerCase()]++;
  const goal = goalOf(b);
  const { isStable, isReached } = rolloutStatus(plannerView(members), goal);
  const where = r.scope.type === 'zone' ? { zone: scopeLink(projectId, r.scope) } : { region: scopeLink(projectId, r.scope) };
  const counted = versionTargets(b.versions, b.targetSize);
  return presented('InstanceGroupManager', r, {}, {
    ...where,
    versions: (b.versions as ManagedVersion[]).map((v, i) => ({ ...v, ...(v.targetSize ? { targetSize: { ...v.targetSize, calculated: counted[i] } } : {}) })),
    updatePolicy: presentedPolicy(b.updatePolicy, b.targetSize),
    currentActions: counts,
    status: {
      isStable,
      versionTarget: { isReached },
      allInstancesConfig: { effective: true },
      stateful: { hasStatefulConfig: false, perInstanceConfigs: { allEffective: true } },
      ...(b.autoscaler ? { autoscaler: b.autoscaler } : {}),
    },
    instanceGroup: `${scopeLink(projectId, r.scope)}/instanceGroups/${r.name}`,
    selfLink: LINK_BASE + groupPath(projectId, r.scope, r.name),
  });
}

/** listManagedInstances' entries: each member's instance, status, action and version. */
export function managedInstances(r: StoredResource, projectId: string, statusOf: (m: StoredMember) => string | undefined): Obj[] {
  return ((r.body.members ?? []) as StoredMember[]).map((m) => {
    const status = statusOf(m);
    return {
      instance: `${LINK_BASE}projects/${projectId}/zones/${m.zone}/instances/${m.name}`,
      name: m.name,
      ...(status ? { id: m.id, instanceStatus: status } : {}),
      currentAction: m.action,
      version: versionOf(r.body, m.template),
    };
  });
}

/** The instance group a managed group makes (`instanceGroups` / `regionInstanceGroups`): its members as a plain group. */
export function presentInstanceGroup(r: StoredResource, projectId: string): Obj {
  const where = r.scope.type === 'zone' ? { zone: scopeLink(projectId, r.scope) } : { region: scopeLink(projectId, r.scope) };
  return presented('InstanceGroup', r, { fingerprint: '42WmSpB8rSM=' }, {
    ...where,
    ...(r.body.description !== undefined ? { description: r.body.description } : {}),
    ...(r.body.namedPorts ? { namedPorts: r.body.namedPorts } : {}),
    size: ((r.body.members ?? []) as StoredMember[]).length,
    selfLink: `${scopeLink(projectId, r.scope)}/instanceGroups/${r.name}`,
  });
}
