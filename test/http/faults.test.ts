import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { TestTwin } from '../support/twin.ts';
import { ALICE, BOB, DEMO, LOOSE } from '../support/world.ts';
import { CORA, computeWorld, templateBody, templatesPath } from './compute.helpers.ts';
import { assertError, errorInfo, keysPath } from './helpers.ts';
import { createApiKey, get, mediaSection, mediaTwinHooks } from './media.world.ts';

const world = { ...computeWorld, quotas: [{ project: DEMO.projectId, service: 'youtube.googleapis.com', dailyLimit: 100_000_000 }], media: mediaSection };

describe('fault injection (admin API /_twin/v1/faults)', () => {
  let t: TestTwin;
  let key: string;
  mediaTwinHooks(
    (twin, k) => {
      t = twin;
      key = k;
    },
    { world },
  );
  beforeEach(async () => {
    assert.equal((await t.admin('DELETE', '/_twin/v1/faults')).statusCode, 200);
  });

  const addRule = async (rule: Record<string, unknown>) => {
    const res = await t.admin('POST', '/_twin/v1/faults', rule);
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  const listKeys = (principal = ALICE, project = DEMO.projectId) => t.call(principal, { method: 'GET', url: keysPath(project) });

  test('an error rule answers in API Keys\' modern envelope, with the ErrorInfo reason, for the next N calls only', async () => {
    const rule = await addRule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED', reason: 'RATE_LIMIT_EXCEEDED' }, when: { next: 2 } });
    assert.match(rule.id, /^f-[0-9a-f]{12}$/);
    for (let i = 0; i < 2; i++) {
      const err = assertError(await listKeys(), 429, 'RESOURCE_EXHAUSTED', 'Quota exceeded or rate limit exceeded.');
      assert.deepEqual(errorInfo(err), {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: { service: 'apikeys.googleapis.com', method: 'google.api.apikeys.v2.ApiKeys.ListKeys' },
      });
      assert.equal(err.errors, undefined);
    }
    assert.equal((await listKeys()).statusCode, 200);
    const shown = (await t.admin('GET', `/_twin/v1/faults/${rule.id}`)).json();
    assert.equal(shown.matched, 3 - 1); // a spent rule stops counting
    assert.equal(shown.injected, 2);
    assert.equal(shown.active, false);
  });

  test('Compute\'s envelope (errors[] with domain global, no status); every Kth call', async () => {
    await addRule({ match: { method: 'compute.regionInstanceTemplates.*' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { every: 3 } });
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await t.call(CORA, { method: 'GET', url: templatesPath() })).statusCode);
    assert.deepEqual(codes, [200, 200, 503, 200, 200, 503]);
    await addRule({ match: { method: 'compute.regionInstanceTemplates.list' }, action: { type: 'error', status: 'INTERNAL', httpCode: 500 } });
    const res = await t.call(CORA, { method: 'GET', url: templatesPath() });
    // the first rule (every 3rd) counts the call too: its 7th match does not fire, the second rule does
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: { code: 500, message: 'Internal error encountered.', errors: [{ message: 'Internal error encountered.', domain: 'global', reason: 'backendError' }] } });
  });

  test('the media service\'s legacy envelope, 429 rateLimitExceeded; rules by API key id and project', async () => {
    const keys = (await t.call(ALICE, { method: 'GET', url: keysPath() })).json().keys as { name: string }[];
    const keyId = keys[0].name.split('/').pop();
    await addRule({ match: { method: 'youtube.search.list', apiKeyId: keyId }, action: { type: 'error', status: 'RESOURCE_EXHAUSTED', reason: 'rateLimitExceeded', domain: 'youtube.quota' }, when: { next: 1 } });
    const other = await createApiKey(t, undefined, LOOSE.projectId);
    // another key is not matched
    assert.equal((await get(t, '/youtube/v3/search?part=snippet', { key: other })).statusCode !== 429, true);
    const res = await get(t, '/youtube/v3/search?part=snippet', { key });
    assert.equal(res.statusCode, 429, res.body);
    const e = res.json().error;
    assert.equal(e.status, 'RESOURCE_EXHAUSTED');
    assert.deepEqual(e.errors, [{ message: 'Quota exceeded or rate limit exceeded.', domain: 'youtube.quota', reason: 'rateLimitExceeded' }]);
    await addRule({ match: { method: 'youtube.*', project: DEMO.projectNumber }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal((await get(t, '/youtube/v3/videos?part=id&id=x', { key })).statusCode, 503);
    assert.notEqual((await get(t, '/youtube/v3/videos?part=id&id=x', { key: other })).statusCode, 503);
  });

  test('rules by principal, by project id or number, by header', async () => {
    await addRule({ match: { method: '*', principal: 'bob@example.com' }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal((await listKeys(BOB)).statusCode, 503);
    assert.equal((await listKeys(ALICE)).statusCode, 200);
    await t.admin('DELETE', '/_twin/v1/faults');
    await addRule({ match: { method: '*', project: DEMO.projectNumber }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal((await listKeys(ALICE, DEMO.projectId)).statusCode, 503);
    assert.equal((await listKeys(ALICE, LOOSE.projectId)).statusCode, 200);
    await t.admin('DELETE', '/_twin/v1/faults');
    await addRule({ match: { method: '*', header: { name: 'X-Chaos', value: 'on' } }, action: { type: 'error', status: 'ABORTED' } });
    assert.equal((await t.call(ALICE, { method: 'GET', url: keysPath(), headers: { 'x-chaos': 'on' } })).statusCode, 409);
    assert.equal((await t.call(ALICE, { method: 'GET', url: keysPath(), headers: { 'x-chaos': 'off' } })).statusCode, 200);
  });

  test('seeded probability gives the same sequence twice; another seed another', async () => {
    const run = async (seed: string) => {
      const rule = await addRule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { probability: 0.5, seed } });
      const seq: number[] = [];
      for (let i = 0; i < 24; i++) seq.push((await listKeys()).statusCode);
      await t.admin('DELETE', `/_twin/v1/faults/${rule.id}`);
      return seq.map((c) => (c === 503 ? 1 : 0)).join('');
    };
    const a = await run('s1');
    assert.equal(await run('s1'), a);
    assert.notEqual(await run('s2'), a);
    assert.match(a, /1/);
    assert.match(a, /0/);
  });

  test('latency delays the answer; expired rules do nothing', async () => {
    await addRule({ match: { method: 'apikeys.projects.locations.keys.get' }, action: { type: 'latency', delayMs: 150 } });
    const t0 = performance.now();
    assert.equal((await t.call(ALICE, { method: 'GET', url: `${keysPath()}/nope` })).statusCode, 404);
    assert.ok(performance.now() - t0 >= 140);
    await t.admin('DELETE', '/_twin/v1/faults');
    const r = await addRule({ match: { method: '*' }, action: { type: 'error', status: 'UNAVAILABLE' }, ttlSeconds: 60 });
    assert.equal((await listKeys()).statusCode, 503);
    assert.equal((await t.admin('POST', '/_twin/v1/clock:advance', { seconds: 61 })).statusCode, 200);
    assert.equal((await listKeys()).statusCode, 200);
    assert.equal((await t.admin('GET', `/_twin/v1/faults/${r.id}`)).json().active, false);
  });

  test('failOperation: the request succeeds, its operation ends with the error and the resource is not made', async () => {
    await addRule({ match: { method: 'apikeys.projects.locations.keys.create' }, action: { type: 'failOperation', status: 'RESOURCE_EXHAUSTED', message: 'Quota exhausted for keys.' }, when: { next: 1 } });
    const res = await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=never-made`, payload: {} });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().error, { code: 8, message: 'Quota exhausted for keys.' });
    assert.equal((await t.call(ALICE, { method: 'GET', url: `${keysPath()}/never-made` })).statusCode, 404);

    await addRule({ match: { method: 'compute.regionInstanceTemplates.insert' }, action: { type: 'failOperation', status: 'RESOURCE_EXHAUSTED', reason: 'QUOTA_EXCEEDED', message: "Quota 'INSTANCE_TEMPLATES' exceeded." }, when: { next: 1 } });
    const ins = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('tpl-faulted') });
    assert.equal(ins.statusCode, 200, ins.body);
    const op = ins.json();
    assert.equal(op.status, 'DONE');
    assert.deepEqual(op.error, { errors: [{ code: 'QUOTA_EXCEEDED', message: "Quota 'INSTANCE_TEMPLATES' exceeded." }] });
    assert.equal(op.httpErrorStatusCode, 429);
    assert.equal((await t.call(CORA, { method: 'GET', url: `${templatesPath()}/tpl-faulted` })).statusCode, 404);
    // the next insert is not faulted
    assert.equal((await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('tpl-ok') })).json().error, undefined);
  });

  test('failOperation in delayed mode: the pending operation ends with the error', async () => {
    assert.equal((await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 50 })).statusCode, 200);
    try {
      await addRule({ match: { method: 'apikeys.projects.locations.keys.create' }, action: { type: 'failOperation', status: 'UNAVAILABLE' }, when: { next: 1 } });
      const res = await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=later-failed`, payload: {} });
      const name = res.json().name;
      assert.equal(res.json().done, undefined);
      await new Promise((r) => setTimeout(r, 80));
      const op = (await t.call(ALICE, { method: 'GET', url: `/v2/${name}` })).json();
      assert.deepEqual(op, { name, done: true, error: { code: 14, message: 'The service is currently unavailable.' } });
    } finally {
      await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    }
  });

  test('the admin API is never faulted, and rules are validated', async () => {
    await addRule({ match: { method: '*' }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal((await t.admin('GET', '/_twin/v1/faults')).statusCode, 200);
    assert.equal((await t.admin('GET', '/_twin/v1/requests')).statusCode, 200);
    assert.equal((await t.twin.app.inject({ method: 'GET', url: '/console/' })).statusCode, 200);
    const bad = await t.admin('POST', '/_twin/v1/faults', { match: { method: '*' }, action: { type: 'error', status: 'NOPE' } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal((await t.admin('POST', '/_twin/v1/faults', { match: {}, action: { type: 'reset' } })).statusCode, 400);
    assert.equal((await t.admin('GET', '/_twin/v1/faults/f-nope')).statusCode, 404);
    assert.equal((await t.admin('DELETE', '/_twin/v1/faults/f-nope')).statusCode, 404);
  });

  test('at most 100 rules are kept: one more is a 400 in the admin envelope, and so is a snapshot with more', async () => {
    for (let i = 0; i < 100; i++) await addRule({ match: { method: `apikeys.nothing${i}` }, action: { type: 'latency', delayMs: 1 } });
    const over = await t.admin('POST', '/_twin/v1/faults', { match: { method: '*' }, action: { type: 'error', status: 'UNAVAILABLE' } });
    assert.equal(over.statusCode, 400, over.body);
    assert.equal(over.json().error.status, 'INVALID_ARGUMENT');
    assert.match(over.json().error.message, /^At most 100 fault rules are kept; one more .* would make 101\.$/);
    assert.equal((await t.admin('GET', '/_twin/v1/faults')).json().faults.length, 100);
    // A snapshot with the 100 is restored; one with 101 is refused whole (the store keeps what it had).
    const snapshot = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.equal((await t.admin('PUT', '/_twin/v1/snapshot', snapshot)).statusCode, 200);
    const rows = snapshot.tables.fault_rules;
    const more = { ...snapshot, tables: { ...snapshot.tables, fault_rules: [...rows, { ...rows[0], id: 'f-000000000101', position: 101 }] } };
    const refused = await t.admin('PUT', '/_twin/v1/snapshot', more);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.json().error.message, /^At most 100 fault rules are kept; this snapshot \(tables.fault_rules\) would make 101\.$/);
    assert.equal((await t.admin('GET', '/_twin/v1/faults')).json().faults.length, 100);
  });

  test('a method pattern with many stars costs a call no more than a plain one', async () => {
    // As a regex, `*********a` took seconds per call on an id that ends otherwise.
    await addRule({ match: { method: '*'.repeat(40) + 'a' }, action: { type: 'error', status: 'UNAVAILABLE' } });
    const res = await listKeys();
    assert.equal(res.statusCode, 200, res.body);
    const journal = await t.admin('GET', `/_twin/v1/requests?method=${'*'.repeat(40)}a`);
    assert.equal(journal.statusCode, 200);
    assert.deepEqual(journal.json().requests, []);
  });

  test('injected answers are counted in /metrics and marked in the journal; reset clears rules and journal', async () => {
    const rule = await addRule({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { next: 1 } });
    await listKeys();
    const metrics = (await t.twin.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, new RegExp(`cloudtwin_faults_injected_total\\{rule="${rule.id}",method="apikeys.projects.locations.keys.list",action="error"\\} 1`));
    const entries = (await t.admin('GET', '/_twin/v1/requests?method=apikeys.projects.locations.keys.list&limit=1')).json().requests;
    assert.deepEqual(entries[0].fault, { rule: rule.id, action: 'error' });
    assert.deepEqual(entries[0].error, { status: 'UNAVAILABLE', reason: 'backendError', message: 'The service is currently unavailable.' });
    assert.equal(entries[0].status, 503);
  });
});
