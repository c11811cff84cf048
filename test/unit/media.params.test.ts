import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../src/platform/http/errors.ts';
import { CURATED_TOPICS } from '../../src/services/media/catalog/topics.ts';
import { decodePageToken, encodePageToken, pageWindow } from '../../src/services/media/pageToken.ts';
import { parseDateTime, parseLocation, parseMaxResults, parseParts, parseRegionCode, parseRelevanceLanguage, parseTypes } from '../../src/services/media/params.ts';
import { escapeHtml, truncateDescription } from '../../src/services/media/response.ts';
import { OWNER_FILTER_EXCLUDED, VIDEO_ONLY_FILTERS, channelCapApplies, parseSearchRequest } from '../../src/services/media/rules.ts';

/** The single legacy errors[] entry of a thrown media error. */
function errorOf(fn: () => unknown): { httpCode: number; message: string; reason: string; domain: string; location?: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.errors?.length, 1);
    return { httpCode: err.httpCode, ...err.errors![0] };
  }
  assert.fail('expected an error');
}

const search = (q: Record<string, unknown>) => parseSearchRequest({ part: 'snippet', ...q }, CURATED_TOPICS);

describe('page tokens', () => {
  test('the real encoding: CAUQAA is offset 5 next, CAUQAQ offset 5 previous', () => {
    assert.equal(encodePageToken({ offset: 5, direction: 'next' }), 'CAUQAA');
    assert.equal(encodePageToken({ offset: 5, direction: 'previous' }), 'CAUQAQ');
    assert.deepEqual(decodePageToken('CAUQAA', 500), { offset: 5, direction: 'next' });
    assert.deepEqual(decodePageToken('CAoQAA', 500), { offset: 10, direction: 'next' });
    assert.equal(encodePageToken({ offset: 300, direction: 'next' }), Buffer.from([0x08, 0xac, 0x02, 0x10, 0x00]).toString('base64url'));
  });
  test('round trip for every offset up to 500, both directions', () => {
    for (let offset = 0; offset <= 500; offset++) {
      for (const direction of ['next', 'previous'] as const) {
        if (direction === 'previous' && offset === 0) continue;
        assert.deepEqual(decodePageToken(encodePageToken({ offset, direction }), 500), { offset, direction });
      }
    }
  });
  test('tampered, padded, truncated, out-of-range and foreign tokens are invalidPageToken', () => {
    const bad = ['CAUQAg', 'CAUQAA==', 'CAUQ', 'CAU', 'DAUQAA', 'CAUYAA', 'CAUQAAA', 'CIAEQAA', 'CPUDEAA', 'CAAQAQ', 'x', '!!!!', 'CAUQAA.', 'a'.repeat(40),
      Buffer.from([0x08, 0x85, 0x00, 0x10, 0x00]).toString('base64url'), // overlong varint for 5
      encodePageToken({ offset: 501, direction: 'next' })];
    for (const t of bad) {
      const e = errorOf(() => decodePageToken(t, 500)); // t
      assert.deepEqual([e.httpCode, e.reason, e.domain, e.location, e.message], [400, 'invalidPageToken', 'youtube.parameter', 'pageToken', 'The request specifies an invalid page token.'], t);
    }
  });
  test('property: any string either decodes to a token that re-encodes to itself, or is refused', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (s) => {
        try {
          const t = decodePageToken(s, 500);
          return encodePageToken(t) === s;
        } catch (err) {
          return err instanceof ApiError && err.errors?.[0].reason === 'invalidPageToken';
        }
      }),
      { numRuns: 2000 },
    );
  });
  test('a previous token ends its page just before its offset', () => {
    assert.deepEqual(pageWindow(undefined, 5), { start: 0, limit: 5 });
    assert.deepEqual(pageWindow({ offset: 10, direction: 'next' }, 5), { start: 10, limit: 5 });
    assert.deepEqual(pageWindow({ offset: 10, direction: 'previous' }, 5), { start: 5, limit: 5 });
    assert.deepEqual(pageWindow({ offset: 3, direction: 'previous' }, 5), { start: 0, limit: 3 });
  });
});

