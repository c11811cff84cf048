/** videos.list, channels.list and playlists.list: by id, mine, channelId; parts; errors; 1 quota unit each. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';
import { CH_ACME, CH_ALICE, YT, assertMediaError, createApiKey, get, videoId, mediaTwinHooks } from './media.world.ts';

describe('media list methods', () => {
  let t: TestTwin;
  let key: string;
  const ok = async (url: string, opts: Parameters<typeof get>[2] = {}) => {
    const res = await get(t, url, { key, ...opts });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  mediaTwinHooks((twin, k) => {

    t = twin;

    key = k;

  });

  test('videos.list by id: kind, etag, id and the asked parts as stored, in the order asked, without the extension', async () => {
    const body = await ok(`/youtube/v3/videos?part=snippet,statistics,contentDetails&id=${videoId(2)},${videoId(1)},nope`);
    assert.deepEqual(Object.keys(body), ['kind', 'etag', 'pageInfo', 'items']);
    assert.equal(body.kind, 'media#videoListResponse');
    assert.deepEqual(body.pageInfo, { totalResults: 2, resultsPerPage: 2 });
    assert.deepEqual(body.items.map((i: any) => i.id), [videoId(2), videoId(1)]);
    const v = body.items[1];
    assert.deepEqual(Object.keys(v), ['kind', 'etag', 'id', 'snippet', 'statistics', 'contentDetails']);
    assert.equal(v.kind, 'media#video');
    assert.equal(v.statistics.viewCount, '2000');
    assert.equal(v.contentDetails.definition, 'hd');
    assert.equal(JSON.stringify(body).includes('cloudtwin'), false);
    const idOnly = await ok(`/youtube/v3/videos?part=id&id=${videoId(3)}`);
    assert.deepEqual(Object.keys(idOnly.items[0]), ['kind', 'etag', 'id']);
  });
  test('videos.list errors: part, filter, unknown part, the extension is not a part', async () => {
    assertMediaError(await get(t, `/youtube/v3/videos?id=${videoId(1)}`, { key }), 400, 'required', 'global', { location: 'part' });
    assertMediaError(await get(t, '/youtube/v3/videos?part=snippet', { key }), 400, 'missingRequiredParameter', 'youtube.parameter');
    assertMediaError(await get(t, `/youtube/v3/videos?part=cloudtwin&id=${videoId(1)}`, { key }), 400, 'unknownPart', 'youtube.part');
    assertMediaError(await get(t, `/youtube/v3/videos?part=id&id=${Array.from({ length: 51 }, (_, i) => videoId(i)).join(',')}`, { key }), 400, 'invalidParameter', 'global');
    assertMediaError(await get(t, `/youtube/v3/videos?part=id&id=x`), 403, 'forbidden', 'global');
  });
  test('channels.list by id and mine=true', async () => {
    const byId = await ok(`/youtube/v3/channels?part=snippet,statistics&id=${CH_ACME}`);
    assert.equal(byId.kind, 'media#channelListResponse');
    assert.equal(byId.items[0].kind, 'media#channel');
    assert.equal(byId.items[0].snippet.title, 'Acme Kitchen');
    const mine = await ok('/youtube/v3/channels?part=snippet&mine=true', { key: undefined, principal: ALICE, scopes: [YT('youtube.readonly')] });
    assert.deepEqual(mine.items.map((c: any) => c.id), [CH_ALICE]);
    assertMediaError(await get(t, '/youtube/v3/channels?part=snippet&mine=true', { key }), 401, 'required', 'global', { location: 'Authorization' });
    assertMediaError(await get(t, `/youtube/v3/channels?part=snippet&mine=true&id=${CH_ACME}`, { principal: ALICE, scopes: [YT('youtube')] }), 400, 'incompatibleParameters', 'youtube.parameter');
    assertMediaError(await get(t, '/youtube/v3/channels?part=snippet', { key }), 400, 'missingRequiredParameter', 'youtube.parameter');
  });
  test('playlists.list by id and by channelId with page tokens', async () => {
    const byId = await ok('/youtube/v3/playlists?part=snippet,contentDetails&id=PLpastaaaaaaaaaaaa');
    assert.equal(byId.kind, 'media#playlistListResponse');
    assert.equal(byId.items[0].kind, 'media#playlist');
    assert.equal(byId.items[0].contentDetails.itemCount, 2);
    const first = await ok(`/youtube/v3/playlists?part=id&channelId=${CH_ALICE}&maxResults=1`);
    assert.deepEqual(first.pageInfo, { totalResults: 2, resultsPerPage: 1 });
    assert.equal(first.nextPageToken, 'CAEQAA');
    const second = await ok(`/youtube/v3/playlists?part=id&channelId=${CH_ALICE}&maxResults=1&pageToken=${first.nextPageToken}`);
    assert.equal(second.nextPageToken, undefined);
    assert.equal(second.prevPageToken, 'CAEQAQ');
    assert.deepEqual([...first.items, ...second.items].map((p: any) => p.id).sort(), ['PLpastaaaaaaaaaaaa', 'PLsoupaaaaaaaaaaaa']);
    assertMediaError(await get(t, `/youtube/v3/playlists?part=id&channelId=${CH_ALICE}&pageToken=CAUQAg`, { key }), 400, 'invalidPageToken', 'youtube.parameter');
    assertMediaError(await get(t, '/youtube/v3/playlists?part=id', { key }), 400, 'missingRequiredParameter', 'youtube.parameter');
  });
  test('each list call costs 1 unit (a rejected one too)', async () => {
    const usage = async () => (await t.admin('GET', `/_twin/v1/quota/projects/${DEMO.projectId}/services/youtube.googleapis.com`)).json().used;
    const before = await usage();
    await ok(`/youtube/v3/videos?part=id&id=${videoId(1)}`);
    await ok(`/youtube/v3/channels?part=id&id=${CH_ALICE}`);
    await ok(`/youtube/v3/playlists?part=id&id=PLsoupaaaaaaaaaaaa`);
    await get(t, '/youtube/v3/videos?part=bogus&id=x', { key });
    assert.equal((await usage()) - before, 4);
  });
});
