/**
 * Compatibility: the stock `googleapis` youtube v3 client against a real `cloudtwin serve`
 * process: a key issued by the twin's API Keys service, search with next/previous pages, the
 * list methods, errors as the client surfaces them, and an OAuth token for forMine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuth2Client } from 'google-auth-library';
import { google, type youtube_v3 } from 'googleapis';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { CH_ALICE, VIDEO_COUNT, mediaWorld, videoId } from '../http/media.world.ts';
import { issueKey } from './media.helpers.ts';
import { ALICE } from '../support/world.ts';

async function rejects(p: Promise<unknown>, status: number, reason: string): Promise<any> {
  try {
    await p;
  } catch (err: any) {
    assert.ok(err.response, String(err));
    assert.equal(err.response.status, status, JSON.stringify(err.response.data));
    assert.equal(err.response.data.error.errors[0].reason, reason);
    assert.equal(err.message, err.response.data.error.message);
    return err;
  }
  assert.fail(`expected HTTP ${status}`);
}

describe('googleapis youtube v3 against cloudtwin serve', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let yt: youtube_v3.Youtube;
  let key: string;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', mediaWorld);
    key = await issueKey(server);
    yt = google.youtube({ version: 'v3', rootUrl: `${server.url}/`, auth: key, retry: false } as any);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  it('search.list with a key: typed response, every page forward and back', async () => {
    const first = await yt.search.list({ part: ['snippet'], q: 'pasta', type: ['video'], maxResults: 25, order: 'date' });
    assert.equal(first.status, 200);
    assert.equal(first.data.kind, 'media#searchListResponse');
    assert.equal(first.data.regionCode, 'US');
    assert.equal(first.data.items!.length, 25);
    assert.equal(first.data.items![0].id!.videoId, videoId(VIDEO_COUNT - 1));
    assert.equal(first.data.items![0].snippet!.thumbnails!.default!.width, 120);
    const seen: string[] = [];
    let page = first.data;
    for (;;) {
      seen.push(...page.items!.map((i) => i.id!.videoId!));
      if (!page.nextPageToken) break;
      page = (await yt.search.list({ part: ['snippet'], q: 'pasta', type: ['video'], maxResults: 25, order: 'date', pageToken: page.nextPageToken })).data;
    }
    assert.equal(seen.length, VIDEO_COUNT);
    assert.equal(new Set(seen).size, VIDEO_COUNT);
    const back = (await yt.search.list({ part: ['id'], q: 'pasta', type: ['video'], maxResults: 25, order: 'date', pageToken: page.prevPageToken! })).data;
    assert.deepEqual(back.items!.map((i) => i.id!.videoId), seen.slice(25, 50));
  });

  it('filters the client sends as its own types (booleans, lists, enums)', async () => {
    const r = await yt.search.list({ part: ['id'], type: ['video'], videoDuration: 'short', videoDefinition: 'any', channelId: CH_ALICE, maxResults: 50, safeSearch: 'strict', regionCode: 'fr', relevanceLanguage: 'fr' });
    assert.equal(r.data.regionCode, 'FR');
    assert.ok(r.data.items!.length > 0);
  });

  it('videos, channels and playlists list', async () => {
    const v = await yt.videos.list({ part: ['snippet', 'statistics', 'contentDetails'], id: [videoId(1), videoId(2)] });
    assert.equal(v.data.kind, 'media#videoListResponse');
    assert.deepEqual(v.data.items!.map((i) => i.id), [videoId(1), videoId(2)]);
    assert.equal(v.data.items![0].statistics!.viewCount, '2000');
    const c = await yt.channels.list({ part: ['snippet'], id: [CH_ALICE] });
    assert.equal(c.data.items![0].snippet!.title, 'Alice Cooks');
    const p = await yt.playlists.list({ part: ['snippet'], channelId: CH_ALICE, maxResults: 1 });
    assert.equal(p.data.items!.length, 1);
    assert.ok(p.data.nextPageToken);
  });

  it('errors come back as the client expects them', async () => {
    const e = await rejects(yt.search.list({ part: ['snippet'], maxResults: 1000 }), 400, 'invalidParameter');
    assert.equal(e.message, "Invalid value '1000'. Values must be within the range: [0, 50]");
    await rejects(yt.search.list({ part: ['snippet'], type: ['channel'], videoDuration: 'long' }), 400, 'invalidSearchFilter');
    await rejects(yt.search.list({ part: ['snippet'], pageToken: 'CAUQAg' }), 400, 'invalidPageToken');
    const bad = google.youtube({ version: 'v3', rootUrl: `${server.url}/`, auth: 'AIzaSyNotAKeyAtAllxxxxxxxxxxxxxxxxxxxxx', retry: false } as any);
    await rejects(bad.search.list({ part: ['snippet'] }), 400, 'badRequest');
    const restricted = await issueKey(server, { browserKeyRestrictions: { allowedReferrers: ['app.example.com/*'] } });
    const browser = google.youtube({ version: 'v3', rootUrl: `${server.url}/`, auth: restricted, retry: false } as any);
    await rejects(browser.search.list({ part: ['snippet'] }), 403, 'forbidden');
    const ok = await browser.search.list({ part: ['id'] }, { headers: { Referer: 'https://app.example.com/search' } });
    assert.equal(ok.status, 200);
  });

  it('an OAuth token: forMine', async () => {
    const { access_token } = await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE, scopes: ['https://www.googleapis.com/auth/youtube.readonly'] });
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token });
    const mine = google.youtube({ version: 'v3', rootUrl: `${server.url}/`, auth, retry: false } as any);
    const r = await mine.search.list({ part: ['snippet'], forMine: true, type: ['video'], maxResults: 50 });
    assert.equal(r.data.items!.length, VIDEO_COUNT / 3);
    assert.ok(r.data.items!.every((i) => i.snippet!.channelId === CH_ALICE));
    await rejects(yt.search.list({ part: ['snippet'], forMine: true, type: ['video'] }), 401, 'required');
  });
});