describe('part', () => {
  test('required', () => {
    for (const q of [{}, { part: '' }, { part: ' , ' }]) {
      const e = errorOf(() => parseParts(q, ['id', 'snippet']));
      assert.deepEqual([e.httpCode, e.reason, e.domain, e.location, e.message], [400, 'required', 'global', 'part', 'Required parameter: part']);
    }
  });
  test('comma list or repeated; unknown parts are unknownPart', () => {
    assert.deepEqual([...parseParts({ part: 'id,snippet' }, ['id', 'snippet'])], ['id', 'snippet']);
    assert.deepEqual([...parseParts({ part: ['id', 'snippet'] }, ['id', 'snippet'])], ['id', 'snippet']);
    const e = errorOf(() => parseParts({ part: 'snippet,statistics' }, ['id', 'snippet']));
    assert.deepEqual([e.reason, e.domain, e.location, e.message], ['unknownPart', 'youtube.part', 'part', 'statistics']);
    assert.equal(errorOf(() => parseParts({ part: 'constructor' }, ['id', 'snippet'])).reason, 'unknownPart');
  });
});

describe('maxResults', () => {
  test('0..50, default 5', () => {
    assert.equal(parseMaxResults({}, 0, 50, 5), 5);
    assert.equal(parseMaxResults({ maxResults: '0' }, 0, 50, 5), 0);
    assert.equal(parseMaxResults({ maxResults: '50' }, 0, 50, 5), 50);
  });
  test('out of range and non-integers', () => {
    const e = errorOf(() => parseMaxResults({ maxResults: '1000' }, 0, 50, 5));
    assert.deepEqual([e.reason, e.domain, e.location, e.message], ['invalidParameter', 'global', 'maxResults', "Invalid value '1000'. Values must be within the range: [0, 50]"]);
    assert.match(errorOf(() => parseMaxResults({ maxResults: '51' }, 0, 50, 5)).message, /\[0, 50\]/);
    for (const v of ['-1', '1.5', 'abc', '', '1e3', '99999999999999']) assert.equal(errorOf(() => parseMaxResults({ maxResults: v }, 0, 50, 5)).reason, 'invalidParameter', v);
  });
});

describe('type', () => {
  test('default all three; list; unknown refused', () => {
    assert.deepEqual(parseTypes({}), ['video', 'channel', 'playlist']);
    assert.deepEqual(parseTypes({ type: 'video,channel' }), ['video', 'channel']);
    assert.deepEqual(parseTypes({ type: ['playlist', 'playlist'] }), ['playlist']);
    assert.equal(errorOf(() => parseTypes({ type: 'movie' })).reason, 'invalidParameter');
  });
});

describe('location and locationRadius', () => {
  test('units m, km, ft, mi; parentheses optional', () => {
    assert.deepEqual(parseLocation({ location: '(37.42307,-122.08427)', locationRadius: '10km' }), { lat: 37.42307, lng: -122.08427, radiusMeters: 10_000 });
    assert.equal(parseLocation({ location: '37.4,-122.1', locationRadius: '1500m' })!.radiusMeters, 1500);
    assert.equal(parseLocation({ location: '0,0', locationRadius: '1000ft' })!.radiusMeters, 304.8);
    assert.equal(parseLocation({ location: '0,0', locationRadius: '2mi' })!.radiusMeters, 3218.688);
    assert.equal(parseLocation({ location: '0,0', locationRadius: '1000km' })!.radiusMeters, 1_000_000);
  });
  test('radius above 1000 km, missing radius or location, malformed values: invalidLocation', () => {
    for (const q of [
      { location: '0,0', locationRadius: '1001km' },
      { location: '0,0', locationRadius: '622mi' },
      { location: '0,0' },
      { locationRadius: '5km' },
      { location: '91,0', locationRadius: '5km' },
      { location: '0,181', locationRadius: '5km' },
      { location: 'paris', locationRadius: '5km' },
      { location: '0,0', locationRadius: '5' },
      { location: '0,0', locationRadius: '5 parsecs' },
      { location: '0,0', locationRadius: '-5km' },
    ]) {
      const e = errorOf(() => parseLocation(q));
      assert.deepEqual([e.httpCode, e.reason, e.domain], [400, 'invalidLocation', 'youtube.search'], JSON.stringify(q));
    }
  });
});

