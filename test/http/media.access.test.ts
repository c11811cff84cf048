/** Media credentials: API keys (every restriction kind, through checkKey), OAuth tokens, both, and the authorized filters. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, BOB, BOUND_OK, BOUND_SA, CAROL, CI_SA, LOOSE } from '../support/world.ts';
import { errorInfo } from './helpers.ts';
import { checkKindPrefix } from '../../src/services/media/index.ts';
import { CH_ACME, CH_ALICE, CONTENT_OWNER, VIDEO_COUNT, YT, assertMediaError, createApiKey, get, mediaWorld, videoId, mediaTwinHooks } from './media.world.ts';

const SEARCH = '/youtube/v3/search?part=snippet&type=video&maxResults=50';
const SEARCH_RPC = 'youtube.api.v3.V3DataSearchService.List';

/** The ErrorInfo of an error answer. */
const errorInfoOf = (res: { json(): any }): Record<string, any> => errorInfo(res.json().error);

describe('media credentials', () => {
  let t: TestTwin;
  let key: string;

  mediaTwinHooks((twin, k) => {
    t = twin;
    key = k;
  });

  describe('API keys', () => {
    test('no credential at all: 403 The request is missing a valid API key.', async () => {
      const e = assertMediaError(await get(t, SEARCH), 403, 'forbidden', 'global', { message: 'The request is missing a valid API key.' });
      assert.equal(e.status, 'PERMISSION_DENIED');
    });
    test('a key in ?key= or X-Goog-Api-Key', async () => {
      assert.equal((await get(t, SEARCH, { key })).statusCode, 200);
      assert.equal((await get(t, SEARCH, { headers: { 'x-goog-api-key': key } })).statusCode, 200);
    });
    test('an unknown or deleted key: 400 API_KEY_INVALID with ErrorInfo', async () => {
      for (const k of ['AIzaSyNotAKeyAtAllxxxxxxxxxxxxxxxxxxxxx', 'junk', '']) {
        const res = await get(t, SEARCH, { headers: { 'x-goog-api-key': k || ' ' } });
        const e = assertMediaError(res, 400, 'badRequest', 'global', { message: 'API key not valid. Please pass a valid API key.' });
        assert.equal(e.status, 'INVALID_ARGUMENT');
        assert.deepEqual(errorInfoOf(res), { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'youtube.googleapis.com' } });
      }
      const doomed = await createApiKey(t);
      // Delete the key this string belongs to (found through lookupKey).
      const lookup = (await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${doomed}` })).json();
      assert.equal((await t.call(ALICE, { method: 'DELETE', url: `/v2/${lookup.name}` })).statusCode, 200);
      assertMediaError(await get(t, SEARCH, { key: doomed }), 400, 'badRequest', 'global', { message: 'API key not valid. Please pass a valid API key.' });
    });
    test('browser restriction: allowed and blocked referrers', async () => {
      const k = await createApiKey(t, { browserKeyRestrictions: { allowedReferrers: ['*.example.com/*', 'example.com/*'] } });
      assert.equal((await get(t, SEARCH, { key: k, headers: { referer: 'https://www.example.com/page' } })).statusCode, 200);
      assert.equal((await get(t, SEARCH, { key: k, headers: { referer: 'https://example.com/' } })).statusCode, 200);
      let res = await get(t, SEARCH, { key: k, headers: { referer: 'https://evil.test/' } });
      assertMediaError(res, 403, 'forbidden', 'global', { message: 'Requests from referer https://evil.test/ are blocked.' });
      const info = errorInfoOf(res);
      assert.equal(info.reason, 'API_KEY_HTTP_REFERRER_BLOCKED');
      assert.equal(info.metadata.service, 'youtube.googleapis.com');
      assert.match(info.metadata.consumer, /^projects\/300000000001$/);
      res = await get(t, SEARCH, { key: k });
      assertMediaError(res, 403, 'forbidden', 'global', { message: 'Requests from referer <empty> are blocked.' });
    });
    test('server restriction: allowed and blocked IPs', async () => {
      const k = await createApiKey(t, { serverKeyRestrictions: { allowedIps: ['192.0.2.0/24', '2001:db8::/32'] } });
      const from = (ip: string) => t.twin.app.inject({ method: 'GET', url: `${SEARCH}&key=${k}`, remoteAddress: ip });
      assert.equal((await from('192.0.2.44')).statusCode, 200);
      assert.equal((await from('2001:db8::1')).statusCode, 200);
      const res = await from('198.51.100.7');
      assertMediaError(res, 403, 'forbidden', 'global', { message: 'The provided API key has an IP address restriction. The originating IP address of the call (198.51.100.7) violates this restriction.' });
      assert.equal(errorInfoOf(res).reason, 'API_KEY_IP_ADDRESS_BLOCKED');
    });
    test('Android restriction: package and certificate headers', async () => {
      const sha1 = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709';
      const k = await createApiKey(t, { androidKeyRestrictions: { allowedApplications: [{ packageName: 'com.example.app', sha1Fingerprint: sha1 }] } });
      const ok = await get(t, SEARCH, { key: k, headers: { 'x-android-package': 'com.example.app', 'x-android-cert': sha1.toLowerCase() } });
      assert.equal(ok.statusCode, 200);
      const res = await get(t, SEARCH, { key: k, headers: { 'x-android-package': 'com.evil.app', 'x-android-cert': sha1 } });
      assertMediaError(res, 403, 'forbidden', 'global', { message: 'Requests from this Android client application com.evil.app are blocked.' });
      assert.equal(errorInfoOf(res).reason, 'API_KEY_ANDROID_APP_BLOCKED');
      assertMediaError(await get(t, SEARCH, { key: k }), 403, 'forbidden', 'global', { message: 'Requests from this Android client application <empty> are blocked.' });
    });
    test('iOS restriction: bundle header', async () => {
      const k = await createApiKey(t, { iosKeyRestrictions: { allowedBundleIds: ['com.example.ios'] } });
      assert.equal((await get(t, SEARCH, { key: k, headers: { 'x-ios-bundle-identifier': 'com.example.ios' } })).statusCode, 200);
      const res = await get(t, SEARCH, { key: k, headers: { 'x-ios-bundle-identifier': 'com.other.ios' } });
      assertMediaError(res, 403, 'forbidden', 'global', { message: 'Requests from this iOS client application com.other.ios are blocked.' });
      assert.equal(errorInfoOf(res).reason, 'API_KEY_IOS_APP_BLOCKED');
    });
    test('API targets: the service, and its methods', async () => {
      const yt = await createApiKey(t, { apiTargets: [{ service: 'youtube.googleapis.com' }] });
      assert.equal((await get(t, SEARCH, { key: yt })).statusCode, 200);
      const other = await createApiKey(t, { apiTargets: [{ service: 'apikeys.googleapis.com' }] });
      const res = await get(t, SEARCH, { key: other });
      assertMediaError(res, 403, 'forbidden', 'global', { message: `Requests to this API youtube.googleapis.com method ${SEARCH_RPC} are blocked.` });
      assert.equal(errorInfoOf(res).reason, 'API_KEY_SERVICE_BLOCKED');
      const videosOnly = await createApiKey(t, { apiTargets: [{ service: 'YouTube.googleapis.com', methods: ['youtube.api.v3.V3DataVideoService.List'] }] });
      assert.equal((await get(t, `/youtube/v3/videos?part=id&id=${videoId(1)}`, { key: videosOnly })).statusCode, 200);
      assertMediaError(await get(t, SEARCH, { key: videosOnly }), 403, 'forbidden', 'global');
      const short = await createApiKey(t, { apiTargets: [{ service: 'youtube.googleapis.com', methods: ['youtube.api.v3.V3DataSearchService.*'] }] });
      assert.equal((await get(t, SEARCH, { key: short })).statusCode, 200);
    });
    test('a key bound to a service account is rejected with a clear error', async () => {
      const bound = await createApiKey(t, undefined, BOUND_OK.projectId, { serviceAccountEmail: BOUND_SA });
      const res = await get(t, SEARCH, { key: bound });
      const e = assertMediaError(res, 403, 'forbidden', 'global');
      assert.match(e.message, /bound to a service account cannot be used with youtube\.googleapis\.com/);
      assert.equal(errorInfoOf(res).reason, 'API_KEY_SERVICE_BLOCKED');
    });
  });

  describe('OAuth tokens', () => {
    test('a Data API scope is needed (youtube, youtube.readonly, youtube.force-ssl)', async () => {
      for (const scope of ['youtube', 'youtube.readonly', 'youtube.force-ssl']) {
        assert.equal((await get(t, SEARCH, { principal: BOB, scopes: [YT(scope)] })).statusCode, 200, scope);
      }
      const res = await get(t, SEARCH, { principal: BOB, scopes: [YT('cloud-platform')] });
      assertMediaError(res, 403, 'insufficientPermissions', 'global', { message: 'Request had insufficient authentication scopes.' });
      assert.equal(errorInfoOf(res).reason, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT');
      // youtubepartner alone is for content-owner calls only
      assertMediaError(await get(t, SEARCH, { principal: CAROL, scopes: [YT('youtubepartner')] }), 403, 'insufficientPermissions', 'global');
    });
    test('an invalid token is 401 even with a valid key', async () => {
      const res = await t.twin.app.inject({ method: 'GET', url: `${SEARCH}&key=${key}`, headers: { authorization: 'Bearer nope' } });
      const e = assertMediaError(res, 401, 'authError', 'global', { location: 'Authorization' });
      assert.equal(e.status, 'UNAUTHENTICATED');
    });
    test('key and token: the key must belong to the token\'s project', async () => {
      // CI_SA belongs to demo-project, as does `key`.
      assert.equal((await get(t, SEARCH, { key, principal: `serviceAccount:${CI_SA}`, scopes: [YT('youtube')] })).statusCode, 200);
      const looseKey = await createApiKey(t, undefined, LOOSE.projectId);
      assertMediaError(await get(t, SEARCH, { key: looseKey, principal: `serviceAccount:${CI_SA}`, scopes: [YT('youtube')] }), 400, 'badRequest', 'global', {
        message: 'The API Key and the authentication credential are from different projects.',
      });
      // A user's token belongs to no project: any valid key goes with it.
      assert.equal((await get(t, SEARCH, { key: looseKey, principal: ALICE, scopes: [YT('youtube')] })).statusCode, 200);
      // The key is still checked: restrictions apply.
      const blocked = await createApiKey(t, { iosKeyRestrictions: { allowedBundleIds: ['com.x'] } });
      assertMediaError(await get(t, SEARCH, { key: blocked, principal: ALICE, scopes: [YT('youtube')] }), 403, 'forbidden', 'global');
    });
  });

  describe('authorized filters', () => {
    const videos = async (query: string, opts: Parameters<typeof get>[2]) => {
      const res = await get(t, `${SEARCH}&${query}`, opts);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().items as any[];
    };
    test('with a key alone: 401 Login Required', async () => {
      for (const q of ['forMine=true', 'forDeveloper=true', `forContentOwner=true&onBehalfOfContentOwner=${CONTENT_OWNER}`, `onBehalfOfContentOwner=${CONTENT_OWNER}`]) {
        assertMediaError(await get(t, `${SEARCH}&${q}`, { key }), 401, 'required', 'global', { location: 'Authorization' });
      }
    });
    test('forMine: the caller\'s own channels', async () => {
      const mine = await videos('forMine=true', { principal: ALICE, scopes: [YT('youtube.readonly')] });
      assert.equal(mine.length, VIDEO_COUNT / 3);
      assert.ok(mine.every((i) => i.snippet.channelId === CH_ALICE));
      assert.deepEqual(await videos('forMine=true', { principal: BOB, scopes: [YT('youtube.readonly')] }), []);
    });
    test('forDeveloper: videos uploaded through the caller\'s project', async () => {
      const expected = Array.from({ length: VIDEO_COUNT }, (_, i) => i).filter((i) => i % 4 === 1).map(videoId).sort();
      const bySa = await videos('forDeveloper=true', { principal: `serviceAccount:${CI_SA}`, scopes: [YT('youtube')] });
      assert.deepEqual(bySa.map((i) => i.id.videoId).sort(), expected);
      const byKeyProject = await videos('forDeveloper=true', { key, principal: ALICE, scopes: [YT('youtube')] });
      assert.deepEqual(byKeyProject.map((i) => i.id.videoId).sort(), expected);
      const looseKey = await createApiKey(t, undefined, LOOSE.projectId);
      assert.deepEqual(await videos('forDeveloper=true', { key: looseKey, principal: ALICE, scopes: [YT('youtube')] }), []);
      assertMediaError(await get(t, `${SEARCH}&forDeveloper=true`, { principal: ALICE, scopes: [YT('youtube')] }), 403, 'forbidden', 'youtube.common');
    });
    test('forContentOwner and onBehalfOfContentOwner: linked accounts only', async () => {
      const q = `forContentOwner=true&onBehalfOfContentOwner=${CONTENT_OWNER}`;
      const owned = await videos(q, { principal: CAROL, scopes: [YT('youtubepartner')] });
      assert.equal(owned.length, VIDEO_COUNT / 3);
      assert.ok(owned.every((i) => i.snippet.channelId === CH_ACME));
      assertMediaError(await get(t, `${SEARCH}&${q}`, { principal: ALICE, scopes: [YT('youtube')] }), 403, 'insufficientPermissions', 'youtube.common');
      assertMediaError(await get(t, `${SEARCH}&forContentOwner=true&onBehalfOfContentOwner=noSuchOwner`, { principal: CAROL, scopes: [YT('youtube')] }), 403, 'insufficientPermissions', 'youtube.common');
      assert.equal((await get(t, `${SEARCH}&onBehalfOfContentOwner=${CONTENT_OWNER}`, { principal: CAROL, scopes: [YT('youtubepartner')] })).statusCode, 200);
    });
  });
});

describe('media service name and path prefix are configurable', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  }, { world: mediaWorld, mediaPathPrefix: '/media', mediaServiceName: 'media.example.com' });

  test('routes move under the prefix; apiTargets and error metadata use the service name', async () => {
    const key = await createApiKey(t, { apiTargets: [{ service: 'media.example.com' }] });
    assert.equal((await get(t, '/media/v3/search?part=id', { key })).statusCode, 200);
    assert.equal((await get(t, '/youtube/v3/search?part=id', { key })).statusCode, 404);
    const yt = await createApiKey(t, { apiTargets: [{ service: 'youtube.googleapis.com' }] });
    const res = await get(t, '/media/v3/search?part=id', { key: yt });
    assertMediaError(res, 403, 'forbidden', 'global', { message: `Requests to this API media.example.com method ${SEARCH_RPC} are blocked.` });
    assert.equal(errorInfoOf(res).metadata.service, 'media.example.com');
  });
});

describe('media kind prefix youtube (a drop-in YouTube Data API shape)', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  }, { world: mediaWorld, mediaKindPrefix: 'youtube' });

  test('search, videos, channels and playlists answer youtube#... kinds', async () => {
    const key = await createApiKey(t);
    const search = (await get(t, '/youtube/v3/search?part=snippet&maxResults=50', { key })).json();
    assert.equal(search.kind, 'youtube#searchListResponse');
    assert.ok(search.items.length > 0);
    for (const item of search.items) {
      assert.equal(item.kind, 'youtube#searchResult');
      assert.match(item.id.kind, /^youtube#(video|channel|playlist)$/);
    }
    const video = search.items.find((i: any) => i.id.kind === 'youtube#video').id.videoId;
    const videos = (await get(t, `/youtube/v3/videos?part=id&id=${video}`, { key })).json();
    assert.equal(videos.kind, 'youtube#videoListResponse');
    assert.equal(videos.items[0].kind, 'youtube#video');
    const channel = CH_ACME;
    const channelHits = (await get(t, '/youtube/v3/search?part=id&type=channel', { key })).json();
    assert.equal(channelHits.items[0].id.kind, 'youtube#channel');
    const channels = (await get(t, `/youtube/v3/channels?part=id&id=${channel}`, { key })).json();
    assert.equal(channels.kind, 'youtube#channelListResponse');
    assert.equal(channels.items[0].kind, 'youtube#channel');
    const playlists = (await get(t, `/youtube/v3/playlists?part=id&channelId=${channel}`, { key })).json();
    assert.equal(playlists.kind, 'youtube#playlistListResponse');
    for (const p of playlists.items) assert.equal(p.kind, 'youtube#playlist');
    assert.ok(!JSON.stringify([search, channelHits, videos, channels, playlists]).includes('media#'));
  });

  test('an unknown prefix is refused at start', () => {
    assert.throws(() => checkKindPrefix('yt'), /invalid media kind prefix 'yt': use media or youtube/);
  });
});
