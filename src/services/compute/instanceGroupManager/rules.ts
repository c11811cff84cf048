/**
 * A managed instance group's rules, pure (no I/O): what an insert or a patch of
 * `instanceGroupManagers` / `regionInstanceGroupManagers` accepts, with Compute's defaults, and
 * the numbers a rolling update works with (each version's share of the group, maxSurge and
 * maxUnavailable as instance counts). The body is the one `readResourceBody` read (JSON field
 * names, known enum values); each rule throws the 400 of the first bad field.
 *
 * Compute's rules, from the discovery document and the public MIG pages:
 * - `baseInstanceName`: `[a-z](([-a-z0-9]{0,57})|([-a-z0-9]{0,51}-#{1,10}(\[[0-9]{1,10}\])?))`
 *   (at most 58 characters; `vm-###` names instances by sequence), by default the group's name
 *   cut to 58 characters;
 * - `targetSize` >= 0 (required);
 * - the template: `instanceTemplate`, or `versions[]` (which override it). Each version names a
 *   template (global or regional: a regional one in the group's region) at most once; with several
 *   versions exactly one has no `targetSize` (it takes the rest); a `targetSize` is `fixed` >= 0
 *   or `percent` in 0..100, never both;
 * - `updatePolicy`: `type` PROACTIVE (default) or OPPORTUNISTIC; `maxSurge` / `maxUnavailable`
 *   fixed >= 0 or percent 0..100 (a percent only in a group of 10 or more instances), defaulting
 *   to a fixed value equal to the group's number of zones, never both 0; a regional group's fixed
 *   value is 0 or at least its number of zones; `replacementMethod` RECREATE needs maxSurge 0;
 *   `minimalAction` no more disruptive than `mostDisruptiveAllowedAction`;
 * - `distributionPolicy.zones` (regional groups): zones of the group's region, each once; by
 *   default every zone of the region (the twin's catalogue gives three per region).
 */
import { REGIONS, ZONES } from '../catalogue.ts';
import { invalidField, requiredField } from '../errors.ts';
import { NAME, NAME_REGEX_TEXT } from '../instanceTemplate/rules/common.ts';
import { LINK_BASE } from '../names.ts';
import type { Scope } from '../scope.ts';

export type FixedOrPercent = { fixed?: number; percent?: number; calculated?: number };

export interface ManagedVersion {
  name?: string;
  instanceTemplate: string;
  targetSize?: FixedOrPercent;
}

/** The action order Compute compares minimalAction and mostDisruptiveAllowedAction by. */
export const ACTION_ORDER = ['NONE', 'REFRESH', 'RESTART', 'REPLACE'] as const;
export type UpdateAction = (typeof ACTION_ORDER)[number];

export interface UpdatePolicy {
  type: 'PROACTIVE' | 'OPPORTUNISTIC';
  maxSurge: FixedOrPercent;
  maxUnavailable: FixedOrPercent;
  minimalAction: UpdateAction;
  mostDisruptiveAllowedAction: UpdateAction;
  replacementMethod: 'SUBSTITUTE' | 'RECREATE';
  instanceRedistributionType?: 'PROACTIVE' | 'NONE';
}