describe('regionCode, relevanceLanguage, dates', () => {
  test('ISO 3166-1 alpha-2 only', () => {
    assert.equal(parseRegionCode({ regionCode: 'fr' }), 'FR');
    for (const v of ['XX', 'USA', 'U', '12', 'toString']) {
      const e = errorOf(() => parseRegionCode({ regionCode: v }));
      assert.deepEqual([e.reason, e.domain, e.location], ['invalidRegionCode', 'youtube.parameter', 'regionCode'], v);
    }
  });
  test('ISO 639-1 with script or region subtags', () => {
    assert.equal(parseRelevanceLanguage({ relevanceLanguage: 'EN' }), 'en');
    assert.equal(parseRelevanceLanguage({ relevanceLanguage: 'zh-hans' }), 'zh-Hans');
    assert.equal(parseRelevanceLanguage({ relevanceLanguage: 'zh-Hant' }), 'zh-Hant');
    assert.equal(parseRelevanceLanguage({ relevanceLanguage: 'pt-br' }), 'pt-BR');
    for (const v of ['xx', 'english', 'e', 'en-', '__proto__', 'zh-Hans-CN-x']) {
      const e = errorOf(() => parseRelevanceLanguage({ relevanceLanguage: v }));
      assert.deepEqual([e.reason, e.domain], ['invalidRelevanceLanguage', 'youtube.search'], v);
    }
  });
  test('RFC 3339 date-times', () => {
    assert.equal(parseDateTime({ publishedAfter: '2024-01-01T00:00:00Z' }, 'publishedAfter'), Date.UTC(2024, 0, 1));
    assert.equal(parseDateTime({ publishedAfter: '2024-01-01T02:00:00.5+02:00' }, 'publishedAfter'), Date.UTC(2024, 0, 1) + 500);
    for (const v of ['2024-01-01', '2024-13-01T00:00:00Z', '2024-02-30T00:00:00Z', 'yesterday', '2024-01-01T00:00:00']) {
      assert.equal(errorOf(() => parseDateTime({ publishedAfter: v }, 'publishedAfter')).reason, 'invalidParameter', v);
    }
  });
});

describe('search rules', () => {
  test('defaults', () => {
    const r = search({});
    assert.deepEqual(r.filters, { types: ['video', 'channel', 'playlist'], safeSearch: 'moderate', order: 'relevance' });
    assert.equal(r.maxResults, 5);
    assert.equal(r.regionCode, 'US');
  });
  test('every video-only filter needs type=video (invalidSearchFilter), even with the value any', () => {
    const values: Record<string, string> = { eventType: 'live', videoCaption: 'any', videoCategoryId: '10', videoDefinition: 'high', videoDimension: '3d', videoDuration: 'short', videoEmbeddable: 'true', videoLicense: 'youtube', videoPaidProductPlacement: 'true', videoSyndicated: 'any', videoType: 'movie' };
    for (const name of VIDEO_ONLY_FILTERS) {
      for (const type of [undefined, 'channel', 'video,channel']) {
        const e = errorOf(() => search({ [name]: values[name], ...(type && { type }) }));
        assert.deepEqual([e.reason, e.domain, e.location], ['invalidSearchFilter', 'youtube.search', name], `${name} ${type}`);
      }
      assert.doesNotThrow(() => search({ [name]: values[name], type: 'video' }), name);
    }
    const loc = errorOf(() => search({ location: '0,0', locationRadius: '1km' }));
    assert.deepEqual([loc.reason, loc.domain, loc.location], ['invalidLocation', 'youtube.search', 'location']);
    assert.doesNotThrow(() => search({ location: '0,0', locationRadius: '1km', type: 'video' }));
  });
  test('enumerations are case-insensitive and refuse other values', () => {
    assert.equal(search({ order: 'VIEWCOUNT' }).filters.order, 'viewCount');
    assert.equal(search({ type: 'video', videoDuration: 'Long' }).filters.videoDuration, 'long');
    for (const [name, v] of [['order', 'popularity'], ['safeSearch', 'off'], ['channelType', 'movie'], ['eventType', 'past'], ['videoEmbeddable', 'false']]) {
      const e = errorOf(() => search({ [name]: v, type: 'video' }));
      assert.deepEqual([e.reason, e.domain, e.location], ['invalidParameter', 'global', name]);
      assert.match(e.message, /^Invalid string value: '.*'\. Allowed values: \[/);
    }
  });
  test('"any" filters drop out of the engine query', () => {
    const r = search({ type: 'video', videoCaption: 'any', videoDefinition: 'any', videoEmbeddable: 'any', channelType: 'any' });
    assert.deepEqual(Object.keys(r.filters).sort(), ['order', 'safeSearch', 'types']);
  });
  test('one of forContentOwner, forDeveloper, forMine', () => {
    for (const q of [{ forMine: true, forDeveloper: true }, { forContentOwner: true, forMine: true, onBehalfOfContentOwner: 'x' }, { forDeveloper: true, forContentOwner: true, onBehalfOfContentOwner: 'x' }]) {
      const e = errorOf(() => search({ type: 'video', ...q }));
      assert.deepEqual([e.reason, e.domain], ['incompatibleParameters', 'youtube.parameter']);
    }
    assert.doesNotThrow(() => search({ type: 'video', forMine: true, forDeveloper: false }));
  });
  test('forMine and forContentOwner need type=video and none of the eight video filters', () => {
    for (const owner of [{ forMine: true }, { forContentOwner: true, onBehalfOfContentOwner: 'acme' }]) {
      assert.equal(errorOf(() => search(owner)).reason, 'invalidSearchFilter');
      for (const name of OWNER_FILTER_EXCLUDED) {
        const e = errorOf(() => search({ ...owner, type: 'video', [name]: 'any' }));
        assert.deepEqual([e.reason, e.location], ['invalidSearchFilter', name]);
      }
      assert.doesNotThrow(() => search({ ...owner, type: 'video', eventType: 'live', videoCaption: 'none', videoCategoryId: '10' }));
    }
    assert.equal(errorOf(() => search({ type: 'video', forContentOwner: true })).reason, 'missingRequiredParameter');
    assert.doesNotThrow(() => search({ forDeveloper: true }));
  });
  test('channelId: malformed ids are invalidChannelId; the 500 cap applies to type=video without owner filter', () => {
    for (const v of ['', 'UC bad', 'UC/../x', 'a'.repeat(65)]) {
      const e = errorOf(() => search({ channelId: v }));
      assert.deepEqual([e.reason, e.domain, e.location], ['invalidChannelId', 'youtube.search', 'channelId'], v);
    }
    assert.equal(channelCapApplies(search({ channelId: 'UCaliceaaaaaaaaaaaaaaaaa', type: 'video' })), true);
    assert.equal(channelCapApplies(search({ channelId: 'UCaliceaaaaaaaaaaaaaaaaa' })), false);
    assert.equal(channelCapApplies(search({ channelId: 'UCaliceaaaaaaaaaaaaaaaaa', type: 'video', forDeveloper: true })), false);
  });
  test('topicId: curated ids only', () => {
    assert.equal(search({ topicId: '/m/04rlf' }).filters.topicId, '/m/04rlf');
    for (const v of ['/m/nope', '__proto__', 'toString']) assert.equal(errorOf(() => search({ topicId: v })).reason, 'invalidParameter', v);
  });
  test('hostile values never throw anything but ApiError', () => {
    const names = ['q', 'type', 'channelId', 'channelType', 'eventType', 'location', 'locationRadius', 'maxResults', 'order', 'pageToken', 'publishedAfter', 'publishedBefore', 'regionCode', 'relevanceLanguage', 'safeSearch', 'topicId', 'videoCaption', 'videoCategoryId', 'videoDefinition', 'videoDuration', 'videoType', 'onBehalfOfContentOwner'];
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.oneof(fc.string({ maxLength: 3000 }), fc.array(fc.string(), { maxLength: 3 })), (name, value) => {
        try {
          search({ type: 'video', [name]: value });
        } catch (err) {
          return err instanceof ApiError && err.httpCode < 500;
        }
        return true;
      }),
      { numRuns: 3000 },
    );
  });
});

