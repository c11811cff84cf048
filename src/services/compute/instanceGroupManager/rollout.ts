/**
 * The rolling-update planner of a managed instance group, pure: given the group's members (their
 * template, status and current action) and its goal (target size, each version's instance count,
 * maxSurge and maxUnavailable as counts, whether instances may be replaced and how), the next
 * step: which instances to create, delete or recreate now. The service applies a step, lets the
 * actions finish (at once in instant mode, on the twin's clock in delayed mode) and asks again
 * until the step is empty.
 *
 * Bounds (what a step never does):
 * - create an instance that takes the group's instances (deleting ones included) above
 *   `size + maxSurge`;
 * - take an available instance (RUNNING, no action) down (delete or recreate) when that leaves
 *   fewer than `size - maxUnavailable` available.
 * So a rollout started from a stable group stays within both bounds at every step, and a resize
 * only ever creates up to the room the bounds leave. In-flight members (CREATING, DELETING,
 * RECREATING) are never touched: the plan waits for them.
 *
 * Order of a step: a group above its size deletes members of versions that have too many
 * (unavailable ones first); below its size it creates members of versions that have too few;
 * then (PROACTIVE, REPLACE allowed) it replaces members of versions with too many by members of
 * versions with too few: SUBSTITUTE creates new ones within maxSurge and deletes old ones within
 * maxUnavailable (the next steps even the size out again), RECREATE recreates old ones in place
 * within maxUnavailable.
 */

/** A member's current action, as listManagedInstances answers it (the ones the planner makes, and applyUpdatesToInstances' RESTARTING). */
export type MemberAction = 'NONE' | 'CREATING' | 'DELETING' | 'RECREATING' | 'RESTARTING';

export interface GroupMember {
  name: string;
  /** The template the member runs (a RECREATING member: the one it is being recreated from). */
  template: string;
  /** The instance's status: RUNNING, PROVISIONING, STAGING, STOPPING, TERMINATED, ... */
  status: string;
  action: MemberAction;
}

export interface RolloutGoal {
  size: number;
  /** Each version's template and instance count (the counts add up to `size`). */
  versions: readonly { template: string; count: number }[];
  maxSurge: number;
  maxUnavailable: number;
  /** PROACTIVE with REPLACE allowed: members of other versions are replaced. Otherwise only the size is kept. */
  replace: boolean;
  method: 'SUBSTITUTE' | 'RECREATE';
}

export interface RolloutStep {
  /** One template per instance to create. */
  create: string[];
  /** Names of members to delete. */
  delete: string[];
  /** Members to recreate in place from another template. */
  recreate: { name: string; template: string }[];
}

export const isAvailable = (m: GroupMember): boolean => m.action === 'NONE' && m.status === 'RUNNING';

/**
 * The bounds a plan keeps, as counts. Both 0 (a percent of a small group rounded to 0) would
 * never let a replacement start: one instance may then be unavailable; RECREATE needs that too.
 */
export function effectiveBounds(g: RolloutGoal): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = g.method === 'RECREATE' ? 0 : g.maxSurge;
  return { maxSurge, maxUnavailable: maxSurge === 0 ? Math.max(1, g.maxUnavailable) : g.maxUnavailable };
}

export const EMPTY_STEP: RolloutStep = Object.freeze({ create: [], delete: [], recreate: [] }) as RolloutStep;

export const isEmptyStep = (s: RolloutStep): boolean => s.create.length === 0 && s.delete.length === 0 && s.recreate.length === 0;

