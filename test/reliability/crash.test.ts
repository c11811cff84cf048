/**
 * Durability: an operation acknowledged to a client survives `kill -9` and a restart on the same
 * store (SQLite data directory, or PostgreSQL database with CLOUDTWIN_TEST_STORE=postgres), and a
 * crash leaves nothing half-written.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startServer } from '../support/server.ts';
import { TEST_STORE, freshDatabase } from '../support/store.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';
import { type HttpResult, KeysClient, halfWrittenProblems, newMasterKey, openStoreReader, pollUntil, tempDir, tokenFor, crashSuiteResources } from './helpers.ts';

const keyName = (keyId: string) => `projects/${DEMO.projectNumber}/locations/global/keys/${keyId}`;

describe(`crash recovery on ${TEST_STORE}`, () => {
  const { processes, dirs, databases } = crashSuiteResources();

  /** One store (data dir + database) and master key that successive processes reuse. */
  async function newStore() {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const db = await freshDatabase();
    databases.push(db);
    const masterKey = newMasterKey();
    const boot = async () => {
      const p = await startServer({ dataDir, databaseUrl: db.url, env: { CLOUDTWIN_MASTER_KEY: masterKey } });
      processes.push(p);
      return p;
    };
    return { dataDir, databaseUrl: db.url, boot };
  }

  /** Fires `n` creates (ids `${prefix}0..`) at once; `onAnswer` sees each answer as it arrives. */
  function fireCreates(client: KeysClient, prefix: string, n: number, onAnswer: (answered: number) => void = () => {}) {
    let answered = 0;
    return Promise.all(
      Array.from({ length: n }, (_, i) =>
        client
          .createKey(DEMO.projectId, `${prefix}${i}`)
          .catch((err: Error): HttpResult & { err: Error } => ({ status: 0, body: undefined, err }))
          .then((r) => {
            onAnswer(++answered);
            return { keyId: `${prefix}${i}`, ...r };
          }),
      ),
    );
  }

  /** After the restart: every acknowledged create is done with its key, which exists and works; nothing is half-written. */
  async function checkRecovered(store: { dataDir: string; databaseUrl: string | undefined }, client: KeysClient, acked: { keyId: string; body: any }[]) {
    for (const a of acked) {
      const op = await client.waitDone(a.body.name);
      assert.equal(op.error, undefined, `${a.keyId}: ${JSON.stringify(op.error)}`);
      assert.equal(op.response.name, keyName(a.keyId));
      assert.match(op.response.keyString, /^AIza[\w-]{35}$/);
      if (a.body.response) assert.deepEqual(op.response, a.body.response, `${a.keyId}: the operation's result changed across the restart`);
      const key = await client.getKey(DEMO.projectId, a.keyId);
      assert.equal(key.status, 200, `${a.keyId}: ${JSON.stringify(key.body)}`);
      assert.equal(key.body.uid, op.response.uid);
      const ks = await client.getKeyString(DEMO.projectId, a.keyId);
      assert.equal(ks.body.keyString, op.response.keyString);
      const lookup = await client.lookupKey(op.response.keyString);
      assert.equal(lookup.status, 200, JSON.stringify(lookup.body));
      assert.equal(lookup.body.name, keyName(a.keyId));
    }
    const reader = await openStoreReader(store);
    try {
      // Operations stored before the crash but never acknowledged are completed by the worker too.
      await pollUntil('every stored operation to complete', 15_000, async () => {
        const [{ n }] = await reader.query('SELECT COUNT(*) AS n FROM operations WHERE done = 0');
        return Number(n) === 0 ? true : undefined;
      });
      assert.deepEqual(await halfWrittenProblems(reader), []);
      const rows = await reader.query('SELECT key_id FROM api_keys');
      const ids = rows.map((r) => r.key_id as string);
      assert.equal(new Set(ids).size, ids.length, 'a key id is stored twice');
      for (const a of acked) assert.ok(ids.includes(a.keyId), `${a.keyId} is missing from the store`);
    } finally {
      await reader.close();
    }
    const listed = new Set((await client.listAll(DEMO.projectId)).map((k) => k.name));
    for (const a of acked) assert.ok(listed.has(keyName(a.keyId)), `${a.keyId} is not listed`);
  }

  test('instant mode: creates acknowledged before kill -9 are done after restart, with their keys', { timeout: 60_000 }, async (t) => {
    const store = await newStore();
    const first = await store.boot();
    await first.admin('POST', '/_twin/v1/world:apply', testWorld);
    const token = await tokenFor(first.url, first.adminToken, ALICE);
    const client = new KeysClient(first.url, token);

    const N = 60;
    const KILL_AFTER = 15;
    let killed: Promise<void> | undefined;
    const answers = await fireCreates(client, 'k', N, (answered) => {
      if (answered === KILL_AFTER) killed = first.kill9();
    });
    await killed;
    const acked = answers.filter((a) => a.status === 200);
    const unanswered = answers.filter((a) => a.status === 0);
    t.diagnostic(`${acked.length} of ${N} creates acknowledged before kill -9, ${unanswered.length} cut off`);
    assert.deepEqual(answers.filter((a) => a.status !== 200 && a.status !== 0).map((a) => [a.keyId, a.status, a.body]), [], 'a create failed outright');
    assert.ok(acked.length >= KILL_AFTER);
    for (const a of acked) {
      assert.match(a.body.name, /^operations\/akmf\.p7-/);
      assert.equal(a.body.done, true, 'instant mode acknowledges finished operations');
      assert.equal(a.body.response?.name, keyName(a.keyId));
    }

    const second = await store.boot();
    await checkRecovered(store, client.on(second.url), acked);
    assert.equal(await second.stop(), 0);
  });

  test('delayed mode: creates pending at kill -9 complete after restart when the clock passes their due time', { timeout: 60_000 }, async () => {
    const store = await newStore();
    const first = await store.boot();
    await first.admin('POST', '/_twin/v1/world:apply', testWorld);
    await first.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 60_000 });
    const token = await tokenFor(first.url, first.adminToken, ALICE);
    const client = new KeysClient(first.url, token);

    const answers = await fireCreates(client, 'd', 20);
    await first.kill9();
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.done, undefined, 'a delayed operation is acknowledged before it is done');
    }

    const second = await store.boot();
    const c2 = client.on(second.url);
    // Not due yet: still pending after the restart, and no key exists.
    const pending = await c2.getOperation(answers[0].body.name);
    assert.equal(pending.status, 200);
    assert.equal(pending.body.done, undefined);
    assert.equal((await c2.getKey(DEMO.projectId, answers[0].keyId)).status, 404);

    await second.admin('POST', '/_twin/v1/clock:advance', { seconds: 120 });
    await checkRecovered(store, c2, answers);
    assert.equal(await second.stop(), 0);
  });

  test('delayed mode: the restarted worker completes pending operations when they fall due in real time', { timeout: 60_000 }, async () => {
    const store = await newStore();
    const first = await store.boot();
    await first.admin('POST', '/_twin/v1/world:apply', testWorld);
    await first.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 1500 });
    const token = await tokenFor(first.url, first.adminToken, ALICE);
    const client = new KeysClient(first.url, token);

    const answers = await fireCreates(client, 'w', 10);
    await first.kill9();
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.done, undefined);
    }

    const second = await store.boot();
    const reader = await openStoreReader(store);
    try {
      // The worker (not a read) completes them: watch the store, not the API.
      await pollUntil('the worker to complete the pending creates', 15_000, async () => {
        const [{ n }] = await reader.query('SELECT COUNT(*) AS n FROM operations WHERE done = 0');
        return Number(n) === 0 ? true : undefined;
      });
    } finally {
      await reader.close();
    }
    await checkRecovered(store, client.on(second.url), answers);
    assert.equal(await second.stop(), 0);
  });
});
