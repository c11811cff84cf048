/**
 * The Autoscaler resource (zonal `autoscalers`, regional `regionAutoscalers`): its insert, patch
 * and update rules and how a stored autoscaler is answered. Pure: the service checks that the
 * target group exists and is not autoscaled already.
 *
 * Compute's rules (discovery document, "Autoscaling groups of instances"):
 * - `target` (required): the managed instance group it scales, in the autoscaler's zone or region;
 * - `autoscalingPolicy.maxNumReplicas` (required) >= `minNumReplicas` >= 0 (min defaults to 1, or
 *   to max when max is 0);
 * - signals: `cpuUtilization.utilizationTarget` in (0, 1], `loadBalancingUtilization.utilizationTarget`
 *   in (0, 1], `customMetricUtilizations[]` each a metric with exactly one of utilizationTarget (> 0,
 *   with utilizationTargetType) or singleInstanceAssignment (> 0); with no signal, CPU at 0.6;
 * - `coolDownPeriodSec` >= 0 (default 60), `mode` ON by default, `scaleInControl` a FixedOrPercent
 *   and a window >= 0, `scalingSchedules` at most 128 (each: schedule, minRequiredReplicas >= 0,
 *   durationSec >= 300; timeZone UTC by default).
 */
import { invalidField, requiredField } from '../errors.ts';
import { applyPatch, checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { LINK_BASE } from '../names.ts';
import { type Scope, scopeKey, scopeLink, scopePath } from '../scope.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';
import { refTarget } from '../usage.ts';

export const AUTOSCALERS: StoredKind = { kind: 'autoscaler', collection: 'autoscalers', schema: 'Autoscaler', aggregatedScopes: ['zone', 'region'], present: (r, projectId) => presentAutoscaler(r, projectId) };

/** The same rows listed in a region: the list's kind is `compute#regionAutoscalerList`. */
export const REGION_AUTOSCALERS: StoredKind = { ...AUTOSCALERS, schema: 'RegionAutoscaler' };

const OUTPUT = ['zone', 'region', 'status', 'statusDetails', 'recommendedSize', 'scalingScheduleStatus'];
const MUTABLE = new Set(['description', 'autoscalingPolicy', 'target']);
const DEFAULT_CPU = { utilizationTarget: 0.6, predictiveMethod: 'NONE' };
const MAX_SCHEDULES = 128;

/** The group an autoscaler body names (required), as a path in the autoscaler's scope: `projects/P/zones/Z/instanceGroupManagers/g`. */
export function autoscalerTarget(body: Record<string, any>, projectId: string, scope: Scope): string {
  if (body.target === undefined || body.target === '') throw requiredField('resource.target');
  const path = refTarget(body.target, 'instanceGroupManagers', { projectId, scope: scopeKey(scope) });
  if (!path || path.split('/').slice(2, 4).join('/') !== scopeKey(scope)) {
    const where = scope.type === 'zone' ? `zone '${scope.name}'` : `region '${scope.type === 'region' ? scope.name : ''}'`;
    throw invalidField('resource.target', body.target, `Target must be a managed instance group in ${where}.`);
  }
  return path;
}

const positive = (v: unknown) => typeof v === 'number' && v > 0;

/** The autoscaling policy with Compute's defaults, checked. */
export function checkPolicy(asked: Record<string, any> | undefined): Record<string, unknown> {
  const at = 'resource.autoscalingPolicy';
  if (!asked || asked.maxNumReplicas === undefined) throw requiredField(`${at}.maxNumReplicas`);
  const max = asked.maxNumReplicas;
  if (max < 0) throw invalidField(`${at}.maxNumReplicas`, max, 'Must be greater than or equal to 0.');
  const min = asked.minNumReplicas ?? Math.min(1, max);
  if (min < 0) throw invalidField(`${at}.minNumReplicas`, min, 'Must be greater than or equal to 0.');
  if (min > max) throw invalidField(`${at}.maxNumReplicas`, max, `The maximum number of replicas must not be lower than the minimum number of replicas (${min}).`);
  if (asked.coolDownPeriodSec !== undefined && asked.coolDownPeriodSec < 0) throw invalidField(`${at}.coolDownPeriodSec`, asked.coolDownPeriodSec, 'Must be greater than or equal to 0.');
  const cpu = asked.cpuUtilization;
  if (cpu?.utilizationTarget !== undefined && !(cpu.utilizationTarget > 0 && cpu.utilizationTarget <= 1)) {
    throw invalidField(`${at}.cpuUtilization.utilizationTarget`, cpu.utilizationTarget, 'Must be a float value in the range (0, 1].');
  }
  const lb = asked.loadBalancingUtilization;
  if (lb?.utilizationTarget !== undefined && !(lb.utilizationTarget > 0 && lb.utilizationTarget <= 1)) {
    throw invalidField(`${at}.loadBalancingUtilization.utilizationTarget`, lb.utilizationTarget, 'Must be a float value in the range (0, 1].');
  }
  const metrics: Record<string, any>[] = asked.customMetricUtilizations ?? [];
  metrics.forEach((m, i) => {
    const f = `${at}.customMetricUtilizations[${i}]`;
    if (!m.metric) throw requiredField(`${f}.metric`);
    const target = m.utilizationTarget !== undefined;
    const single = m.singleInstanceAssignment !== undefined;
    if (target === single) throw invalidField(f, m.metric, 'Exactly one of utilizationTarget or singleInstanceAssignment must be specified.');
    if (target && !positive(m.utilizationTarget)) throw invalidField(`${f}.utilizationTarget`, m.utilizationTarget, 'Must be a positive value.');
    if (single && !positive(m.singleInstanceAssignment)) throw invalidField(`${f}.singleInstanceAssignment`, m.singleInstanceAssignment, 'Must be a positive value.');
    if (single && m.utilizationTargetType !== undefined) throw invalidField(`${f}.utilizationTargetType`, m.utilizationTargetType, 'Only allowed with utilizationTarget.');
  });
  const scaleIn = asked.scaleInControl;
  const scaled = scaleIn?.maxScaledInReplicas;
  if (scaled && (scaled.fixed ?? 0) < 0) throw invalidField(`${at}.scaleInControl.maxScaledInReplicas.fixed`, scaled.fixed, 'Must be greater than or equal to 0.');
  if (scaled && scaled.percent !== undefined && (scaled.percent < 0 || scaled.percent > 100)) throw invalidField(`${at}.scaleInControl.maxScaledInReplicas.percent`, scaled.percent, 'Must be between 0 and 100.');
  if (scaled && scaled.fixed !== undefined && scaled.percent !== undefined) throw invalidField(`${at}.scaleInControl.maxScaledInReplicas`, JSON.stringify(scaled), 'Only one of fixed or percent can be specified.');
  const schedules: Record<string, Record<string, any>> = asked.scalingSchedules ?? {};
  if (Object.keys(schedules).length > MAX_SCHEDULES) throw invalidField(`${at}.scalingSchedules`, `${Object.keys(schedules).length} schedules`, `At most ${MAX_SCHEDULES} scaling schedules are allowed.`);
  const withZone: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(schedules)) {
    const f = `${at}.scalingSchedules[${name}]`;
    if (!s.schedule) throw requiredField(`${f}.schedule`);
    if (s.minRequiredReplicas === undefined) throw requiredField(`${f}.minRequiredReplicas`);
    if (s.minRequiredReplicas < 0) throw invalidField(`${f}.minRequiredReplicas`, s.minRequiredReplicas, 'Must be greater than or equal to 0.');
    if (s.durationSec === undefined) throw requiredField(`${f}.durationSec`);
    if (s.durationSec < 300) throw invalidField(`${f}.durationSec`, s.durationSec, 'Must be at least 300 seconds.');
    withZone[name] = { disabled: false, timeZone: 'UTC', ...s };
  }
  const signalled = cpu !== undefined || lb !== undefined || metrics.length > 0;
  return {
    ...asked,
    minNumReplicas: min,
    maxNumReplicas: max,
    coolDownPeriodSec: asked.coolDownPeriodSec ?? 60,
    mode: asked.mode ?? 'ON',
    ...(signalled ? {} : { cpuUtilization: DEFAULT_CPU }),
    ...(cpu ? { cpuUtilization: { ...DEFAULT_CPU, ...cpu } } : {}),
    ...(lb ? { loadBalancingUtilization: { utilizationTarget: 0.8, ...lb } } : {}),
    ...(metrics.length ? { customMetricUtilizations: metrics.map((m) => (m.utilizationTarget !== undefined ? { utilizationTargetType: 'GAUGE', ...m } : m)) } : {}),
    ...(Object.keys(withZone).length ? { scalingSchedules: withZone } : {}),
  };
}

