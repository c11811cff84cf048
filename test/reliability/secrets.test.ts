/**
 * Secrets at rest and in logs: key strings are stored only encrypted (AES-256-GCM under the master
 * key) and never logged; the master key and admin token files are private; a process with another
 * master key refuses the store.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';
import { KeysClient, adminCall, newMasterKey, openStoreReader, removeDir, tempDir, tokenFor } from './helpers.ts';

describe(`secrets on ${TEST_STORE}`, () => {
  let dataDir: string;
  let db: TestDatabase;
  let server: ServerProcess | undefined;
  let adminToken: string;
  let client: KeysClient;
  const others: ServerProcess[] = [];
  /** Every key string the server handed out, plus one a client sent that matches no key. */
  const secrets: string[] = [];

  /** Starts the server on the suite's store; no `--admin-token`, so one is generated into the data dir; requests logged. */
  const boot = (env: Record<string, string> = {}) =>
    startServer({ dataDir, databaseUrl: db.url, env, adminToken: null, args: ['--log-level', 'info'] });

  before(async () => {
    dataDir = tempDir();
    db = await freshDatabase();
    server = await boot();
    adminToken = server.adminToken;
    await adminCall(server.url, adminToken, 'POST', '/_twin/v1/world:apply', testWorld);
    client = new KeysClient(server.url, await tokenFor(server.url, adminToken, ALICE));

    for (let i = 0; i < 5; i++) {
      const created = await client.createKey(DEMO.projectId, `secret-${i}`);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const op = created.body.done ? created.body : await client.waitDone(created.body.name);
      const ks = await client.getKeyString(DEMO.projectId, `secret-${i}`);
      assert.equal(ks.status, 200);
      assert.equal(ks.body.keyString, op.response.keyString);
      secrets.push(ks.body.keyString);
      assert.equal((await client.getOperation(op.name)).body.response.keyString, ks.body.keyString);
    }
    secrets.push('AIzaNotAKeyOfThisTwin0123456789abcdefgh');
    // Key strings in URLs and headers, the way clients send them.
    for (const ks of secrets) {
      await client.lookupKey(ks);
      await client.call('GET', `/v2/keys:lookupKey?keyString=${ks}&prettyPrint=false`);
      await fetch(`${server.url}/v2/projects/${DEMO.projectId}/locations/global/keys?key=${ks}`);
      await fetch(`${server.url}/no/such/path?key=${ks}&keyString=${ks}`);
      await fetch(`${server.url}/v2/keys:lookupKey?keyString=${ks}`, { headers: { 'x-goog-api-key': ks } });
    }
  });

  after(async () => {
    for (const p of [server, ...others]) await p?.kill9();
    removeDir(dataDir);
    await db?.drop();
  });

  /** Where each of `secrets` occurs in `haystack` (a name for the report), as "what: secret". */
  function leaks(what: string, haystack: Buffer | string): string[] {
    const text = Buffer.isBuffer(haystack) ? haystack.toString('latin1') : haystack;
    // The whole key string and its random part (in case a prefix were split off or stored apart).
    return secrets.filter((s) => text.includes(s) || text.includes(s.slice(4))).map((s) => `${what}: ${s}`);
  }

  /** The store's raw content: the SQLite files' bytes, or every row of every table as JSON on PostgreSQL. */
  async function storeContent(): Promise<[what: string, content: Buffer | string][]> {
    if (TEST_STORE === 'sqlite') {
      const files = readdirSync(dataDir).filter((f) => f.startsWith('cloudtwin.db'));
      assert.ok(files.includes('cloudtwin.db'));
      return files.map((f) => [f, readFileSync(join(dataDir, f))]);
    }
    const reader = await openStoreReader({ dataDir, databaseUrl: db.url });
    try {
      const tables = await reader.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
      assert.ok(tables.some((t) => t.table_name === 'api_keys'));
      const out: [string, string][] = [];
      for (const { table_name } of tables) {
        const rows = await reader.query(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`);
        out.push([table_name, rows.map((r) => r.j).join('\n')]);
      }
      return out;
    } finally {
      await reader.close();
    }
  }

  async function storeLeaks(): Promise<string[]> {
    const content = await storeContent();
    // Control: the scan does see the keys' other fields (ids, display names) in clear.
    const all = content.map(([, c]) => (Buffer.isBuffer(c) ? c.toString('latin1') : c)).join('\n');
    for (let i = 0; i < 5; i++) assert.ok(all.includes(`secret-${i}`), `the scan does not see key secret-${i}`);
    return content.flatMap(([what, c]) => leaks(what, c));
  }

  test('key strings are not in the store in clear', async () => {
    assert.equal(secrets.length, 6);
    assert.deepEqual(await storeLeaks(), []);
    if (TEST_STORE === 'sqlite') {
      // The WAL must not hold them either: the writes above are still in it while the server runs.
      assert.ok(readdirSync(dataDir).includes('cloudtwin.db-wal'), 'the server runs in WAL mode');
    }
  });

  test('key strings are not in the logs', async () => {
    const out = server!.output();
    // Requests were logged (so the check below means something), with the key strings masked.
    assert.match(out, /"url":"\/v2\/keys:lookupKey\?keyString=REDACTED/);
    assert.match(out, /key=REDACTED/);
    assert.deepEqual(leaks('server output', out), []);
  });

  test('key strings are not in the metrics', async () => {
    const res = await fetch(`${server!.url}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /cloudtwin_http_requests_total\{[^}]*route="\/v2\/keys::?lookupKey"/);
    assert.deepEqual(leaks('metrics', text), []);
  });

  test('the master key and the admin token are files only the owner can read', () => {
    for (const f of ['master.key', 'admin-token']) {
      const mode = statSync(join(dataDir, f)).mode & 0o777;
      assert.equal(mode, 0o600, `${f} has mode ${mode.toString(8)}`);
    }
  });

  test('after a clean stop the store and the logs still hold no key string', { timeout: 30_000 }, async () => {
    assert.equal(await server!.stop(), 0);
    assert.deepEqual(await storeLeaks(), []);
    assert.deepEqual(leaks('server output', server!.output()), []);
  });

  test('a process with another master key refuses the store; the right key still opens it', { timeout: 30_000 }, async () => {
    await server!.stop();
    const wrong = boot({ CLOUDTWIN_MASTER_KEY: newMasterKey() });
    wrong.then((p) => others.push(p), () => {});
    await assert.rejects(wrong, /exited with 1 before it was ready:[\s\S]*master key does not match the one this store was created with/);
    const malformed = boot({ CLOUDTWIN_MASTER_KEY: 'dG9vIHNob3J0' });
    malformed.then((p) => others.push(p), () => {});
    await assert.rejects(malformed, /CLOUDTWIN_MASTER_KEY must be the base64 encoding of exactly 32 bytes/);

    const again = await boot();
    others.push(again);
    const c = client.on(again.url);
    const ks = await c.getKeyString(DEMO.projectId, 'secret-0');
    assert.equal(ks.status, 200, JSON.stringify(ks.body));
    assert.equal(ks.body.keyString, secrets[0]);
    assert.equal((await c.lookupKey(secrets[1])).body.name, `projects/${DEMO.projectNumber}/locations/global/keys/secret-1`);
    assert.equal(await again.stop(), 0);
  });
});
