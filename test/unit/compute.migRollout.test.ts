import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type GroupMember, type RolloutGoal, type RolloutStep, isAvailable, isEmptyStep, newMemberTemplates, nextStep, rolloutStatus, updatedTemplates } from '../../src/services/compute/instanceGroupManager/rollout.ts';

const running = (name: string, template: string): GroupMember => ({ name, template, status: 'RUNNING', action: 'NONE' });
const group = (n: number, template: string) => Array.from({ length: n }, (_, i) => running(`m-${i}`, template));
const goal = (size: number, over: Partial<RolloutGoal> = {}): RolloutGoal => ({
  size,
  versions: [{ template: 'new', count: size }],
  maxSurge: 1,
  maxUnavailable: 1,
  replace: true,
  method: 'SUBSTITUTE',
  ...over,
});

/** What the service does with a step: creates, deletes and recreates start (in flight). */
function apply(members: GroupMember[], step: RolloutStep, fresh: () => string): GroupMember[] {
  const out = members.map((m) => {
    if (step.delete.includes(m.name)) return { ...m, action: 'DELETING' as const };
    const r = step.recreate.find((x) => x.name === m.name);
    return r ? { ...m, template: r.template, status: 'STOPPING', action: 'RECREATING' as const } : m;
  });
  for (const t of step.create) out.push({ name: fresh(), template: t, status: 'PROVISIONING', action: 'CREATING' });
  return out;
}

/** In-flight actions finish: those `done` picks (all by default). */
function finish(members: GroupMember[], done: (m: GroupMember) => boolean = () => true): GroupMember[] {
  return members.flatMap((m) => {
    if (m.action === 'NONE' || !done(m)) return [m];
    return m.action === 'DELETING' ? [] : [{ ...m, status: 'RUNNING', action: 'NONE' as const }];
  });
}

const bounds = (members: readonly GroupMember[]) => ({ existing: members.length, available: members.filter(isAvailable).length });

