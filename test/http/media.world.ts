/** The media world the media suites run in: a small catalogue, keys and callers. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { type TestTwin, type startTestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, CAROL, CI_SA, DEMO, LOOSE, testWorld } from '../support/world.ts';

export const CH_ALICE = 'UCaliceaaaaaaaaaaaaaaaaa';
export const CH_ACME = 'UCacmeaaaaaaaaaaaaaaaaaa';
export const CH_SHOW = 'UCshowaaaaaaaaaaaaaaaaaa';
export const CONTENT_OWNER = 'acmeOwner01';
export const VIDEO_COUNT = 60;
export const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;

export const videoId = (i: number) => `vid${String(i).padStart(8, '0')}`;

/** Video entry `i` of the media world (channel, attributes and dates follow from `i`). */
export function video(i: number): Record<string, unknown> {
  const channelId = i % 3 === 0 ? CH_ALICE : i % 3 === 1 ? CH_ACME : CH_SHOW;
  return {
    kind: 'youtube#video',
    id: videoId(i),
    snippet: {
      publishedAt: new Date(T0 + i * DAY).toISOString(),
      channelId,
      title: i === 7 ? 'Tom & Jerry\'s <best> "cooking" moments' : `Cooking pasta lesson ${i}`,
      description: i === 8 ? 'word '.repeat(80).trim() : `How to cook pasta, part ${i}.`,
      channelTitle: channelId,
      categoryId: i % 2 ? '22' : '10',
      defaultLanguage: i % 4 === 0 ? 'fr' : 'en',
      liveBroadcastContent: i === 5 ? 'live' : 'none',
      tags: ['pasta', 'cooking'],
    },
    contentDetails: { duration: `PT${(i % 30) + 1}M`, definition: i % 2 ? 'hd' : 'sd', dimension: '2d', caption: i % 5 === 0 ? 'true' : 'false' },
    status: { privacyStatus: 'public', license: i % 10 === 0 ? 'creativeCommon' : 'youtube', embeddable: true },
    statistics: { viewCount: String(1000 * (i + 1)), likeCount: String(i * 10), commentCount: '3' },
    ...(i === 5 && { liveStreamingDetails: { actualStartTime: new Date(T0).toISOString(), concurrentViewers: '500' } }),
    ...(i % 6 === 0 && { recordingDetails: { location: { latitude: 48.8566 + i / 1000, longitude: 2.3522 } } }),
    cloudtwin: { ...(i % 4 === 1 && { developerProjectNumber: DEMO.projectNumber }) },
  };
}

const channel = (id: string, title: string, ext: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: 'youtube#channel',
  id,
  snippet: { title, description: `${title} channel`, publishedAt: new Date(T0 - 365 * DAY).toISOString(), customUrl: `@${title.toLowerCase().replace(/\W/g, '')}` },
  statistics: { viewCount: '1000', subscriberCount: '10', videoCount: '20' },
  cloudtwin: ext,
  ...extra,
});

export const mediaSection = {
  contentOwners: [{ kind: 'youtubePartner#contentOwner', id: CONTENT_OWNER, displayName: 'Acme Studios', cloudtwin: { linkedPrincipals: [CAROL] } }],
  channels: [
    channel(CH_ALICE, 'Alice Cooks', { ownerPrincipal: ALICE }),
    channel(CH_ACME, 'Acme Kitchen', {}, { contentOwnerDetails: { contentOwner: CONTENT_OWNER } }),
    channel(CH_SHOW, 'Pasta Show', { channelType: 'show', ownerPrincipal: `serviceAccount:${CI_SA}` }),
  ],
  videos: Array.from({ length: VIDEO_COUNT }, (_, i) => video(i)),
  playlists: [
    {
      kind: 'youtube#playlist',
      id: 'PLpastaaaaaaaaaaaa',
      snippet: { publishedAt: new Date(T0).toISOString(), channelId: CH_ALICE, title: 'Best pasta recipes', description: 'All the pasta', thumbnails: { default: { url: 'https://i.ytimg.com/vi/vid00000000/default.jpg', width: 120, height: 90 } } },
      contentDetails: { itemCount: 2 },
      cloudtwin: { videoIds: [videoId(0), videoId(3)] },
    },
    {
      kind: 'youtube#playlist',
      id: 'PLsoupaaaaaaaaaaaa',
      snippet: { publishedAt: new Date(T0 + DAY).toISOString(), channelId: CH_ALICE, title: 'Soups', description: 'Soups' },
      cloudtwin: { videoIds: [] },
    },
  ],
};

/** Searches cost 100 units: the suites get room for many (the quota suite sets its own limits). */
export const mediaWorld = { ...testWorld, quotas: [{ project: DEMO.projectId, service: 'youtube.googleapis.com', dailyLimit: 100_000_000 }], media: mediaSection };

/** Creates an API key in `project` (instant operations) and returns its key string. */
export async function createApiKey(t: TestTwin, restrictions?: Record<string, unknown>, project: string = DEMO.projectId, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call(ALICE, { method: 'POST', url: `/v2/projects/${project}/locations/global/keys`, payload: { ...(restrictions && { restrictions }), ...extra } });
  assert.equal(res.statusCode, 200, res.body);
  const op = res.json();
  assert.equal(op.done, true, res.body);
  return op.response.keyString;
}

export const LOOSE_PROJECT = LOOSE;

/** GET a media URL with a key (query) and optional headers. */
export function get(t: TestTwin, url: string, opts: { key?: string; headers?: Record<string, string>; principal?: string | null; scopes?: string[] } = {}): Promise<LightMyRequestResponse> {
  const sep = url.includes('?') ? '&' : '?';
  const full = opts.key ? `${url}${sep}key=${encodeURIComponent(opts.key)}` : url;
  return t.call(opts.principal ?? null, { method: 'GET', url: full, headers: opts.headers, scopes: opts.scopes });
}

/** Asserts a media (legacy) error: HTTP code, the single errors[] entry's reason and domain (and location). */
export function assertMediaError(res: LightMyRequestResponse, code: number, reason: string, domain: string, opts: { location?: string; message?: string | RegExp } = {}): Record<string, any> {
  assert.equal(res.statusCode, code, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(body.error.errors.length, 1, res.body);
  const e = body.error.errors[0];
  assert.equal(e.reason, reason, res.body);
  assert.equal(e.domain, domain, res.body);
  assert.equal(e.message, body.error.message);
  if (opts.location !== undefined) {
    assert.equal(e.location, opts.location, res.body);
    assert.equal(e.locationType, opts.location === 'Authorization' ? 'header' : 'parameter');
  }
  if (typeof opts.message === 'string') assert.equal(body.error.message, opts.message);
  else if (opts.message) assert.match(body.error.message, opts.message);
  return body.error;
}

export const YT = (scope: string) => `https://www.googleapis.com/auth/${scope}`;

/** Suite hooks: a twin on the media world (plus `opts`) and a key of demo-project, handed to `set` before the tests. */
export function mediaTwinHooks(set: (twin: TestTwin, key: string) => void, opts: Parameters<typeof startTestTwin>[0] = {}): void {
  twinHooks(async (twin) => set(twin, await createApiKey(twin)), { world: mediaWorld, ...opts });
}
