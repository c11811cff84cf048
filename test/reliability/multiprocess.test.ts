/**
 * Scale-out: two cloudtwin processes on one PostgreSQL database behave as one service (keys,
 * the 300-key limit, exactly-once operations, the shared clock, the world).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importPKCS8 } from 'jose';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { ALICE, BOUND_OK, CI_SA, DEMO, LOOSE, testWorld } from '../support/world.ts';
import { KeysClient, type StoreReader, newMasterKey, openStoreReader, pollUntil, tokenFor } from './helpers.ts';

const skip = TEST_STORE !== 'postgres' ? 'several processes share one store only on PostgreSQL (CLOUDTWIN_TEST_STORE=postgres)' : false;

// Each test carries the skip (not only the suite), so the runners count them as skipped.
describe('two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let onA: KeysClient;
  let onB: KeysClient;
  let reader: StoreReader;

  before(async () => {
    if (skip) return;
    db = await freshDatabase();
    const env = { CLOUDTWIN_MASTER_KEY: newMasterKey() };
    // Start both at once: concurrent first starts must migrate the empty database safely.
    const started = await Promise.allSettled([startServer({ databaseUrl: db.url, env }), startServer({ databaseUrl: db.url, env })]);
    [a, b] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined!));
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    await a.admin('POST', '/_twin/v1/world:apply', testWorld);
    onA = new KeysClient(a.url, await tokenFor(a.url, a.adminToken, ALICE));
    onB = onA.on(b.url);
    reader = await openStoreReader({ dataDir: a.dataDir, databaseUrl: db.url });
  });

  after(async () => {
    await reader?.close();
    for (const p of [a, b]) {
      if (!p) continue;
      await p.kill9();
      p.cleanup();
    }
    await db?.drop();
  });

  test('a key created through A is visible through B', { skip, timeout: 30_000 }, async () => {
    const created = await onA.createKey(DEMO.projectId, 'shared-key');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const op = created.body.done ? created.body : await onA.waitDone(created.body.name);
    const { keyString, name } = op.response;

    const got = await onB.getKey(DEMO.projectId, 'shared-key');
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.uid, op.response.uid);
    assert.equal(got.body.etag, op.response.etag);
    assert.ok((await onB.listAll(DEMO.projectId)).some((k) => k.name === name), 'B lists the key');
    const lookup = await onB.lookupKey(keyString);
    assert.equal(lookup.status, 200, JSON.stringify(lookup.body));
    assert.equal(lookup.body.name, name);
    const ks = await onB.getKeyString(DEMO.projectId, 'shared-key');
    assert.equal(ks.status, 200, JSON.stringify(ks.body));
    assert.equal(ks.body.keyString, keyString, 'B decrypts the same key string');
    // The operation reads the same through B.
    assert.deepEqual((await onB.getOperation(op.name)).body, op);
  });

  test('the 300-key limit holds across both processes', { skip, timeout: 60_000 }, async (t) => {
    const N = 320;
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => (i % 2 ? onB : onA).createKey(LOOSE.projectId, `limit-${i}`)));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const ops = await Promise.all(answers.map((r, i) => (r.body.done ? r.body : (i % 2 ? onA : onB).waitDone(r.body.name, 30_000))));
    const ok = ops.filter((op) => op.response);
    const failed = ops.filter((op) => op.error);
    t.diagnostic(`${ok.length} created, ${failed.length} refused`);
    assert.equal(ok.length + failed.length, N);
    assert.equal(ok.length, 300);
    for (const op of failed) assert.equal(op.error.code, 8, JSON.stringify(op.error));
    // Through either process, and in the store itself.
    assert.equal((await onA.listAll(LOOSE.projectId)).length, 300);
    assert.equal((await onB.listAll(LOOSE.projectId)).length, 300);
    const [{ n }] = await reader.query('SELECT COUNT(*) AS n FROM api_keys WHERE project_number = ?', [LOOSE.projectNumber]);
    assert.equal(Number(n), 300);
    // One more through each process is refused too.
    for (const c of [onA, onB]) {
      const extra = await c.createKey(LOOSE.projectId, `extra-${c.url === a.url ? 'a' : 'b'}`);
      const op = extra.body.done ? extra.body : await c.waitDone(extra.body.name);
      assert.equal(op.error?.code, 8, JSON.stringify(op));
    }
  });

  test('delayed operations are completed exactly once while both workers run', { skip, timeout: 60_000 }, async () => {
    await a.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 1000 });
    try {
      assert.equal((await b.admin('GET', '/_twin/v1/operations/config')).mode, 'delayed', 'B sees the mode A set');
      const N = 40;
      const answers = await Promise.all(Array.from({ length: N }, (_, i) => (i % 2 ? onB : onA).createKey(BOUND_OK.projectId, `once-${i}`)));
      for (const r of answers) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.done, undefined);
      }
      const names = answers.map((r) => r.body.name as string);
      // Both workers race for the same due operations; watch the store, not the API (a read would complete them too).
      await pollUntil('both workers to complete the operations', 20_000, async () => {
        const rows = await reader.query(`SELECT COUNT(*) AS n FROM operations WHERE done = 0 AND name IN (${names.map(() => '?').join(',')})`, names);
        return Number(rows[0].n) === 0 ? true : undefined;
      });
      const keys = await reader.query('SELECT uid, key_id FROM api_keys WHERE project_number = ?', [BOUND_OK.projectNumber]);
      assert.equal(keys.length, N, 'each create produced exactly one key');
      assert.equal(new Set(keys.map((k) => k.key_id)).size, N);
      const ops = await reader.query(`SELECT name, payload, result, error FROM operations WHERE name IN (${names.map(() => '?').join(',')})`, names);
      const keyUids = new Set(keys.map((k) => k.uid));
      for (const op of ops) {
        assert.equal(op.error, null, `${op.name} failed: ${op.error}`);
        const result = JSON.parse(op.result);
        assert.equal(result.uid, JSON.parse(op.payload).uid);
        assert.ok(keyUids.has(result.uid));
      }
      // The result is stable: the same through A and B, and again later.
      for (const name of names) {
        const [viaA, viaB] = await Promise.all([onA.getOperation(name), onB.getOperation(name)]);
        assert.equal(viaA.body.done, true);
        assert.deepEqual(viaA.body, viaB.body);
      }
      await new Promise((r) => setTimeout(r, 300)); // a few more worker ticks on both sides
      const again = await reader.query(`SELECT name, result FROM operations WHERE name IN (${names.map(() => '?').join(',')})`, names);
      assert.deepEqual(new Map(again.map((o) => [o.name, o.result])), new Map(ops.map((o) => [o.name, o.result])));
    } finally {
      await a.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    }
  });

  test('a clock advance on A is seen by B within a second', { skip, timeout: 30_000 }, async () => {
    const before = await b.admin('GET', '/_twin/v1/clock');
    const advanced = await a.admin('POST', '/_twin/v1/clock:advance', { seconds: 3600 });
    assert.equal(advanced.offsetSeconds, before.offsetSeconds + 3600);
    // B's resource time moves on its own (its worker reloads the shared clock): keys it creates are stamped an hour later.
    const started = Date.now();
    let attempt = 0;
    const stamped = await pollUntil('B to stamp keys with the advanced clock', 1000, async () => {
      const created = await onB.createKey(DEMO.projectId, `clock-${attempt++}`);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const t = Date.parse(created.body.response.createTime);
      return t - Date.parse(before.now) >= 3600_000 ? t : undefined;
    });
    assert.ok(Date.now() - started <= 1000);
    assert.ok(stamped - Date.now() >= 3590_000);
    const seen = await b.admin('GET', '/_twin/v1/clock');
    assert.equal(seen.offsetSeconds, advanced.offsetSeconds);
  });

  test('a world applied on A is seen by B within a second', { skip, timeout: 30_000 }, async () => {
    const late = { projectId: 'late-project', projectNumber: '300000000099' };
    const path = `/v2/projects/${late.projectId}/locations/global/keys`;
    assert.notEqual((await onB.call('GET', path)).status, 200, 'the project does not exist yet');
    await a.admin('POST', '/_twin/v1/world:apply', {
      projects: [{ ...late, parent: 'organizations/100000000001' }],
      iamPolicies: [{ resource: `projects/${late.projectId}`, bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: [ALICE] }] }],
    });
    const started = Date.now();
    await pollUntil('B to see the new project', 1500, async () => ((await onB.call('GET', path)).status === 200 ? true : undefined));
    const elapsed = Date.now() - started;
    assert.ok(elapsed <= 1200, `B saw the world after ${elapsed} ms`);
    // And B acts on it: a key created there through B is visible through A.
    const created = await onB.createKey(late.projectId, 'late-key');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await onA.getKey(late.projectId, 'late-key')).status, 200);
  });

  test('revocations through A reach B at once, cached verifications included', { skip, timeout: 30_000 }, async (t) => {
    const keyFile = await a.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    const kid = keyFile.private_key_id;
    const privateKey = await importPKCS8(keyFile.private_key, 'RS256');
    const iat = Math.floor(Date.now() / 1000);
    const sign = (aud?: string) => {
      const jwt = new SignJWT({ scope: 'https://www.googleapis.com/auth/cloud-platform' }).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(CI_SA).setSubject(CI_SA).setIssuedAt(iat).setExpirationTime(iat + 3600);
      return (aud ? jwt.setAudience(aud) : jwt).sign(privateKey);
    };
    const jwt = await sign();
    const exchanged = await fetch(`${a.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: await sign(`${a.url}/token`) }),
    });
    assert.equal(exchanged.status, 200);
    const fromKey = ((await exchanged.json()) as { access_token: string }).access_token;
    const minted = await tokenFor(a.url, a.adminToken, ALICE);
    const statusOnB = async (bearer: string) => (await new KeysClient(b.url, bearer).call('GET', `/v2/projects/${DEMO.projectId}/locations/global/keys?pageSize=1`)).status;
    // B verifies each once, so each sits in B's caches.
    for (const bearer of [jwt, fromKey, minted]) assert.equal(await statusOnB(bearer), 200);
    /** Milliseconds from `revoke` (on A) until B refuses every one of `bearers`. */
    const untilRefusedOnB = async (revoke: () => Promise<unknown>, bearers: string[]) => {
      await revoke();
      const started = Date.now();
      await pollUntil('B to refuse the revoked credentials', 2000, async () => ((await Promise.all(bearers.map(statusOnB))).every((s) => s === 401) ? true : undefined), 5);
      return Date.now() - started;
    };
    const keyPath = `/_twin/v1/serviceAccounts/${CI_SA}/keys/${kid}`;
    const disabled = await untilRefusedOnB(() => a.admin('POST', `${keyPath}:disable`), [jwt, fromKey]);
    assert.equal(await statusOnB(minted), 200, 'other credentials keep working');
    await a.admin('POST', `${keyPath}:enable`);
    await pollUntil('B to accept the re-enabled key', 2000, async () => ((await statusOnB(jwt)) === 200 && (await statusOnB(fromKey)) === 200 ? true : undefined), 5);
    const revoked = await untilRefusedOnB(() => fetch(`${a.url}/revoke?token=${encodeURIComponent(minted)}`, { method: 'POST' }), [minted]);
    const deleted = await untilRefusedOnB(() => a.admin('DELETE', keyPath), [jwt, fromKey]);
    t.diagnostic(`B refused: ${disabled} ms after disable, ${revoked} ms after /revoke, ${deleted} ms after delete (bound: CREDENTIALS_REFRESH_MS = 100 ms)`);
    // 100 ms plus the polling request in flight; generous for a loaded CI machine.
    for (const ms of [disabled, revoked, deleted]) assert.ok(ms <= 500, `${ms} ms`);
  });
});
