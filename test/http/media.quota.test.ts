/** Quota on the media methods: costs, exhaustion, the Pacific-midnight reset, concurrency, the admin API and the world document. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { BOB, BOUND_OK, LOOSE, OTHER } from '../support/world.ts';
import { YT, assertMediaError, createApiKey, get, mediaWorld, videoId } from './media.world.ts';

const SERVICE = 'youtube.googleapis.com';
const quotaPath = (project: string) => `/_twin/v1/quota/projects/${project}/services/${SERVICE}`;

describe('media quota', () => {
  let t: TestTwin;
  const usage = async (project: string) => {
    const res = await t.admin('GET', quotaPath(project));
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const setLimit = async (project: string, dailyLimit: number) => {
    const res = await t.admin('PUT', quotaPath(project), { dailyLimit });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  twinHooks((twin) => {
    t = twin;
  }, { world: { ...mediaWorld, quotas: [...mediaWorld.quotas, { project: LOOSE.projectNumber, service: SERVICE, dailyLimit: 250 }] } });

  test('the world document sets limits; the admin API reads usage and sets limits; the default is 10,000', async () => {
    const loose = await usage(LOOSE.projectId);
    assert.deepEqual(
      { ...loose, day: undefined, resetTime: undefined },
      { consumer: `projects/${LOOSE.projectNumber}`, project: LOOSE.projectId, projectNumber: LOOSE.projectNumber, service: SERVICE, dailyLimit: 250, used: 0, remaining: 250, day: undefined, resetTime: undefined },
    );
    assert.match(loose.day, /^\d{4}-\d\d-\d\d$/);
    assert.equal((await usage(OTHER.projectNumber)).dailyLimit, 10_000);
    assert.equal((await setLimit(OTHER.projectId, 12_345)).dailyLimit, 12_345);
    assert.equal((await t.admin('GET', quotaPath('no-such-project'))).statusCode, 404);
    assert.equal((await t.admin('PUT', quotaPath(OTHER.projectId), { dailyLimit: -1 })).statusCode, 400);
    assert.equal((await t.admin('PUT', quotaPath(OTHER.projectId), { dailyLimit: 1, extra: 1 })).statusCode, 400);
    assert.equal((await t.twin.app.inject({ method: 'GET', url: quotaPath(OTHER.projectId) })).statusCode, 401);
    const bad = await t.admin('POST', '/_twin/v1/world:apply', { quotas: [{ project: 'missing-project', service: SERVICE, dailyLimit: 5 }] });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error.message, /quotas\[0\]\.project: 'missing-project' does not exist/);
    assert.equal((await t.admin('POST', '/_twin/v1/world:apply', { quotas: [{ project: OTHER.projectId, service: SERVICE, dailyLimit: 1.5 }] })).statusCode, 400);
    const list = (await t.admin('GET', '/_twin/v1/quota')).json().quotas;
    assert.ok(list.some((q: any) => q.project === OTHER.projectId && q.dailyLimit === 12_345));
  });

  test('search costs 100, list methods 1, rejected requests 1; exhausted: 403 quotaExceeded', async () => {
    const key = await createApiKey(t, undefined, LOOSE.projectId);
    assert.equal((await get(t, '/youtube/v3/search?part=id', { key })).statusCode, 200);
    assert.equal((await usage(LOOSE.projectId)).used, 100);
    assert.equal((await get(t, `/youtube/v3/videos?part=id&id=${videoId(1)}`, { key })).statusCode, 200);
    assertMediaError(await get(t, '/youtube/v3/search?part=id&maxResults=1000', { key }), 400, 'invalidParameter', 'global');
    assert.equal((await get(t, '/youtube/v3/search?part=id&forMine=sometimes', { key })).statusCode, 400);
    assert.equal((await usage(LOOSE.projectId)).used, 103);
    assert.equal((await get(t, '/youtube/v3/search?part=id', { key })).statusCode, 200);
    const e = assertMediaError(await get(t, '/youtube/v3/search?part=id', { key }), 403, 'quotaExceeded', 'youtube.quota', {
      message: 'The request cannot be completed because you have exceeded your quota.',
    });
    assert.equal(e.status, 'PERMISSION_DENIED');
    assert.equal((await usage(LOOSE.projectId)).used, 203);
    // What is left still serves cheaper calls, never more than the limit.
    for (let i = 0; i < 47; i++) assert.equal((await get(t, `/youtube/v3/videos?part=id&id=${videoId(1)}`, { key })).statusCode, 200);
    assertMediaError(await get(t, `/youtube/v3/videos?part=id&id=${videoId(1)}`, { key }), 403, 'quotaExceeded', 'youtube.quota');
    // An invalid request on an exhausted project is quotaExceeded too.
    assertMediaError(await get(t, '/youtube/v3/search?part=bogus', { key }), 403, 'quotaExceeded', 'youtube.quota');
    assert.equal((await usage(LOOSE.projectId)).used, 250);
    // A bad key is not the project's to pay.
    assertMediaError(await get(t, '/youtube/v3/search?part=id', { key: 'AIzaSyNotAKeyAtAllxxxxxxxxxxxxxxxxxxxxx' }), 400, 'badRequest', 'global');
    // Raising the limit serves the project again at once.
    await setLimit(LOOSE.projectId, 350);
    assert.equal((await get(t, '/youtube/v3/search?part=id', { key })).statusCode, 200);
    await setLimit(LOOSE.projectId, 250);
  });

  test('the day ends at midnight America/Los_Angeles: advancing the clock there resets the counter', async () => {
    const key = await createApiKey(t, undefined, LOOSE.projectId);
    assertMediaError(await get(t, '/youtube/v3/search?part=id', { key }), 403, 'quotaExceeded', 'youtube.quota');
    const u = await usage(LOOSE.projectId);
    const now = Date.parse((await t.admin('GET', '/_twin/v1/clock')).json().now);
    const untilReset = (Date.parse(u.resetTime) - now) / 1000;
    assert.ok(untilReset > 0 && untilReset <= 25 * 3600, String(untilReset));
    // The reset is at 00:00 Pacific: 07:00 or 08:00 UTC.
    assert.match(u.resetTime, /T0[78]:00:00\.000Z$/);
    await t.admin('POST', '/_twin/v1/clock:advance', { seconds: Math.max(0, untilReset - 5) });
    assertMediaError(await get(t, '/youtube/v3/search?part=id', { key }), 403, 'quotaExceeded', 'youtube.quota');
    await t.admin('POST', '/_twin/v1/clock:advance', { seconds: 10 });
    assert.equal((await get(t, '/youtube/v3/search?part=id', { key })).statusCode, 200);
    const next = await usage(LOOSE.projectId);
    assert.equal(next.used, 100);
    assert.notEqual(next.day, u.day);
  });

  test('concurrent searches never overspend', async () => {
    await setLimit(BOUND_OK.projectId, 1000);
    const key = await createApiKey(t, undefined, BOUND_OK.projectId);
    const results = await Promise.all(Array.from({ length: 30 }, () => get(t, '/youtube/v3/search?part=id&q=pasta', { key })));
    const codes = results.map((r) => r.statusCode).sort();
    assert.equal(codes.filter((c) => c === 200).length, 10);
    assert.equal(codes.filter((c) => c === 403).length, 20);
    assert.equal((await usage(BOUND_OK.projectId)).used, 1000);
  });

  test('a user token without a key is counted against the user', async () => {
    assert.equal((await get(t, '/youtube/v3/search?part=id', { principal: BOB, scopes: [YT('youtube')] })).statusCode, 200);
    const list = (await t.admin('GET', '/_twin/v1/quota')).json().quotas;
    const bob = list.find((q: any) => q.consumer === BOB);
    assert.ok(bob, JSON.stringify(list));
    assert.equal(bob.used, 100);
    assert.equal(bob.project, undefined);
  });
  test('snapshots carry quota limits and usage; reset empties them (last: it wipes the world)', async () => {
    const before = await usage(BOUND_OK.projectId);
    const snap = await t.admin('GET', '/_twin/v1/snapshot');
    assert.equal(snap.statusCode, 200);
    assert.ok(snap.json().tables.quota_limits.length > 0);
    assert.equal((await t.admin('POST', '/_twin/v1/reset')).statusCode, 200);
    assert.equal((await t.admin('GET', quotaPath(BOUND_OK.projectId))).statusCode, 404);
    assert.deepEqual((await t.admin('GET', '/_twin/v1/quota')).json().quotas, []);
    assert.equal((await t.admin('PUT', '/_twin/v1/snapshot', snap.json())).statusCode, 200);
    const after = await usage(BOUND_OK.projectId);
    assert.deepEqual([after.used, after.dailyLimit], [before.used, before.dailyLimit]);
  });
});
