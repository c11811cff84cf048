/** search.list through HTTP: response shape, every parameter's rules and errors, filters, ordering, pagination. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodePageToken } from '../../src/services/media/pageToken.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CH_ALICE, CH_SHOW, T0, VIDEO_COUNT, assertMediaError, createApiKey, get, mediaSection, mediaTwinHooks, mediaWorld, video, videoId } from './media.world.ts';

const DAY = 86_400_000;

describe('media search.list', () => {
  let t: TestTwin;
  let key: string;
  const search = (query: string, opts: { headers?: Record<string, string> } = {}) => get(t, `/youtube/v3/search?${query}`, { key, ...opts });
  const ok = async (query: string) => {
    const res = await search(query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const ids = (body: any) => body.items.map((i: any) => i.id.videoId ?? i.id.channelId ?? i.id.playlistId);

  mediaTwinHooks((twin, k) => {

    t = twin;

    key = k;

  });

  describe('response', () => {
    test('key order, kinds, item and snippet shape', async () => {
      const body = await ok('part=snippet&q=pasta&maxResults=3');
      assert.deepEqual(Object.keys(body), ['kind', 'etag', 'nextPageToken', 'regionCode', 'pageInfo', 'items']);
      assert.equal(body.kind, 'media#searchListResponse');
      assert.match(body.etag, /^[A-Za-z0-9_-]{27}$/);
      assert.equal(body.nextPageToken, 'CAMQAA');
      assert.equal(body.regionCode, 'US');
      assert.deepEqual(Object.keys(body.pageInfo), ['totalResults', 'resultsPerPage']);
      assert.equal(body.pageInfo.resultsPerPage, 3);
      assert.ok(body.pageInfo.totalResults >= VIDEO_COUNT);
      for (const item of body.items) {
        assert.deepEqual(Object.keys(item), ['kind', 'etag', 'id', 'snippet']);
        assert.equal(item.kind, 'media#searchResult');
        assert.deepEqual(Object.keys(item.snippet), ['publishedAt', 'channelId', 'title', 'description', 'thumbnails', 'channelTitle', 'liveBroadcastContent', 'publishTime']);
        assert.equal(item.snippet.publishTime, item.snippet.publishedAt);
        assert.match(item.snippet.publishedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
    });
    test('video items: id kind, thumbnails with sizes, HTML-escaped title, cut description, live content', async () => {
      const v7 = (await ok('part=snippet&type=video&q=jerry')).items[0];
      assert.deepEqual(v7.id, { kind: 'media#video', videoId: videoId(7) });
      assert.equal(v7.snippet.title, 'Tom &amp; Jerry&#39;s &lt;best&gt; &quot;cooking&quot; moments');
      assert.deepEqual(v7.snippet.thumbnails, {
        default: { url: `https://i.ytimg.com/vi/${videoId(7)}/default.jpg`, width: 120, height: 90 },
        medium: { url: `https://i.ytimg.com/vi/${videoId(7)}/mqdefault.jpg`, width: 320, height: 180 },
        high: { url: `https://i.ytimg.com/vi/${videoId(7)}/hqdefault.jpg`, width: 480, height: 360 },
      });
      const all = (await ok(`part=snippet&type=video&maxResults=50&order=date&publishedBefore=${new Date(T0 + 9 * DAY).toISOString()}`)).items;
      const v8 = all.find((i: any) => i.id.videoId === videoId(8));
      assert.ok(v8.snippet.description.length <= 160 && v8.snippet.description.endsWith('...'), v8.snippet.description);
      assert.equal(all.find((i: any) => i.id.videoId === videoId(5)).snippet.liveBroadcastContent, 'live');
      assert.equal(all.find((i: any) => i.id.videoId === videoId(6)).snippet.liveBroadcastContent, 'none');
    });
    test('channel items carry thumbnail URLs only; playlists their stored stills', async () => {
      const ch = (await ok('part=snippet&type=channel&maxResults=50')).items;
      assert.equal(ch.length, 3);
      for (const c of ch) {
        assert.equal(c.id.kind, 'media#channel');
        assert.equal(c.snippet.channelId, c.id.channelId);
        for (const size of ['default', 'medium', 'high']) assert.deepEqual(Object.keys(c.snippet.thumbnails[size]), ['url']);
      }
      const pl = (await ok('part=snippet&type=playlist&q=pasta')).items;
      assert.deepEqual(pl.map((p: any) => p.id), [{ kind: 'media#playlist', playlistId: 'PLpastaaaaaaaaaaaa' }]);
      assert.deepEqual(pl[0].snippet.thumbnails.default, { url: 'https://i.ytimg.com/vi/vid00000000/default.jpg', width: 120, height: 90 });
    });
    test('part=id: only kind, etag, id', async () => {
      const body = await ok('part=id&maxResults=10');
      for (const item of body.items) assert.deepEqual(Object.keys(item), ['kind', 'etag', 'id']);
    });
    test('etags are stable and follow the content', async () => {
      const a = await ok('part=snippet&q=pasta');
      const b = await ok('part=snippet&q=pasta');
      assert.equal(a.etag, b.etag);
      assert.deepEqual(a.items.map((i: any) => i.etag), b.items.map((i: any) => i.etag));
      const c = await ok('part=id&q=pasta');
      assert.notEqual(c.etag, a.etag);
      assert.notEqual(c.items[0].etag, a.items[0].etag);
    });
    test('empty result: pageInfo {0, 0}, no items, no tokens', async () => {
      const body = await ok('part=snippet&q=zzzznothingmatches');
      assert.deepEqual(body.pageInfo, { totalResults: 0, resultsPerPage: 0 });
      assert.deepEqual(body.items, []);
      assert.deepEqual(Object.keys(body), ['kind', 'etag', 'regionCode', 'pageInfo', 'items']);
    });
    test('regionCode echoes the query (upper case); maxResults=0 gives no items and no token', async () => {
      assert.equal((await ok('part=id&regionCode=fr')).regionCode, 'FR');
      const zero = await ok('part=id&maxResults=0');
      assert.deepEqual(zero.items, []);
      assert.equal(zero.nextPageToken, undefined);
      assert.ok(zero.pageInfo.totalResults > 0);
    });
    test('fields: partial responses', async () => {
      const body = await ok('part=snippet&q=pasta&fields=items(id/videoId,snippet/title),nextPageToken');
      assert.deepEqual(Object.keys(body), ['nextPageToken', 'items']);
      assert.deepEqual(Object.keys(body.items[0]), ['id', 'snippet']);
      assert.deepEqual(Object.keys(body.items[0].snippet), ['title']);
    });
  });

  describe('parameter errors (legacy envelope)', () => {
    test('part: required and known', async () => {
      const e = assertMediaError(await search('q=x'), 400, 'required', 'global', { location: 'part', message: 'Required parameter: part' });
      assert.equal(e.status, 'INVALID_ARGUMENT');
      assertMediaError(await search('part=statistics'), 400, 'unknownPart', 'youtube.part', { location: 'part', message: 'statistics' });
    });
    test('maxResults out of range', async () => {
      assertMediaError(await search('part=id&maxResults=1000'), 400, 'invalidParameter', 'global', { location: 'maxResults', message: "Invalid value '1000'. Values must be within the range: [0, 50]" });
      assertMediaError(await search('part=id&maxResults=-1'), 400, 'invalidParameter', 'global', { location: 'maxResults' });
      assertMediaError(await search('part=id&maxResults=ten'), 400, 'invalidParameter', 'global', { location: 'maxResults' });
    });
    test('enumerations', async () => {
      for (const q of ['order=best', 'safeSearch=off', 'channelType=x', 'type=movie', 'type=video&videoDuration=eternal']) {
        assertMediaError(await search(`part=id&${q}`), 400, 'invalidParameter', 'global');
      }
    });
    test('video filters without type=video: invalidSearchFilter', async () => {
      for (const q of ['eventType=live', 'videoCaption=any', 'videoCategoryId=10', 'videoDefinition=high', 'videoDimension=2d', 'videoDuration=short', 'videoEmbeddable=true', 'videoLicense=youtube', 'videoPaidProductPlacement=true', 'videoSyndicated=true', 'videoType=movie', 'type=channel&videoType=any']) {
        const e = assertMediaError(await search(`part=id&${q}`), 400, 'invalidSearchFilter', 'youtube.search');
        assert.match(e.message, /invalid combination of search filters/);
      }
    });
    test('location, relevanceLanguage, regionCode, channelId, topicId, dates', async () => {
      assertMediaError(await search('part=id&type=video&location=0,0'), 400, 'invalidLocation', 'youtube.search', { location: 'locationRadius' });
      assertMediaError(await search('part=id&location=0,0&locationRadius=1km'), 400, 'invalidLocation', 'youtube.search', { location: 'location', message: /type parameter set to video/ });
      assertMediaError(await search('part=id&type=video&location=0,0&locationRadius=1001km'), 400, 'invalidLocation', 'youtube.search');
      assertMediaError(await search('part=id&type=video&location=north&locationRadius=1km'), 400, 'invalidLocation', 'youtube.search');
      assertMediaError(await search('part=id&relevanceLanguage=klingon'), 400, 'invalidRelevanceLanguage', 'youtube.search');
      assertMediaError(await search('part=id&regionCode=XX'), 400, 'invalidRegionCode', 'youtube.parameter', { location: 'regionCode' });
      assertMediaError(await search('part=id&channelId=not%20a%20channel'), 400, 'invalidChannelId', 'youtube.search', { location: 'channelId' });
      assertMediaError(await search('part=id&topicId=%2Fm%2Fnope'), 400, 'invalidParameter', 'global', { location: 'topicId' });
      assertMediaError(await search('part=id&publishedAfter=yesterday'), 400, 'invalidParameter', 'global', { location: 'publishedAfter' });
    });
    test('page tokens: tampered, padded, foreign', async () => {
      for (const tok of ['CAUQAg', 'CAUQAA==', 'CAUQ', 'Zm9v', encodePageToken({ offset: 600, direction: 'next' }), 'CAAQAQ']) {
        assertMediaError(await search(`part=id&pageToken=${encodeURIComponent(tok)}`), 400, 'invalidPageToken', 'youtube.parameter', { location: 'pageToken', message: 'The request specifies an invalid page token.' });
      }
    });
    test('at most one of forContentOwner, forDeveloper, forMine; booleans any case', async () => {
      assertMediaError(await search('part=id&type=video&forMine=true&forDeveloper=TRUE'), 400, 'incompatibleParameters', 'youtube.parameter');
      // `True` is true: an authorized-only filter with a key alone is 401.
      assertMediaError(await search('part=id&type=video&forMine=True'), 401, 'required', 'global', { location: 'Authorization', message: 'Login Required.' });
      assert.equal((await search('part=id&type=video&forMine=false')).statusCode, 200);
      assert.equal((await search('part=id&forMine=maybe')).statusCode, 400);
    });
  });

  describe('filters', () => {
    test('type, channelId, channelType', async () => {
      assert.ok((await ok('part=id&type=video&maxResults=50')).items.every((i: any) => i.id.kind === 'media#video'));
      const byChannel = await ok(`part=snippet&type=video&channelId=${CH_ALICE}&maxResults=50`);
      assert.equal(byChannel.items.length, VIDEO_COUNT / 3);
      assert.ok(byChannel.items.every((i: any) => i.snippet.channelId === CH_ALICE));
      assert.deepEqual(ids(await ok('part=id&type=channel&channelType=show')), [CH_SHOW]);
    });
    test('eventType, location, published window (inclusive)', async () => {
      assert.deepEqual(ids(await ok('part=id&type=video&eventType=live')), [videoId(5)]);
      const near = ids(await ok('part=id&type=video&location=(48.8566,2.3522)&locationRadius=50km&maxResults=50'));
      assert.deepEqual(near.sort(), Array.from({ length: 10 }, (_, k) => videoId(k * 6)).sort());
      assert.deepEqual(ids(await ok('part=id&type=video&location=(10,10)&locationRadius=1000km')), []);
      const after = new Date(T0 + 10 * DAY).toISOString();
      const before = new Date(T0 + 12 * DAY).toISOString();
      assert.deepEqual(ids(await ok(`part=id&type=video&order=date&publishedAfter=${after}&publishedBefore=${before}`)), [videoId(12), videoId(11), videoId(10)]);
    });
    test('video attributes: duration buckets, definition, license, caption, category', async () => {
      const all = async (q: string) => ids(await ok(`part=id&type=video&maxResults=50&${q}`)) as string[];
      const n = (id: string) => Number(id.slice(3));
      // durations: (i % 30) + 1 minutes
      assert.ok((await all('videoDuration=short')).every((id) => (n(id) % 30) + 1 < 4));
      assert.ok((await all('videoDuration=medium')).every((id) => (n(id) % 30) + 1 >= 4 && (n(id) % 30) + 1 <= 20));
      assert.ok((await all('videoDuration=long')).every((id) => (n(id) % 30) + 1 > 20));
      assert.equal((await all('videoDuration=short')).length, 6);
      assert.ok((await all('videoDefinition=high')).every((id) => n(id) % 2 === 1));
      assert.deepEqual((await all('videoLicense=creativeCommon')).map(n).sort((a, b) => a - b), [0, 10, 20, 30, 40, 50]);
      assert.ok((await all('videoCaption=closedCaption')).every((id) => n(id) % 5 === 0));
      assert.ok((await all('videoCategoryId=10')).every((id) => n(id) % 2 === 0));
    });
  });

  describe('ordering and pagination', () => {
    test('order=date is reverse chronological; order=title and viewCount order too', async () => {
      const byDate = ids(await ok('part=id&type=video&order=date&maxResults=50'));
      assert.deepEqual(byDate, Array.from({ length: 50 }, (_, k) => videoId(VIDEO_COUNT - 1 - k)));
      const byViews = ids(await ok('part=id&type=video&order=viewCount&maxResults=3&publishedAfter=2024-01-20T00:00:00Z'));
      assert.deepEqual(byViews, [videoId(59), videoId(58), videoId(57)]);
      const titles = (await ok('part=snippet&type=video&order=title&maxResults=50')).items.map((i: any) => i.snippet.title);
      assert.ok(titles.length === 50);
    });
    test('walking next tokens to the end and back with previous tokens visits every result once', async () => {
      for (const order of ['relevance', 'date', 'viewCount']) {
        const q = `part=id&q=pasta&order=${order}&maxResults=7`;
        const forward: string[][] = [];
        let body = await ok(q);
        assert.equal(body.prevPageToken, undefined);
        forward.push(ids(body));
        while (body.nextPageToken) {
          body = await ok(`${q}&pageToken=${body.nextPageToken}`);
          forward.push(ids(body));
          assert.ok(forward.length < 50);
        }
        const flat = forward.flat();
        assert.equal(new Set(flat).size, flat.length, `duplicates (${order})`);
        assert.equal(flat.length, VIDEO_COUNT + 2, `gaps (${order})`); // 60 videos, the pasta playlist and the Pasta Show channel
        const backward: string[][] = [forward.length ? ids(body) : []];
        while (body.prevPageToken) {
          body = await ok(`${q}&pageToken=${body.prevPageToken}`);
          backward.unshift(ids(body));
        }
        assert.deepEqual(backward, forward, order);
      }
    });
    test('a previous token holds its page even when maxResults changes', async () => {
      const page2 = await ok('part=id&type=video&order=date&maxResults=5&pageToken=CAUQAA');
      assert.equal(page2.prevPageToken, 'CAUQAQ');
      const back = await ok('part=id&type=video&order=date&maxResults=3&pageToken=CAUQAQ');
      assert.deepEqual(ids(back), [videoId(57), videoId(56), videoId(55)]);
    });
  });

  describe('q', () => {
    test('NOT, OR and phrases are parsed, never pasted into a query', async () => {
      assert.deepEqual(ids(await ok('part=id&type=video&q=jerry')), [videoId(7)]);
      const either = await ok('part=id&type=video&maxResults=50&q=jerry%7Clesson');
      assert.equal(either.pageInfo.totalResults, VIDEO_COUNT);
      assert.ok(ids(either).includes(videoId(7)));
      const not = await ok('part=id&type=video&maxResults=50&q=cooking%20-jerry');
      assert.equal(not.pageInfo.totalResults, VIDEO_COUNT - 1);
      assert.ok(!ids(not).includes(videoId(7)));
      assert.deepEqual(ids(await ok('part=id&type=video&q=%22lesson%2042%22')), [videoId(42)]);
      for (const q of ["'; DROP TABLE media_videos; --", '" OR 1=1 --', 'NEAR(a b)', '*', '%', '\\']) assert.equal((await search(`part=id&q=${encodeURIComponent(q)}`)).statusCode, 200, q);
    });
  });
});

describe('media search.list: results end at 500', () => {
  let t: TestTwin;
  let key: string;
  before(async () => {
    t = await startTestTwin({ world: { ...mediaWorld, media: { ...mediaSection, videos: Array.from({ length: 530 }, (_, i) => video(i)) } } });
    key = await createApiKey(t);
  });
  after(() => t.close());

  test('walking next tokens stops at 500 results; a token past 500 is invalid', async () => {
    const seen = new Set<string>();
    let token = '';
    let pages = 0;
    let last: any;
    do {
      const res = await get(t, `/youtube/v3/search?part=id&type=video&order=date&maxResults=50${token ? `&pageToken=${token}` : ''}`, { key });
      assert.equal(res.statusCode, 200, res.body);
      last = res.json();
      for (const i of last.items) seen.add(i.id.videoId);
      token = last.nextPageToken ?? '';
      pages++;
    } while (token && pages < 20);
    assert.equal(pages, 10);
    assert.equal(seen.size, 500);
    assert.ok(last.pageInfo.totalResults >= 530);
    assert.equal(last.nextPageToken, undefined);
    assert.equal(last.prevPageToken, encodePageToken({ offset: 450, direction: 'previous' }));
    const atEnd = await get(t, `/youtube/v3/search?part=id&type=video&pageToken=${encodePageToken({ offset: 500, direction: 'next' })}`, { key });
    assert.deepEqual(atEnd.json().items, []);
    assertMediaError(await get(t, `/youtube/v3/search?part=id&type=video&pageToken=${encodePageToken({ offset: 501, direction: 'next' })}`, { key }), 400, 'invalidPageToken', 'youtube.parameter');
  });
});
