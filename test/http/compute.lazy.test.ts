/**
 * Compute is built at its first use (src/services/compute/mount.ts): a start builds none of it;
 * the first Compute request builds it; and a due Compute operation that an earlier process left
 * is completed by the worker without any Compute request (the operation engine loads Compute to
 * complete it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Cloudtwin, type CloudtwinOptions, createCloudtwin } from '../../src/server.ts';
import { freshDatabase } from '../support/store.ts';
import { CORA, computeWorld, templateBody, templatesPath } from './compute.helpers.ts';

const ADMIN = 'lazy-admin-token';

async function admin(twin: Cloudtwin, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await twin.app.inject({ method, url, payload: payload as never, headers: { authorization: `Bearer ${ADMIN}` } });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

test('a start builds no Compute; the first Compute request does', async () => {
  const db = await freshDatabase();
  const twin = await createCloudtwin({ auth: 'enforce', adminToken: ADMIN, databaseUrl: db.url });
  try {
    await admin(twin, 'POST', '/_twin/v1/world:apply', computeWorld);
    assert.equal(twin.compute.surface.built, false, 'a world with a compute section builds no Compute service');
    const { access_token: token } = await admin(twin, 'POST', '/_twin/v1/tokens', { principal: CORA });
    const list = await twin.app.inject({ url: templatesPath(), headers: { authorization: `Bearer ${token}` } });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.json().kind, 'compute#instanceTemplateList');
    assert.equal(twin.compute.surface.built, true);
  } finally {
    await twin.close();
    await db.drop();
  }
});

test('a due Compute operation an earlier process left is completed with no Compute request', async () => {
  const db = await freshDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'ct-compute-lazy-'));
  const opts: CloudtwinOptions = { auth: 'enforce', adminToken: ADMIN, dataDir: dir, databaseUrl: db.url, workerIntervalMs: 20 };
  try {
    const first = await createCloudtwin(opts);
    let operation: string;
    try {
      await admin(first, 'POST', '/_twin/v1/world:apply', computeWorld);
      await admin(first, 'PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 200 });
      const { access_token: token } = await admin(first, 'POST', '/_twin/v1/tokens', { principal: CORA });
      const insert = await first.app.inject({ method: 'POST', url: templatesPath(), headers: { authorization: `Bearer ${token}` }, payload: templateBody('left-behind') });
      assert.equal(insert.statusCode, 200, insert.body);
      assert.notEqual(insert.json().status, 'DONE');
      operation = insert.json().name;
    } finally {
      await first.close();
    }
    const second = await createCloudtwin(opts);
    try {
      assert.equal(second.compute.surface.built, false);
      second.worker.start();
      const done = async () => (await second.store.db.selectFrom('operations').select(['done', 'error']).where('name', '=', operation).executeTakeFirstOrThrow());
      for (let i = 0; i < 200 && (await done()).done !== 1; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual({ ...(await done()) }, { done: 1, error: null }, 'completed, not failed for want of its kind');
      assert.equal(second.compute.surface.built, true, 'the engine built Compute to complete it');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
});
