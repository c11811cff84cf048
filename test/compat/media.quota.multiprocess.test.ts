/**
 * Quota across processes: two `cloudtwin serve` processes on one PostgreSQL database share the
 * daily counter; concurrent searches through both never spend more than the limit.
 * (SQLite allows one process per data directory, so this suite runs on PostgreSQL only.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { DEMO } from '../support/world.ts';
import { mediaWorld } from '../http/media.world.ts';
import { issueKey } from './media.helpers.ts';

const SERVICE = 'youtube.googleapis.com';

describe('media quota across two processes on PostgreSQL', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' }, () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;

  before(async () => {
    db = await freshDatabase();
    // One master key for both processes (key strings are sealed with it).
    const env = { CLOUDTWIN_MASTER_KEY: randomBytes(32).toString('base64') };
    a = await startServer({ databaseUrl: db.url, env });
    b = await startServer({ databaseUrl: db.url, env });
    await a.admin('POST', '/_twin/v1/world:apply', { ...mediaWorld, quotas: [{ project: DEMO.projectId, service: SERVICE, dailyLimit: 2000 }] });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    a?.cleanup();
    b?.cleanup();
    await db?.drop();
  });

  it('60 concurrent searches split over both processes: exactly 20 are served (2000 units / 100)', async () => {
    const key = await issueKey(a);
    const call = (s: ServerProcess) => fetch(`${s.url}/youtube/v3/search?part=id&q=pasta&key=${key}`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call(i % 2 ? a : b)));
    const served = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 403);
    assert.equal(served.length, 20, JSON.stringify(results.map((r) => r.status)));
    assert.equal(refused.length, 40);
    assert.ok(refused.every((r) => r.body.error.errors[0].reason === 'quotaExceeded'));
    const usage = await b.admin('GET', `/_twin/v1/quota/projects/${DEMO.projectId}/services/${SERVICE}`);
    assert.equal(usage.used, 2000);
    // Both processes see the limit change the other made.
    await a.admin('PUT', `/_twin/v1/quota/projects/${DEMO.projectId}/services/${SERVICE}`, { dailyLimit: 2100 });
    assert.equal((await call(b)).status, 200);
    assert.equal((await call(a)).status, 403);
  });
});
