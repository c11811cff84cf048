/** The media catalogue through the admin API (what `cloudtwin catalog ... --url` uses). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE } from '../support/world.ts';
import { channel, OWNER, video } from '../unit/media.fixture.ts';
import { assertError, fieldViolations } from './helpers.ts';

const CATALOG = '/_twin/v1/media/catalog';
const IMPORT_ID = 'a'.repeat(64);
const CH = 'UCadminadminadminadmin01';

describe('admin API: media catalogue', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });
  const exported = async () => {
    const res = await t.twin.app.inject({ method: 'GET', url: `${CATALOG}:export`, headers: { authorization: `Bearer ${t.twin.adminToken}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    return res.body ? res.body.trim().split('\n').map((l) => JSON.parse(l)) : [];
  };

  test('catalog:write takes bodies up to its own 64 MiB limit, and names that limit past it', async () => {
    const write = (body: string) =>
      t.twin.app.inject({ method: 'POST', url: `${CATALOG}:write`, payload: body, headers: { authorization: `Bearer ${t.twin.adminToken}`, 'content-type': 'application/json' } });
    // 5 MiB (over the API routes' 4 MiB) of valid JSON: read and answered.
    const big = await write('{"entries": []' + ' '.repeat(5 * 1024 * 1024) + '}');
    assert.equal(big.statusCode, 200, big.body);
    assert.deepEqual(big.json(), { written: 0 });
    const over = await write('{"entries": []' + ' '.repeat(70 * 1000 * 1000) + '}');
    assertError(over, 413, 'INVALID_ARGUMENT', `Request payload size exceeds the limit: ${64 * 1024 * 1024} bytes.`);
  });

  test('every route needs the admin token', async () => {
    const userToken = await t.token(ALICE);
    const routes: [string, string, unknown?][] = [
      ['POST', `${CATALOG}:missingReferences`, { channels: [CH] }],
      ['POST', `${CATALOG}:write`, { entries: [OWNER] }],
      ['GET', `${CATALOG}/imports/${IMPORT_ID}`],
      ['DELETE', `${CATALOG}/imports/${IMPORT_ID}`],
      ['GET', `${CATALOG}:export`],
    ];
    for (const [method, url, payload] of routes) {
      for (const authorization of [undefined, `Bearer ${userToken}`]) {
        const res = await t.twin.app.inject({ method: method as any, url, payload: payload as any, headers: authorization ? { authorization } : {} });
        assertError(res, 401, 'UNAUTHENTICATED', /admin token/);
      }
    }
    assert.deepEqual(await exported(), []);
  });

  test('a batch is checked whole: a bad entry or a missing reference writes nothing, each named', async () => {
    const res = await t.admin('POST', `${CATALOG}:write`, {
      entries: [channel(CH, 'Admin', { videoCount: 1 }), { kind: 'youtube#video', id: 'x' }, video('adminVideo1', 'orphan', { channelId: 'UCnosuchchannel000000000' })],
    });
    const err = assertError(res, 400, 'INVALID_ARGUMENT', /^the batch was not written: entries\[1\]: /);
    assert.ok(fieldViolations(err).some((v) => v.field === 'entries[1]'));
    const refs = await t.admin('POST', `${CATALOG}:write`, { entries: [video('adminVideo1', 'orphan', { channelId: 'UCnosuchchannel000000000' })] });
    assert.deepEqual(fieldViolations(assertError(refs, 400, 'INVALID_ARGUMENT')), [{ field: 'entries[0]', description: "snippet.channelId: channel 'UCnosuchchannel000000000' does not exist" }]);
    assert.deepEqual(await exported(), []);
  });

  test('write with an import mark, read and forget the mark, ask which references are missing, export', async () => {
    assert.deepEqual((await t.admin('GET', `${CATALOG}/imports/${IMPORT_ID}`)).json(), { id: IMPORT_ID, afterLine: 0 });
    const res = await t.admin('POST', `${CATALOG}:write`, { entries: [OWNER, channel(CH, 'Admin', { videoCount: 1, contentOwner: OWNER.id }), video('adminVideo1', 'first', { channelId: CH })], import: { id: IMPORT_ID, afterLine: 3 } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { written: 3 });
    assert.deepEqual((await t.admin('GET', `${CATALOG}/imports/${IMPORT_ID}`)).json(), { id: IMPORT_ID, afterLine: 3 });
    const del = await t.twin.app.inject({ method: 'DELETE', url: `${CATALOG}/imports/${IMPORT_ID}`, headers: { authorization: `Bearer ${t.twin.adminToken}` } });
    assert.equal(del.statusCode, 200);
    assert.deepEqual((await t.admin('GET', `${CATALOG}/imports/${IMPORT_ID}`)).json(), { id: IMPORT_ID, afterLine: 0 });
    const missing = await t.admin('POST', `${CATALOG}:missingReferences`, { channels: [CH, 'UCnosuchchannel000000000'], contentOwners: [OWNER.id, 'nobody'] });
    assert.deepEqual(missing.json(), { channels: ['UCnosuchchannel000000000'], contentOwners: ['nobody'] });
    assert.deepEqual((await exported()).map((e) => e.id), [OWNER.id, CH, 'adminVideo1']);
  });

  test('bounded: batch size, id count, import id format', async () => {
    assertError(await t.admin('POST', `${CATALOG}:write`, { entries: Array.from({ length: 5001 }, () => OWNER) }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', `${CATALOG}:missingReferences`, { channels: Array.from({ length: 10_001 }, (_, i) => `c${i}`) }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('GET', `${CATALOG}/imports/not-a-hash`), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', `${CATALOG}:write`, { entries: [], import: { id: IMPORT_ID, afterLine: -1 } }), 400, 'INVALID_ARGUMENT');
    assertError(await t.admin('POST', `${CATALOG}:write`, { entries: [], extra: 1 }), 400, 'INVALID_ARGUMENT');
  });
});