/** An insert (or update's whole) body: name, target (as a full URL), policy with its defaults. */
export function autoscalerToStore(input: Record<string, any>, target: string): Record<string, unknown> {
  const body = withoutOutputFields(input, OUTPUT) as Record<string, any>;
  const name = checkResourceName(body);
  checkDescription(body);
  return { ...body, name, target: LINK_BASE + target, autoscalingPolicy: checkPolicy(body.autoscalingPolicy) };
}

/** A patch: the given fields over the current ones (the policy's fields over the current policy's), checked again. */
export function patchedAutoscaler(current: Record<string, any>, input: Record<string, any>, target: string | undefined): Record<string, unknown> {
  checkDescription(input);
  const policy = input.autoscalingPolicy === undefined ? current.autoscalingPolicy : { ...current.autoscalingPolicy, ...input.autoscalingPolicy };
  const next = applyPatch(current, { ...input, name: current.name, ...(target ? { target: LINK_BASE + target } : {}) }, MUTABLE, OUTPUT) as Record<string, any>;
  return { ...next, autoscalingPolicy: checkPolicy(policy) };
}

/** An autoscaler as Compute answers it. */
export function presentAutoscaler(r: StoredResource, projectId: string): Record<string, unknown> {
  const where = r.scope.type === 'zone' ? { zone: scopeLink(projectId, r.scope) } : { region: scopeLink(projectId, r.scope) };
  return presented('Autoscaler', r, { status: 'ACTIVE' }, { ...where, selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/autoscalers/${r.name}` });
}