export const BASE_INSTANCE_NAME = /^[a-z](?:[-a-z0-9]{0,57}|[-a-z0-9]{0,51}-#{1,10}(?:\[[0-9]{1,10}\])?)$/;
const BASE_INSTANCE_NAME_TEXT = '[a-z](([-a-z0-9]{0,57})|([-a-z0-9]{0,51}-#{1,10}(\\[[0-9]{1,10}\\])?))';

/** The zones a group of `scope` runs in: its zone, or its region's zones (all of them unless `distributionPolicy` names some). */
export function groupZones(scope: Scope, body: Record<string, any>): string[] {
  if (scope.type === 'zone') return [scope.name];
  if (scope.type !== 'region') return [];
  const regionZones = REGIONS.get(scope.name) ?? [];
  const asked: unknown[] | undefined = body.distributionPolicy?.zones;
  if (!asked || asked.length === 0) return [...regionZones];
  const zones: string[] = [];
  asked.forEach((entry, i) => {
    const field = `resource.distributionPolicy.zones[${i}].zone`;
    const url = (entry as { zone?: unknown } | null)?.zone;
    if (typeof url !== 'string' || url === '') throw requiredField(field);
    const zone = url.slice(url.lastIndexOf('/') + 1);
    if (ZONES.get(zone) !== scope.name) throw invalidField(field, url, `Zone must be in region '${scope.name}'.`);
    if (zones.includes(zone)) throw invalidField(field, url, 'Zone is listed more than once.');
    zones.push(zone);
  });
  return zones;
}

/**
 * `baseInstanceName`: Compute's pattern (at most 58 characters before any `-###`); when the body
 * leaves it out, the group's name cut to 58 characters (what gcloud's `managed create` without
 * `--base-instance-name` relies on: "the prefix of instance group name").
 */
export function checkBaseInstanceName(body: Record<string, any>): string {
  const v = body.baseInstanceName === undefined && typeof body.name === 'string' ? body.name.slice(0, 58) : body.baseInstanceName;
  if (v === undefined || v === '') throw requiredField('resource.baseInstanceName');
  if (typeof v !== 'string' || !BASE_INSTANCE_NAME.test(v)) throw invalidField('resource.baseInstanceName', v, `Must be a match of regex '${BASE_INSTANCE_NAME_TEXT}'`);
  return v;
}

/** `targetSize`: required on insert, an integer >= 0. */
export function checkTargetSize(body: Record<string, any>): number {
  const v = body.targetSize;
  if (v === undefined) throw requiredField('resource.targetSize');
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw invalidField('resource.targetSize', v, 'Must be greater than or equal to 0.');
  return v;
}

/** A FixedOrPercent as asked: exactly one of fixed (>= 0) and percent (0..100). */
function checkFixedOrPercent(v: FixedOrPercent | undefined, field: string): FixedOrPercent | undefined {
  if (v === undefined) return undefined;
  const { fixed, percent } = v;
  if (fixed !== undefined && percent !== undefined) throw invalidField(field, JSON.stringify({ fixed, percent }), 'Only one of fixed or percent can be specified.');
  if (fixed === undefined && percent === undefined) throw invalidField(field, '{}', 'Either fixed or percent must be specified.');
  if (fixed !== undefined && fixed < 0) throw invalidField(`${field}.fixed`, fixed, 'Must be greater than or equal to 0.');
  if (percent !== undefined && (percent < 0 || percent > 100)) throw invalidField(`${field}.percent`, percent, 'Must be between 0 and 100.');
  return fixed !== undefined ? { fixed } : { percent };
}

/** What a template URL must look like: a global template, or a regional one in `region` (when the group has one). */
function checkTemplateUrl(v: unknown, field: string, project: string, region: string | undefined): string {
  if (v === undefined || v === '') throw requiredField(field);
  if (typeof v !== 'string') throw invalidField(field, v, 'Must be an instance template URL.');
  // A URL on any host (gcloud sends its endpoint's: cloudtwin's own), or a partial path.
  const path = v.replace(/^(?:https?:)?\/\/[^/]+\/compute\/(?:v1|beta|alpha)\//, '');
  const m = /^(?:projects\/([^/]+)\/)?(global|regions\/([^/]+))\/instanceTemplates\/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/.exec(path);
  if (!m) throw invalidField(field, v, 'Must be an instance template URL.');
  const [, p = project, , templateRegion, name] = m;
  if (templateRegion !== undefined && templateRegion !== region) throw invalidField(field, v, `Regional instance template must be in region '${region ?? '(none)'}'.`);
  return `${LINK_BASE}projects/${p}/${templateRegion === undefined ? 'global' : `regions/${templateRegion}`}/instanceTemplates/${name}`;
}

/**
 * The group's versions: `versions[]` when given (each template once, names unique, exactly one
 * version without `targetSize` when there are several), else one version of `instanceTemplate`.
 * Template URLs come back full (`https://www.googleapis.com/compute/v1/projects/P/...`).
 */
export function checkVersions(body: Record<string, any>, project: string, region: string | undefined): ManagedVersion[] {
  const asked: Record<string, any>[] | undefined = body.versions;
  if (!asked || asked.length === 0) {
    return [{ instanceTemplate: checkTemplateUrl(body.instanceTemplate, 'resource.instanceTemplate', project, region) }];
  }
  const versions = asked.map((v, i): ManagedVersion => {
    const field = `resource.versions[${i}]`;
    const targetSize = checkFixedOrPercent(v.targetSize, `${field}.targetSize`);
    return { ...(v.name !== undefined ? { name: String(v.name) } : {}), instanceTemplate: checkTemplateUrl(v.instanceTemplate, `${field}.instanceTemplate`, project, region), ...(targetSize ? { targetSize } : {}) };
  });
  versions.forEach((v, i) => {
    if (versions.findIndex((w) => w.instanceTemplate === v.instanceTemplate) !== i) throw invalidField(`resource.versions[${i}].instanceTemplate`, v.instanceTemplate, 'Every instance template can appear at most once in versions.');
    if (v.name !== undefined && versions.findIndex((w) => w.name === v.name) !== i) throw invalidField(`resource.versions[${i}].name`, v.name, 'Version names must be unique.');
  });
  const open = versions.filter((v) => v.targetSize === undefined).length;
  if (versions.length > 1 && open !== 1) {
    throw invalidField('resource.versions', `${versions.length} versions`, 'Exactly one version must leave targetSize unset: it takes the instances the other versions do not.');
  }
  const percents = versions.reduce((sum, v) => sum + (v.targetSize?.percent ?? 0), 0);
  if (percents > 100) throw invalidField('resource.versions', `${percents}%`, 'The versions\' target sizes cannot add up to more than 100%.');
  return versions;
}

/** An instance count from a FixedOrPercent of a group of `size`: a fixed value as given, a percent rounded. */
export function resolveFixedOrPercent(v: FixedOrPercent, size: number): number {
  return v.fixed !== undefined ? v.fixed : Math.round(((v.percent ?? 0) * size) / 100);
}

/** How many of the group's `size` instances each version wants, in `versions`' order (the version without targetSize takes the rest). */
export function versionTargets(versions: readonly ManagedVersion[], size: number): number[] {
  const counts = versions.map((v) => (v.targetSize ? Math.min(size, resolveFixedOrPercent(v.targetSize, size)) : 0));
  const open = versions.findIndex((v) => !v.targetSize);
  const given = counts.reduce((a, b) => a + b, 0);
  if (open >= 0) counts[open] = Math.max(0, size - given);
  return counts;
}

/** The update policy with Compute's defaults, checked against the group's size and zones; `asked` is the body's `updatePolicy`. */
export function checkUpdatePolicy(asked: Record<string, any> | undefined, size: number, zones: number, regional: boolean): UpdatePolicy {
  const a = asked ?? {};
  const maxSurge = checkFixedOrPercent(a.maxSurge, 'resource.updatePolicy.maxSurge');
  const maxUnavailable = checkFixedOrPercent(a.maxUnavailable, 'resource.updatePolicy.maxUnavailable');
  const replacementMethod = a.replacementMethod ?? 'SUBSTITUTE';
  const policy: UpdatePolicy = {
    type: a.type ?? 'PROACTIVE',
    // RECREATE keeps names, so nothing may surge: its default maxSurge is 0.
    maxSurge: maxSurge ?? { fixed: replacementMethod === 'RECREATE' ? 0 : zones },
    maxUnavailable: maxUnavailable ?? { fixed: zones },
    minimalAction: a.minimalAction ?? 'REPLACE',
    mostDisruptiveAllowedAction: a.mostDisruptiveAllowedAction ?? 'REPLACE',
    replacementMethod,
    ...(regional ? { instanceRedistributionType: a.instanceRedistributionType ?? 'PROACTIVE' } : {}),
  };
  for (const [key, v] of [['maxSurge', policy.maxSurge], ['maxUnavailable', policy.maxUnavailable]] as const) {
    const field = `resource.updatePolicy.${key}`;
    if (v.percent !== undefined && size < 10) throw invalidField(`${field}.percent`, v.percent, 'A percent can only be used in a group of 10 or more instances; use a fixed value.');
    if (regional && v.fixed !== undefined && v.fixed !== 0 && v.fixed < zones) {
      throw invalidField(`${field}.fixed`, v.fixed, `Fixed value must be 0 or at least the number of zones of the regional managed instance group (${zones}).`);
    }
  }
  if (isZero(policy.maxSurge) && isZero(policy.maxUnavailable)) {
    throw invalidField('resource.updatePolicy', 'maxSurge: 0, maxUnavailable: 0', 'At least one of maxSurge or maxUnavailable must be greater than 0.');
  }
  if (policy.replacementMethod === 'RECREATE' && !isZero(policy.maxSurge)) {
    throw invalidField('resource.updatePolicy.maxSurge', JSON.stringify(policy.maxSurge), 'maxSurge must be 0 when replacementMethod is RECREATE.');
  }
  if (ACTION_ORDER.indexOf(policy.minimalAction) > ACTION_ORDER.indexOf(policy.mostDisruptiveAllowedAction)) {
    throw invalidField('resource.updatePolicy.minimalAction', policy.minimalAction, `Minimal action cannot be more disruptive than the most disruptive allowed action (${policy.mostDisruptiveAllowedAction}).`);
  }
  return policy;
}

const isZero = (v: FixedOrPercent) => (v.fixed ?? v.percent) === 0;

/** The policy as Compute answers it: maxSurge and maxUnavailable with their `calculated` counts for the group's size. */
export function presentedPolicy(p: UpdatePolicy, size: number): UpdatePolicy {
  return {
    ...p,
    maxSurge: { ...p.maxSurge, calculated: resolveFixedOrPercent(p.maxSurge, size) },
    maxUnavailable: { ...p.maxUnavailable, calculated: resolveFixedOrPercent(p.maxUnavailable, size) },
  };
}

/**
 * The name of a new instance: `BASE-xxxx` (four random letters or digits, drawn by `random` until
 * the name is free), or with a `-###` base the next free sequence number on as many digits
 * (`vm-##[10]` starts at 10).
 */
export function instanceName(base: string, taken: ReadonlySet<string>, random: () => string): string {
  const seq = /^(.*-)(#{1,10})(?:\[([0-9]{1,10})\])?$/.exec(base);
  if (seq) {
    const [, prefix, hashes, start = '1'] = seq;
    for (let n = Number(start); ; n++) {
      const name = `${prefix}${String(n).padStart(hashes.length, '0')}`;
      if (!taken.has(name)) return name;
    }
  }
  for (;;) {
    const name = `${base}-${random()}`;
    if (!taken.has(name)) return name;
  }
}

/**
 * createInstances' `instances[]` (per-instance configs): each names its instance with Compute's
 * resource-name pattern, each name once. Answers the names in order.
 */
export function checkPerInstanceNames(body: Record<string, any>): string[] {
  const configs: Record<string, any>[] = body.instances ?? [];
  if (configs.length === 0) throw requiredField('instances');
  const names: string[] = [];
  configs.forEach((c, i) => {
    const field = `instances[${i}].name`;
    const name = c.name;
    if (name === undefined || name === '') throw requiredField(field);
    if (typeof name !== 'string' || !NAME.test(name)) throw invalidField(field, name, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
    if (names.includes(name)) throw invalidField(field, name, 'The instance name is specified more than once.');
    names.push(name);
  });
  return names;
}

/** applyUpdatesToInstances' request: which members (`instances` URLs, or `allInstances`) and the actions, with Compute's defaults (NONE, REPLACE). */
export interface ApplyUpdates {
  instances: string[];
  allInstances: boolean;
  minimalAction: UpdateAction;
  mostDisruptiveAllowedAction: UpdateAction;
}

export function checkApplyUpdates(body: Record<string, any>): ApplyUpdates {
  const instances: string[] = body.instances ?? [];
  const allInstances = body.allInstances === true;
  if (allInstances && instances.length) throw invalidField('instances', `${instances.length} instances`, 'Instances cannot be specified when allInstances is true.');
  if (!allInstances && instances.length === 0) throw requiredField('instances');
  const minimalAction: UpdateAction = body.minimalAction ?? 'NONE';
  const mostDisruptiveAllowedAction: UpdateAction = body.mostDisruptiveAllowedAction ?? 'REPLACE';
  if (ACTION_ORDER.indexOf(minimalAction) > ACTION_ORDER.indexOf(mostDisruptiveAllowedAction)) {
    throw invalidField('minimalAction', minimalAction, `Minimal action cannot be more disruptive than the most disruptive allowed action (${mostDisruptiveAllowedAction}).`);
  }
  return { instances, allInstances, minimalAction, mostDisruptiveAllowedAction };
}