describe('shaping helpers', () => {
  test('HTML escaping as the Data API writes titles', () => {
    assert.equal(escapeHtml(`Tom & Jerry's <b>"x"</b>`), 'Tom &amp; Jerry&#39;s &lt;b&gt;&quot;x&quot;&lt;/b&gt;');
  });
  test('descriptions cut at about 160 characters, at a word boundary', () => {
    const long = 'word '.repeat(80).trim();
    const cut = truncateDescription(long);
    assert.ok(cut.length <= 160 && cut.length >= 130, String(cut.length));
    assert.ok(cut.endsWith('word...'));
    assert.equal(truncateDescription('short'), 'short');
    assert.equal(Array.from(truncateDescription('😀'.repeat(200))).length, 160);
  });
});

describe('serve options', () => {
  test('path prefix: empty or /segments, no trailing slash', async () => {
    const { checkPathPrefix, checkServiceName } = await import('../../src/services/media/index.ts');
    for (const ok of ['', '/youtube', '/api/media', '/a.b_c~d-e']) assert.equal(checkPathPrefix(ok), ok);
    for (const bad of ['youtube', '/youtube/', '/', '/a b', '/a/../b?', '//x', '/..', '/a/.', '/./b']) assert.throws(() => checkPathPrefix(bad), /invalid media path prefix/, bad);
    for (const ok of ['youtube.googleapis.com', 'media.example.com', 'a-b.c']) assert.equal(checkServiceName(ok), ok);
    for (const bad of ['youtube', 'YouTube.googleapis.com', '-a.com', 'a..b', 'a.b/c', '']) assert.throws(() => checkServiceName(bad), /invalid media service name/, bad);
  });
});
