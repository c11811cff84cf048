import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { testWorld } from '../support/world.ts';
import { CH_BIG, CH_SHOW, fixtureEntries, query, video } from '../unit/media.fixture.ts';

/** The world document's `media` section, snapshots and reset, through the admin API. */

const entries = fixtureEntries();
const media = {
  contentOwners: entries.filter((e) => String(e.kind).endsWith('contentOwner')),
  channels: entries.filter((e) => String(e.kind).endsWith('#channel')),
  videos: entries.filter((e) => String(e.kind).endsWith('#video')),
  playlists: entries.filter((e) => String(e.kind).endsWith('#playlist')),
};

describe('media catalogue in the world document, snapshot and reset', () => {
  let t: TestTwin;
  const search = async (text: string) => (await (await t.twin.media.media()).engine.search(query({ q: parseQuery(text) }))).hits.map((h) => h.id).sort();
  before(async () => {
    t = await startTestTwin({ world: { ...testWorld, media } });
  });
  after(async () => {
    await t.close();
  });

  test('the media section is stored and searchable', async () => {
    assert.deepEqual(await search('cooking'), ['PLcookcookcookcook01', CH_SHOW, 'vidEpisode1', 'vidEpisode2'].sort());
    assert.deepEqual((await (await t.twin.media.media()).catalog.videos(['vidShort001'])).map((v) => v.id), ['vidShort001']);
  });

  test('a bad media entry refuses the whole document, naming the entry and field; nothing changes', async () => {
    const res = await t.admin('POST', '/_twin/v1/world:apply', {
      projects: [{ projectId: 'media-new-project', projectNumber: '300000000077' }],
      media: { videos: [video('vidFresh001', 'Fresh zeppelin', { channelId: CH_BIG }), { ...video('vidBad00001', 'bad'), snippet: { title: 'x', publishedAt: 'soon', channelId: CH_BIG } }] },
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /media\.videos\[1\]: snippet\.publishedAt: must be an RFC 3339 time/);
    assert.deepEqual(await search('zeppelin'), []);
    const again = await t.admin('POST', '/_twin/v1/world:apply', { media: { videos: [video('vidOrphan01', 'orphan', { channelId: 'UCmissingmissingmissing1' })] } });
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /media\.videos\[0\]: snippet\.channelId: channel 'UCmissingmissingmissing1' does not exist/);
    const wrongSection = await t.admin('POST', '/_twin/v1/world:apply', { media: { channels: [video('vidWrong001', 'x')] } });
    assert.equal(wrongSection.statusCode, 400);
    assert.match(wrongSection.body, /a video entry in the channel section/);
    const unknown = await t.admin('POST', '/_twin/v1/world:apply', { media: { comments: [] } });
    assert.equal(unknown.statusCode, 400);
  });

  test('applying again updates entries in place; snapshot, reset and restore carry the catalogue', async () => {
    const res = await t.admin('POST', '/_twin/v1/world:apply', { media: { videos: [video('vidShort001', 'Ukulele lesson', { seconds: 120 })] } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await search('ukulele'), ['vidShort001']);
    assert.deepEqual(await search('guitar'), []);
    const snap = await t.admin('GET', '/_twin/v1/snapshot');
    assert.equal(snap.statusCode, 200);
    assert.equal((await t.admin('POST', '/_twin/v1/reset')).statusCode, 200);
    assert.deepEqual(await search('ukulele'), []);
    assert.deepEqual(await (await t.twin.media.media()).catalog.videos(['vidShort001']), []);
    const restored = await t.admin('PUT', '/_twin/v1/snapshot', snap.json());
    assert.equal(restored.statusCode, 200, restored.body);
    assert.deepEqual(await search('ukulele'), ['vidShort001']);
    assert.deepEqual(await search('cooking'), ['PLcookcookcookcook01', CH_SHOW, 'vidEpisode1', 'vidEpisode2'].sort());
  });
});