describe('the rolling-update planner', () => {
  test('maxSurge 1, maxUnavailable 0: one new instance first, an old one goes once it runs', () => {
    let ms = group(3, 'old');
    const g = goal(3, { maxUnavailable: 0 });
    const s1 = nextStep(ms, g);
    assert.deepEqual(s1, { create: ['new'], delete: [], recreate: [] });
    ms = apply(ms, s1, () => 'n-1');
    assert.ok(isEmptyStep(nextStep(ms, g)), 'waits for the new instance');
    ms = finish(ms);
    const s2 = nextStep(ms, g);
    assert.equal(s2.delete.length, 1);
    assert.equal(s2.create.length, 0);
  });

  test('maxSurge 0, maxUnavailable 2: two old instances go, then two new ones come', () => {
    const ms = group(4, 'old');
    const s = nextStep(ms, goal(4, { maxSurge: 0, maxUnavailable: 2 }));
    assert.deepEqual(s.create, []);
    assert.equal(s.delete.length, 2);
    const after = finish(apply(ms, s, () => 'x'));
    assert.deepEqual(nextStep(after, goal(4, { maxSurge: 0, maxUnavailable: 2 })).create, ['new', 'new']);
  });

  test('RECREATE replaces in place within maxUnavailable', () => {
    const s = nextStep(group(3, 'old'), goal(3, { maxSurge: 0, maxUnavailable: 1, method: 'RECREATE' }));
    assert.deepEqual(s, { create: [], delete: [], recreate: [{ name: 'm-0', template: 'new' }] });
  });

  test('a canary: only the canary\'s share is replaced', () => {
    let ms = group(4, 'old');
    const g = goal(4, { versions: [{ template: 'old', count: 3 }, { template: 'new', count: 1 }], maxSurge: 1, maxUnavailable: 0 });
    for (let i = 0; i < 10; i++) ms = finish(apply(ms, nextStep(ms, g), () => `n-${i}`));
    assert.deepEqual(ms.map((m) => m.template).sort(), ['new', 'old', 'old', 'old']);
    assert.deepEqual(rolloutStatus(ms, g), { isStable: true, isReached: true });
  });

  test('OPPORTUNISTIC (no replacement) only keeps the size: new instances of the target version', () => {
    const ms = group(2, 'old');
    const g = goal(4, { replace: false });
    assert.deepEqual(nextStep(ms, g).create, ['new', 'new']);
    const full = finish(apply(ms, nextStep(ms, g), () => 'x'));
    assert.ok(isEmptyStep(nextStep([...full.slice(0, 2), ...group(2, 'old').map((m) => ({ ...m, name: `o-${m.name}` }))], g)));
    assert.deepEqual(rolloutStatus(group(4, 'old'), g), { isStable: true, isReached: false });
  });

  test('resize down deletes unavailable members first, then those of versions with too many', () => {
    const ms = [running('a', 'new'), { ...running('b', 'new'), status: 'TERMINATED' }, running('c', 'old')];
    const s = nextStep(ms, goal(1, { maxUnavailable: 0 }));
    assert.deepEqual(s.delete.sort(), ['b', 'c']);
  });

  test('status: isStable and isReached while rolling', () => {
    const g = goal(2, { maxUnavailable: 0 });
    const ms = group(2, 'old');
    assert.deepEqual(rolloutStatus(ms, g), { isStable: false, isReached: false });
    const moving = apply(ms, nextStep(ms, g), () => 'n');
    assert.deepEqual(rolloutStatus(moving, g), { isStable: false, isReached: false });
    assert.deepEqual(rolloutStatus(group(2, 'new'), g), { isStable: true, isReached: true });
  });

  // Rollouts from a stable group of the old version to a target of one or two versions, with
  // bounds as Compute's rules allow them, and in-flight actions finishing in any order.
  const rollout = fc
    .record({
      size: fc.integer({ min: 0, max: 25 }),
      canary: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
      maxSurge: fc.integer({ min: 0, max: 6 }),
      maxUnavailable: fc.integer({ min: 0, max: 6 }),
      method: fc.constantFrom('SUBSTITUTE' as const, 'RECREATE' as const),
      finishing: fc.infiniteStream(fc.integer({ min: 0, max: 3 })),
    })
    .filter((r) => (r.method === 'RECREATE' ? r.maxUnavailable > 0 : r.maxSurge + r.maxUnavailable > 0));

  test('property: no step exceeds maxSurge or maxUnavailable, and the rollout converges', () => {
    fc.assert(
      fc.property(rollout, (r) => {
        const maxSurge = r.method === 'RECREATE' ? 0 : r.maxSurge;
        const canary = Math.min(r.canary ?? 0, r.size);
        const versions = r.canary === undefined ? [{ template: 'new', count: r.size }] : [{ template: 'new', count: r.size - canary }, { template: 'canary', count: canary }];
        const g: RolloutGoal = { size: r.size, versions, maxSurge, maxUnavailable: r.maxUnavailable, replace: true, method: r.method };
        let ms = group(r.size, 'old');
        let n = 0;
        const picks = r.finishing[Symbol.iterator]();
        for (let round = 0; round < 20 * (r.size + 2); round++) {
          const step = nextStep(ms, g);
          if (isEmptyStep(step) && ms.every((m) => m.action === 'NONE')) break;
          ms = apply(ms, step, () => `n-${n++}`);
          const b = bounds(ms);
          assert.ok(b.existing <= r.size + maxSurge, `${b.existing} instances > ${r.size} + maxSurge ${maxSurge}`);
          assert.ok(r.size - b.available <= r.maxUnavailable, `${r.size - b.available} unavailable > ${r.maxUnavailable}`);
          // some in-flight actions finish (at least one, when any is in flight)
          const k = picks.next().value as number;
          let first = true;
          ms = finish(ms, (m) => {
            const yes = first || (m.name.length + k) % 2 === 0;
            first = false;
            return yes;
          });
        }
        assert.ok(ms.every((m) => m.action === 'NONE'), 'the rollout ended with actions in flight');
        assert.deepEqual(rolloutStatus(ms, g), { isStable: true, isReached: true });
      }),
      { numRuns: 300 },
    );
  });

  test('property: from any state, a step never creates above size + maxSurge nor takes down below size - maxUnavailable beyond where the group already is', () => {
    const member = fc.record({
      template: fc.constantFrom('old', 'new'),
      status: fc.constantFrom('RUNNING', 'PROVISIONING', 'TERMINATED'),
      action: fc.constantFrom('NONE' as const, 'NONE' as const, 'CREATING' as const, 'DELETING' as const, 'RECREATING' as const),
    });
    fc.assert(
      fc.property(fc.array(member, { maxLength: 20 }), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), (raw, size, maxSurge, maxUnavailable, replace) => {
        const ms = raw.map((m, i) => ({ ...m, name: `m-${i}` }));
        const g = goal(size, { maxSurge, maxUnavailable, replace });
        const before = bounds(ms);
        const after = bounds(apply(ms, nextStep(ms, g), () => 'x'));
        assert.ok(after.existing <= Math.max(before.existing, size + maxSurge));
        assert.ok(size - after.available <= Math.max(size - before.available, maxUnavailable));
      }),
      { numRuns: 500 },
    );
  });
});

describe('named members (createInstances) and selective updates (applyUpdatesToInstances)', () => {
  const canary = (size: number, canaries: number): RolloutGoal => goal(size, { versions: [{ template: 'canary', count: canaries }, { template: 'new', count: size - canaries }] });

  test('new members take the versions short of instances first, then the first version', () => {
    // 2 on new; the goal at size 5 wants 2 canaries and 3 new
    assert.deepEqual(newMemberTemplates(group(2, 'new'), canary(5, 2), 3), ['canary', 'canary', 'new']);
    // nothing short: the first version
    assert.deepEqual(newMemberTemplates(group(2, 'new'), goal(2), 1), ['new']);
    // a deleting member does not count
    assert.deepEqual(newMemberTemplates([running('a', 'new'), { ...running('b', 'new'), action: 'DELETING' }], canary(2, 1), 1), ['canary']);
  });

  test('a selected idle member of a version with too many moves to one with too few; the others keep theirs', () => {
    const members = [running('a', 'old'), running('b', 'old'), { ...running('c', 'old'), action: 'CREATING' as const }];
    const all = new Set(['a', 'b', 'c']);
    assert.deepEqual([...updatedTemplates(members, canary(3, 1), all)], [['a', 'canary'], ['b', 'new']], 'the in-flight member is left alone');
    assert.deepEqual([...updatedTemplates(members, canary(3, 1), new Set(['b']))], [['b', 'canary']]);
    assert.deepEqual([...updatedTemplates(group(2, 'new'), goal(2), new Set(['m-0']))], [['m-0', 'new']], 'up to date: stays');
  });
});
