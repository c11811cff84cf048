/**
 * Durability of Compute: inserts in flight, `kill -9`, restart on the same store: every
 * acknowledged operation completes (exactly once), its template exists, nothing is half-written.
 * The inserts go to every template collection at once (regional and global, in turn).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startServer } from '../support/server.ts';
import { TEST_STORE, freshDatabase } from '../support/store.ts';
import { CORA, TEMPLATE_SCOPES, computeWorld, templateBody } from '../http/compute.helpers.ts';
import { newMasterKey, openStoreReader, pollUntil, tempDir, tokenFor, crashSuiteResources } from './helpers.ts';

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe(`compute crash recovery on ${TEST_STORE}`, () => {
  const { processes, dirs, databases } = crashSuiteResources();

  for (const mode of ['instant', 'delayed'] as const) {
    test(`${mode} mode: inserts (${TEMPLATE_SCOPES.map((s) => s.label).join(' and ')}) acknowledged before kill -9 are DONE after restart, each template stored once`, { timeout: 90_000 }, async (t) => {
      const dataDir = tempDir();
      dirs.push(dataDir);
      const db = await freshDatabase();
      databases.push(db);
      const env = { CLOUDTWIN_MASTER_KEY: newMasterKey() };
      const boot = async () => {
        const p = await startServer({ dataDir, databaseUrl: db.url, env });
        processes.push(p);
        return p;
      };
      const first = await boot();
      await first.admin('POST', '/_twin/v1/world:apply', computeWorld);
      if (mode === 'delayed') await first.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 2_000 });
      const token = await tokenFor(first.url, first.adminToken, CORA);

      const N = 40;
      const KILL_AFTER = 12;
      let answered = 0;
      let killed: Promise<void> | undefined;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) => {
          const scope = TEMPLATE_SCOPES[i % TEMPLATE_SCOPES.length];
          return call(first.url, token, 'POST', scope.templatesPath(), templateBody(`crash-${i}`))
            .catch(() => ({ status: 0, body: undefined }))
            .then((r) => {
              if (++answered === KILL_AFTER) killed = first.kill9();
              return { name: `crash-${i}`, scope, ...r };
            });
        }),
      );
      await killed;
      const acked = answers.filter((a) => a.status === 200);
      t.diagnostic(`${acked.length} of ${N} inserts acknowledged before kill -9`);
      assert.deepEqual(answers.filter((a) => a.status !== 200 && a.status !== 0).map((a) => [a.name, a.status]), []);
      assert.ok(acked.length >= KILL_AFTER);
      for (const s of TEMPLATE_SCOPES) assert.ok(acked.some((a) => a.scope === s), `no ${s.label} insert acknowledged`);
      for (const a of acked) assert.equal(a.body.status, mode === 'instant' ? 'DONE' : 'PENDING');

      const second = await boot();
      for (const a of acked) {
        const op = await pollUntil(`${a.name} DONE`, 20_000, async () => {
          const r = await call(second.url, token, 'POST', `${a.scope.operationsPath()}/${a.body.name}/wait`);
          return r.body?.status === 'DONE' ? r.body : undefined;
        });
        assert.equal(op.error, undefined, `${a.name}: ${JSON.stringify(op.error)}`);
        assert.equal(op.id, a.body.id);
        assert.equal(op.targetLink.includes(a.scope.scopePath()), true, op.targetLink);
        const tpl = await call(second.url, token, 'GET', a.scope.templatePath(a.name));
        assert.equal(tpl.status, 200, `${a.name}: ${JSON.stringify(tpl.body)}`);
        assert.equal(tpl.body.id, op.targetId);
      }
      const reader = await openStoreReader({ dataDir, databaseUrl: db.url });
      try {
        await pollUntil('every stored operation to complete', 20_000, async () => {
          const [{ n }] = await reader.query('SELECT COUNT(*) AS n FROM operations WHERE done = 0');
          return Number(n) === 0 ? true : undefined;
        });
        const rows = await reader.query("SELECT location, name, body FROM compute_resources WHERE kind = 'instanceTemplate'");
        const names = rows.map((r) => `${r.location}/${r.name}`);
        assert.equal(new Set(rows.map((r) => String(r.location))).size, TEMPLATE_SCOPES.length, 'templates of every scope');
        assert.equal(new Set(names).size, names.length, 'a template is stored twice');
        for (const r of rows) assert.equal(JSON.parse(String(r.body)).name, r.name, 'a half-written template');
        const index = await reader.query('SELECT COUNT(*) AS n FROM compute_operations');
        const ops = await reader.query("SELECT COUNT(*) AS n FROM operations WHERE service = 'compute.googleapis.com'");
        assert.equal(Number(index[0].n), Number(ops[0].n), 'every operation has its index row and no more');
      } finally {
        await reader.close();
      }
      assert.equal(await second.stop(), 0);
    });
  }
});
