import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { MALLORY } from '../support/world.ts';
import { NINA, P, VIC, assertComputeError, computeWorld } from './compute.helpers.ts';

const regionsPath = (project = P) => `/compute/v1/projects/${project}/regions`;

describe('regions.list', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('every built-in region, by name, each as regions.get gives it', async () => {
    const res = await t.call(VIC, { method: 'GET', url: regionsPath() });
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json();
    assert.equal(list.kind, 'compute#regionList');
    assert.equal(list.id, `projects/${P}/regions`);
    assert.equal(list.selfLink, `https://www.googleapis.com/compute/v1/projects/${P}/regions`);
    assert.equal(list.nextPageToken, undefined);
    const names = list.items.map((r: { name: string }) => r.name);
    assert.ok(names.includes('us-central1') && names.includes('europe-west1'));
    assert.deepEqual(names, [...names].sort());
    const one = (await t.call(VIC, { method: 'GET', url: `${regionsPath()}/us-central1` })).json();
    assert.deepEqual(list.items.find((r: { name: string }) => r.name === 'us-central1'), one);
  });

  test('maxResults and pageToken walk the same list; filter and orderBy as every Compute list', async () => {
    const all = (await t.call(VIC, { method: 'GET', url: regionsPath() })).json().items.map((r: { name: string }) => r.name);
    const seen: string[] = [];
    let token = '';
    for (let pages = 0; pages < 50; pages++) {
      const res = await t.call(VIC, { method: 'GET', url: `${regionsPath()}?maxResults=7${token ? `&pageToken=${encodeURIComponent(token)}` : ''}` });
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json();
      assert.ok(page.items.length <= 7);
      seen.push(...page.items.map((r: { name: string }) => r.name));
      if (!page.nextPageToken) break;
      token = page.nextPageToken;
    }
    assert.deepEqual(seen, all);
    const us = (await t.call(VIC, { method: 'GET', url: `${regionsPath()}?filter=${encodeURIComponent('name eq "us-.*"')}` })).json();
    assert.deepEqual(us.items.map((r: { name: string }) => r.name), all.filter((n: string) => n.startsWith('us-')));
    const none = (await t.call(VIC, { method: 'GET', url: `${regionsPath()}?filter=${encodeURIComponent('name = "mars1"')}` })).json();
    assert.equal(none.items, undefined);
    const ordered = await t.call(VIC, { method: 'GET', url: `${regionsPath()}?orderBy=creationTimestamp%20desc&maxResults=3` });
    assert.equal(ordered.statusCode, 200, ordered.body);
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${regionsPath()}?orderBy=zones` }), 400, 'invalid', /orderBy/);
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${regionsPath()}?maxResults=501` }), 400, 'invalidParameter');
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${regionsPath()}?pageToken=nonsense` }), 400, 'invalid');
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${regionsPath()}?bogus=1` }), 400, 'badRequest', /Unknown name "bogus"/);
  });

  test('needs compute.regions.list on the project; bad project ids are 400', async () => {
    for (const who of [MALLORY, NINA]) {
      assertComputeError(await t.call(who, { method: 'GET', url: regionsPath() }), 403, 'forbidden', `Required 'compute.regions.list' permission for 'projects/${P}'`);
    }
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: regionsPath('no-such-project-1') }), 403, 'forbidden');
    assertComputeError(await t.call(VIC, { method: 'GET', url: regionsPath('Bad_Project') }), 400, 'invalidParameter');
  });
});
