/**
 * requestId across processes: concurrent repeats of one insert sent to two cloudtwin instances
 * on one PostgreSQL database start exactly one operation and store one template (the unique
 * index decides). On SQLite (one process per data directory) the repeats go to one instance.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Cloudtwin, createCloudtwin } from '../../src/server.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { CORA, TEMPLATE_SCOPES, computeWorld, templateBody } from '../http/compute.helpers.ts';

describe(`compute requestId across instances on ${TEST_STORE}`, () => {
  let db: TestDatabase;
  const twins: Cloudtwin[] = [];
  let token = '';

  before(async () => {
    db = await freshDatabase();
    const n = TEST_STORE === 'postgres' ? 2 : 1;
    const env = { ...process.env, CLOUDTWIN_MASTER_KEY: randomBytes(32).toString('base64') };
    for (let i = 0; i < n; i++) twins.push(await createCloudtwin({ auth: 'enforce', adminToken: 'test-admin-token', databaseUrl: db.url, env }));
    const admin = (method: 'POST', url: string, payload: unknown) => twins[0].app.inject({ method, url, payload: payload as any, headers: { authorization: 'Bearer test-admin-token' } });
    assert.equal((await admin('POST', '/_twin/v1/world:apply', computeWorld)).statusCode, 200);
    token = (await admin('POST', '/_twin/v1/tokens', { principal: CORA })).json().access_token;
  });
  after(async () => {
    for (const t of twins) await t.close();
    await db?.drop();
  });

  for (const [n, s] of TEMPLATE_SCOPES.entries()) test(`${s.label}: 16 concurrent repeats: one operation, one template; a different body with the same requestId changes nothing`, async () => {
    const rid = `5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1${n}`;
    const send = (i: number, name: string) =>
      twins[i % twins.length].app.inject({ method: 'POST', url: `${s.templatesPath()}?requestId=${rid}`, payload: templateBody(name), headers: { authorization: `Bearer ${token}` } });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => send(i, 'rid-multi')));
    for (const a of answers) assert.equal(a.statusCode, 200, a.body);
    assert.equal(new Set(answers.map((a) => a.json().name)).size, 1);
    const other = await send(1, 'rid-other');
    assert.equal(other.json().name, answers[0].json().name);
    const get = (name: string) => twins[0].app.inject({ method: 'GET', url: s.templatePath(name), headers: { authorization: `Bearer ${token}` } });
    assert.equal((await get('rid-multi')).statusCode, 200);
    assert.equal((await get('rid-other')).statusCode, 404);
  });
});