export function nextStep(members: readonly GroupMember[], goal: RolloutGoal): RolloutStep {
  const { maxSurge, maxUnavailable } = effectiveBounds(goal);
  const size = goal.size;
  const step: RolloutStep = { create: [], delete: [], recreate: [] };
  const want = new Map(goal.versions.map((v) => [v.template, v.count]));
  const have = new Map<string, number>();
  const live = members.filter((m) => m.action !== 'DELETING');
  for (const m of live) have.set(m.template, (have.get(m.template) ?? 0) + 1);
  const excess = (t: string) => (have.get(t) ?? 0) - (want.get(t) ?? 0);
  let existing = members.length;
  let liveCount = live.length;
  let available = live.filter(isAvailable).length;
  const minAvailable = size - maxUnavailable;
  // Idle members that may be taken down, unavailable ones first (taking them down costs no availability).
  const idle = live.filter((m) => m.action === 'NONE').sort((a, b) => Number(isAvailable(a)) - Number(isAvailable(b)));
  const taken = new Set<string>();
  /** Takes `m` down if the availability bound allows it. */
  const takeDown = (m: GroupMember): boolean => {
    if (isAvailable(m)) {
      if (available - 1 < minAvailable) return false;
      available--;
    }
    taken.add(m.name);
    have.set(m.template, (have.get(m.template) ?? 0) - 1);
    return true;
  };
  /** The template of the next version short of instances, counted as had. */
  const shortTemplate = (): string | undefined => {
    const v = goal.versions.find((x) => (have.get(x.template) ?? 0) < x.count);
    if (v) have.set(v.template, (have.get(v.template) ?? 0) + 1);
    return v?.template;
  };

  // 1. Above size: delete members of versions with too many (any member when not replacing).
  for (const m of idle) {
    if (liveCount <= size) break;
    if (goal.replace && excess(m.template) <= 0) continue;
    if (takeDown(m)) {
      step.delete.push(m.name);
      liveCount--;
    }
  }
  // 2. Below size: create members of versions with too few, within the surge room.
  while (liveCount < size && existing < size + maxSurge) {
    const t = shortTemplate() ?? goal.versions[0]?.template;
    if (t === undefined) break;
    step.create.push(t);
    liveCount++;
    existing++;
  }
  if (!goal.replace) return step;

  // 3. Replace members of versions with too many by members of versions with too few.
  let short = goal.versions.reduce((n, v) => n + Math.max(0, v.count - (have.get(v.template) ?? 0)), 0);
  const old = idle.filter((m) => !taken.has(m.name));
  if (goal.method === 'RECREATE') {
    for (const m of old) {
      if (short === 0) break;
      if (excess(m.template) <= 0 || !takeDown(m)) continue;
      const t = shortTemplate() as string;
      step.recreate.push({ name: m.name, template: t });
      short--;
    }
    return step;
  }
  while (short > 0 && existing < size + maxSurge) {
    step.create.push(shortTemplate() as string);
    existing++;
    liveCount++;
    short--;
  }
  for (const m of old) {
    if (short === 0) break;
    if (excess(m.template) <= 0 || !takeDown(m)) continue;
    step.delete.push(m.name);
    liveCount--;
    short--;
  }
  return step;
}

/** How many live (not DELETING) members run each template. */
function liveCounts(members: readonly GroupMember[]): Map<string, number> {
  const have = new Map<string, number>();
  for (const m of members) if (m.action !== 'DELETING') have.set(m.template, (have.get(m.template) ?? 0) + 1);
  return have;
}

/** The template of each of `n` members named by createInstances: the versions short of their count first, in order, then the first version's. */
export function newMemberTemplates(members: readonly GroupMember[], goal: RolloutGoal, n: number): string[] {
  const have = liveCounts(members);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = goal.versions.find((x) => (have.get(x.template) ?? 0) < x.count) ?? goal.versions[0];
    have.set(v.template, (have.get(v.template) ?? 0) + 1);
    out.push(v.template);
  }
  return out;
}

/**
 * applyUpdatesToInstances: the template each selected idle member is to run. A member of a version
 * with more members than its count moves to a version with fewer (its update needs REPLACE); the
 * others keep theirs.
 */
export function updatedTemplates(members: readonly GroupMember[], goal: RolloutGoal, selected: ReadonlySet<string>): Map<string, string> {
  const have = liveCounts(members);
  const want = new Map(goal.versions.map((v) => [v.template, v.count]));
  const out = new Map<string, string>();
  for (const m of members) {
    if (!selected.has(m.name) || m.action !== 'NONE') continue;
    const short = goal.versions.find((v) => (have.get(v.template) ?? 0) < v.count);
    if (short && (have.get(m.template) ?? 0) > (want.get(m.template) ?? 0)) {
      have.set(m.template, (have.get(m.template) ?? 0) - 1);
      have.set(short.template, (have.get(short.template) ?? 0) + 1);
      out.set(m.name, short.template);
    } else out.set(m.name, m.template);
  }
  return out;
}

/** `status.isStable` (no member has an action and nothing is left to do) and `status.versionTarget.isReached` (every version has its count). */
export function rolloutStatus(members: readonly GroupMember[], goal: RolloutGoal): { isStable: boolean; isReached: boolean } {
  const idle = members.every((m) => m.action === 'NONE');
  const isStable = idle && isEmptyStep(nextStep(members, goal));
  const have = new Map<string, number>();
  for (const m of members) have.set(m.template, (have.get(m.template) ?? 0) + 1);
  const isReached = idle && members.length === goal.size && goal.versions.every((v) => (have.get(v.template) ?? 0) === v.count);
  return { isStable, isReached };
}
