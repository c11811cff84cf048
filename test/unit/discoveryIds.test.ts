import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { routesOf } from '../../src/platform/http/routes.ts';
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

const DISCOVERY = process.env.CLOUDTWIN_DISCOVERY_DIR ?? '/work/shared/discovery';

test('every public route names its discovery method id (what fault rules match and the journal records)', async () => {
  const t = await startTestTwin();
  try {
    const apiRoutes = routesOf(t.twin.app).filter((r) => r.config.api);
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
    // Against Google's discovery documents, where they are at hand.
    const docs = ['apikeys.v2.json', 'compute.v1.json', 'youtube.v3.json'].map((f) => `${DISCOVERY}/${f}`);
    if (!docs.every(existsSync)) return;
    const known = new Set(docs.flatMap((f) => [...discoveryIds(JSON.parse(readFileSync(f, 'utf8')))]));
    for (const id of seen.keys()) if (!id.startsWith('serviceusage.')) assert.ok(known.has(id), `${id} is not a method of the discovery documents`);
  } finally {
    await t.close();
  }
});

test('the media method ids follow the configured service name', async () => {
  const t = await startTestTwin({ mediaServiceName: 'media.example.com', mediaPathPrefix: '/media' });
  try {
    const ids = routesOf(t.twin.app).flatMap((r) => (r.config.api?.service === 'media.example.com' ? [r.config.api.id] : []));
    assert.deepEqual(ids.sort(), ['media.channels.list', 'media.playlists.list', 'media.search.list', 'media.videos.list']);
  } finally {
    await t.close();
  }
});
