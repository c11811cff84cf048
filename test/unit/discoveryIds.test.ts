import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { everyRouteOf } from '../../src/platform/http/lazyApp.ts';
import { startTestTwin } from '../support/twin.ts';

/** Every method id a discovery document declares (resources nested at any depth). */
function discoveryIds(doc: any): Set<string> {
  const ids = new Set<string>();
  const walk = (resources: Record<string, any> | undefined) => {
    for (const r of Object.values(resources ?? {})) {
      for (const m of Object.values(r.methods ?? {}) as any[]) ids.add(m.id);
      walk(r.resources);
    }
  };
  walk(doc.resources);
  for (const m of Object.values(doc.methods ?? {}) as any[]) ids.add(m.id);
  return ids;
}

/** Google's discovery documents, beside the repository (`../shared/discovery` from its root). */
const DISCOVERY = fileURLToPath(new URL('../../../shared/discovery/', import.meta.url));

test('every public route names its discovery method id (what fault rules match and the journal records)', async () => {
  const t = await startTestTwin();
  try {
    const apiRoutes = (await everyRouteOf(t.twin.app)).filter((r) => r.config.api);
    assert.ok(apiRoutes.length >= 25);
    const seen = new Map<string, string>();
    for (const r of apiRoutes) {
      const id = r.config.api!.id;
      assert.match(id, /^[a-z]+(\.[a-zA-Z]+)+$/, `${r.method} ${r.url}`);
      const where = `${r.method} ${r.url}`;
      assert.ok(!seen.has(id) || seen.get(id) === where, `${id} names both ${seen.get(id)} and ${where}`);
      seen.set(id, where);
    }
    assert.equal(seen.get('youtube.search.list')?.startsWith('GET /youtube/v3/search'), true);
    // Against Google's discovery documents: their absence is a failure, not a pass.
    const docs = ['apikeys.v2.json', 'compute.v1.json', 'youtube.v3.json'].map((f) => `${DISCOVERY}${f}`);
    for (const doc of docs) assert.ok(existsSync(doc), `${doc} is missing: the discovery documents are expected in ../shared/discovery beside the repository`);
    const known = new Set(docs.flatMap((f) => [...discoveryIds(JSON.parse(readFileSync(f, 'utf8')))]));
    for (const id of seen.keys()) if (!id.startsWith('serviceusage.')) assert.ok(known.has(id), `${id} is not a method of the discovery documents`);
  } finally {
    await t.close();
  }
});

test('the media method ids follow the configured service name', async () => {
  const t = await startTestTwin({ mediaServiceName: 'media.example.com', mediaPathPrefix: '/media' });
  try {
    const ids = (await everyRouteOf(t.twin.app)).flatMap((r) => (r.config.api?.service === 'media.example.com' ? [r.config.api.id] : []));
    assert.deepEqual(ids.sort(), ['media.channels.list', 'media.playlists.list', 'media.search.list', 'media.videos.list']);
  } finally {
    await t.close();
  }
});
