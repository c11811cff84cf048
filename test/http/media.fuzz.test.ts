/** Fuzz: q and every parameter of the media methods, through HTTP. Whatever comes in, the answer is never a 5xx. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { TestTwin } from '../support/twin.ts';
import { mediaTwinHooks } from './media.world.ts';

const SEARCH_PARAMS = [
  'part', 'q', 'type', 'channelId', 'channelType', 'eventType', 'location', 'locationRadius', 'maxResults', 'order', 'pageToken', 'publishedAfter', 'publishedBefore',
  'regionCode', 'relevanceLanguage', 'safeSearch', 'topicId', 'videoCaption', 'videoCategoryId', 'videoDefinition', 'videoDimension', 'videoDuration', 'videoEmbeddable',
  'videoLicense', 'videoPaidProductPlacement', 'videoSyndicated', 'videoType', 'forContentOwner', 'forDeveloper', 'forMine', 'onBehalfOfContentOwner', 'fields',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty',
];

/** Values that reach interesting corners: query syntax, unicode, huge, numbers, near-valid tokens. */
const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '"', '-', '|', '""', '-"', 'a|', '|b', '-(', 'NEAR', '*', "'", '\\', '%', 'true', 'True', 'yes', '0', '-1', '1e9', 'NaN', 'video', 'snippet', 'id,snippet',
    'CAUQAA', 'CAUQAQ', 'CPQDEAA', '(0,0)', '(90,180)', '1000km', '0m', '1e400km', '2024-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'zh-Hans', 'US', '/m/04rlf'),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ maxLength: 3000 }),
);
/** A query string with `name=value` pairs (repeated names allowed), fully percent-encoded. */
const query = (names: string[]) =>
  fc.array(fc.tuple(fc.constantFrom(...names), value), { minLength: 0, maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

describe('media fuzz: never a 5xx', () => {
  let t: TestTwin;
  let key: string;
  mediaTwinHooks((twin, k) => {
    t = twin;
    key = k;
  });

  const check = async (path: string, q: string) => {
    const res = await t.twin.app.inject({ method: 'GET', url: `${path}?key=${key}&${q}` });
    assert.ok(res.statusCode < 500, `${res.statusCode} for ${path}?${q}: ${res.body.slice(0, 300)}`);
    assert.doesNotThrow(() => JSON.parse(res.body));
    if (res.statusCode >= 400) assert.ok(Array.isArray(res.json().error.errors) || res.json().error.status, res.body);
  };

  test('search.list: any parameters, any values', async () => {
    await fc.assert(fc.asyncProperty(query(SEARCH_PARAMS), (q) => check('/youtube/v3/search', q)), { numRuns: 400 });
  });
  test('search.list: valid shape around a fuzzed q and page token', async () => {
    await fc.assert(
      fc.asyncProperty(value, fc.constantFrom('date', 'rating', 'relevance', 'title', 'videoCount', 'viewCount'), value, (q, order, token) =>
        check('/youtube/v3/search', `part=snippet&maxResults=50&order=${order}&q=${encodeURIComponent(q)}&pageToken=${encodeURIComponent(token)}`),
      ),
      { numRuns: 300 },
    );
  });
  test('list methods', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/youtube/v3/videos', '/youtube/v3/channels', '/youtube/v3/playlists'), query(['part', 'id', 'mine', 'channelId', 'maxResults', 'pageToken', 'fields', '__proto__']), check),
      { numRuns: 300 },
    );
  });
  test('credentials: hostile keys and headers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), async (k, h) => {
        const headers: Record<string, string> = {};
        const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '');
        headers['x-goog-api-key'] = safe(k) || 'x';
        headers.referer = safe(h);
        headers['x-android-package'] = safe(h);
        headers['x-android-cert'] = safe(k);
        headers['x-ios-bundle-identifier'] = safe(h);
        const res = await t.twin.app.inject({ method: 'GET', url: '/youtube/v3/search?part=id', headers });
        assert.ok(res.statusCode < 500, res.body);
      }),
      { numRuns: 200 },
    );
  });
});
