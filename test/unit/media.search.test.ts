import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Store } from '../../src/platform/store/store.ts';
import { createMediaCatalog } from '../../src/services/media/catalog/index.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { cellOf, coveringCells } from '../../src/services/media/search/geoCells.ts';
import type { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { STABLE_ORDERS } from '../../src/services/media/search/index.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { ordering } from '../../src/services/media/search/rankings.ts';
import { CH_BIG, CH_SHOW, CH_SMALL, type FixtureStore, load, openFixture, query, video } from './media.fixture.ts';

const day = (n: number) => Date.UTC(2025, 0, 1) + n * 86_400_000;

describe('media search engine: filters and orders on a small catalogue', () => {
  let f: FixtureStore;
  const ids = async (o: Partial<SearchQuery> & { text?: string }) => {
    const { text, ...rest } = o;
    const r = await f.media.engine.search(query({ ...rest, q: text === undefined ? undefined : parseQuery(text) }));
    return r.hits.map((h) => h.id);
  };
  const set = async (o: Partial<SearchQuery> & { text?: string }) => (await ids(o)).sort();
  before(async () => {
    f = await openFixture();
  });
  after(async () => {
    await f.close();
  });

  test('terms match title, tags and description; private entries are never found; order=date is newest first', async () => {
    assert.deepEqual(await ids({ text: 'rock', types: ['video'] }), ['vidSydney01', 'vidGarden01', 'vidRestrict', 'vidComplet1', 'vidUpcomin1', 'vidLiveNow1', 'vidLong0001', 'vidMedium02']);
    assert.deepEqual(await set({ text: 'rock', types: ['playlist'] }), ['PLrockrockrockrock01']);
    assert.deepEqual(await set({ text: 'lesson' }), ['vidMedium01', 'vidShort001']);
  });

  test('case and accents fold; NOT, OR and phrases', async () => {
    assert.deepEqual(await ids({ text: 'CRÈME brulee' }), ['vidMedium01']);
    assert.deepEqual(await ids({ text: 'creme BRÛLÉE' }), ['vidMedium01']);
    assert.deepEqual(await set({ text: 'guitar|piano' }), ['vidMedium01', 'vidShort001']);
    assert.deepEqual(await set({ text: 'guitar | piano -beginners' }), ['vidMedium01']);
    assert.ok(!(await ids({ text: 'rock -live' })).includes('vidLiveNow1'));
    assert.ok(!(await ids({ text: 'rock -"rock concert"' })).includes('vidMedium02'));
    assert.ok((await ids({ text: 'rock -"concert rock"' })).includes('vidMedium02'));
    assert.deepEqual(await ids({ text: '"lesson for"' }), ['vidShort001']);
    assert.deepEqual(await ids({ text: '"lesson piano"' }), []);
    assert.deepEqual(await ids({ text: 'nosuchword' }), []);
    assert.deepEqual(await ids({ text: 'rock nosuchword' }), []);
  });

  test('query text is data: SQL and FTS syntax find nothing and break nothing', async () => {
    for (const text of ["' OR 1=1 --", 'rock" OR "1"="1', 'NEAR(rock live)', 'rock AND live', 'rock OR live', '__proto__', 'constructor', 'rock*']) {
      const r = await f.media.engine.search(query({ q: parseQuery(text) }));
      assert.equal(r.totalResults, text === 'rock*' ? 9 : 0, text);
    }
    // no words at all: no text condition (as if q were absent)
    const all = (await f.media.engine.search(query({}))).totalResults;
    for (const text of ['*', ')(', '\u0000', '""', '-', '|||']) assert.equal((await f.media.engine.search(query({ q: parseQuery(text) }))).totalResults, all, text);
  });

  test('safeSearch: moderate drops restricted, strict drops moderate and restricted', async () => {
    assert.ok((await ids({ text: 'rock', safeSearch: 'none' })).includes('vidRestrict'));
    assert.ok(!(await ids({ text: 'rock', safeSearch: 'moderate' })).includes('vidRestrict'));
    const strict = await ids({ types: ['video'], safeSearch: 'strict' });
    assert.ok(!strict.includes('vidRestrict') && !strict.includes('vidEpisode2'));
    assert.ok((await ids({ types: ['video'], safeSearch: 'moderate' })).includes('vidEpisode2'));
  });

  test('videoDuration buckets: short < 4 min, medium 4-20 min inclusive, long > 20 min; live and upcoming in none', async () => {
    const v = { types: ['video'] as SearchQuery['types'] };
    assert.deepEqual(await set({ ...v, videoDuration: 'short' }), ['vidShort001']);
    assert.deepEqual(await set({ ...v, videoDuration: 'long' }), ['vidLong0001']);
    const medium = await set({ ...v, videoDuration: 'medium' });
    assert.ok(medium.includes('vidMedium01') && medium.includes('vidMedium02'), 'the 4:00 and 20:00 boundaries are medium');
    assert.ok(!medium.includes('vidLiveNow1') && !medium.includes('vidUpcomin1') && !medium.includes('vidLong0001'));
  });

  test('video attribute filters', async () => {
    const v = { types: ['video'] as SearchQuery['types'] };
    assert.deepEqual(await set({ ...v, videoDefinition: 'standard' }), ['vidMedium01']);
    assert.ok(!(await set({ ...v, videoDefinition: 'high' })).includes('vidMedium01'));
    assert.deepEqual(await set({ ...v, videoDimension: '3d' }), ['vidMedium02']);
    assert.ok(!(await set({ ...v, videoDimension: '2d' })).includes('vidMedium02'));
    assert.deepEqual(await set({ ...v, videoCaption: 'closedCaption' }), ['vidShort001']);
    assert.ok(!(await set({ ...v, videoCaption: 'none' })).includes('vidShort001'));
    assert.deepEqual(await set({ ...v, videoLicense: 'creativeCommon' }), ['vidMedium01']);
    assert.ok(!(await set({ ...v, videoLicense: 'youtube' })).includes('vidMedium01'));
    assert.ok(!(await set({ ...v, videoEmbeddable: true })).includes('vidMedium02'));
    assert.ok(!(await set({ ...v, videoSyndicated: true })).includes('vidLong0001'));
    assert.deepEqual(await set({ ...v, videoPaidProductPlacement: true }), ['vidEpisode1']);
    assert.deepEqual(await set({ ...v, videoType: 'episode' }), ['vidEpisode1', 'vidEpisode2']);
    assert.deepEqual(await set({ ...v, videoType: 'movie' }), ['vidLong0001']);
    assert.deepEqual(await set({ ...v, videoCategoryId: '26' }), ['vidEpisode1']);
    assert.deepEqual(await set({ ...v, videoCategoryId: '999' }), []);
    assert.deepEqual(await set({ ...v, developerProjectNumber: '300000000001' }), ['vidEpisode2', 'vidRestrict']);
    assert.deepEqual(await set({ ...v, developerProjectNumber: '999' }), []);
    // a video filter limits the result to videos even when other types are asked for
    assert.ok((await ids({ videoDimension: '3d' })).every((id) => id.startsWith('vid')));
  });

  test('topicId, eventType, regionCode (allow and block lists)', async () => {
    assert.deepEqual(await set({ topicId: '/m/064t9' }), ['vidMedium01']);
    assert.deepEqual(await set({ topicId: '/m/04rlf' }), ['vidMedium01', 'vidShort001']);
    assert.deepEqual(await set({ topicId: '/m/0bzvm2' }), []);
    assert.deepEqual(await ids({ types: ['video'], eventType: 'live' }), ['vidLiveNow1']);
    assert.deepEqual(await ids({ types: ['video'], eventType: 'upcoming' }), ['vidUpcomin1']);
    assert.deepEqual(await ids({ types: ['video'], eventType: 'completed' }), ['vidComplet1']);
    const de = await set({ types: ['video'], regionCode: 'DE' });
    assert.ok(!de.includes('vidEpisode1') && !de.includes('vidLong0001') && de.includes('vidGarden01'));
    const us = await set({ types: ['video'], regionCode: 'US' });
    assert.ok(us.includes('vidEpisode1') && us.includes('vidLong0001'));
    assert.ok(!(await set({ types: ['video'], regionCode: 'FR' })).includes('vidLong0001'));
  });

  test('location: great-circle distance within the radius', async () => {
    const paris = { lat: 48.8566, lng: 2.3522 };
    assert.deepEqual(await set({ types: ['video'], location: { ...paris, radiusMeters: 5000 } }), ['vidEpisode1', 'vidMedium02']);
    // Berlin is ~878 km from Paris
    assert.deepEqual(await set({ types: ['video'], location: { ...paris, radiusMeters: 870_000 } }), ['vidEpisode1', 'vidMedium02']);
    assert.deepEqual(await set({ types: ['video'], location: { ...paris, radiusMeters: 890_000 } }), ['vidEpisode1', 'vidGarden01', 'vidMedium02']);
    // across the antimeridian: Sydney from a point east of it
    assert.deepEqual(await set({ types: ['video'], location: { lat: -33.87, lng: 151.3, radiusMeters: 10_000 } }), ['vidSydney01']);
  });

  test('publishedAfter / publishedBefore are inclusive', async () => {
    assert.deepEqual(await set({ types: ['video'], publishedAfter: day(130), publishedBefore: day(140) }), ['vidSydney01']);
    assert.deepEqual(await set({ types: ['video'], publishedAfter: day(100), publishedBefore: day(100) }), ['vidComplet1']);
  });

  test('channelId, channelType=show, owner channels, types', async () => {
    assert.deepEqual(await set({ channelId: CH_SHOW }), ['PLcookcookcookcook01', CH_SHOW, 'vidEpisode1', 'vidEpisode2'].sort());
    assert.deepEqual(await set({ channelId: CH_SHOW, types: ['video'] }), ['vidEpisode1', 'vidEpisode2']);
    assert.deepEqual(await set({ channelId: 'UCnosuchchannel0000000000' }), []);
    assert.deepEqual(await set({ channelType: 'show', types: ['channel'] }), [CH_SHOW]);
    assert.deepEqual(await set({ channelType: 'show', types: ['video'] }), ['vidEpisode1', 'vidEpisode2']);
    assert.deepEqual(await set({ ownerChannelIds: [CH_SMALL, CH_SHOW], types: ['video'] }), ['vidEpisode1', 'vidEpisode2', 'vidGarden01']);
    assert.deepEqual(await set({ types: ['channel'] }), [CH_BIG, CH_SHOW, CH_SMALL].sort());
  });

  test('orders: videoCount, viewCount (live by concurrent viewers), rating, title', async () => {
    assert.deepEqual(await ids({ types: ['channel'], order: 'videoCount' }), [CH_BIG, CH_SHOW, CH_SMALL]);
    assert.deepEqual((await ids({ types: ['video'], order: 'viewCount' })).slice(0, 4), ['vidMedium01', 'vidLiveNow1', 'vidShort001', 'vidComplet1']);
    assert.deepEqual((await ids({ types: ['video'], order: 'rating' })).slice(0, 2), ['vidMedium02', 'vidShort001']);
    assert.deepEqual(await ids({ text: 'rock', types: ['video'], order: 'title' }), [
      'vidComplet1', // completed rock stream
      'vidGarden01', // gartenarbeit im fruhling
      'vidLiveNow1',
      'vidMedium02',
      'vidLong0001',
      'vidSydney01',
      'vidRestrict',
      'vidUpcomin1',
    ]);
  });

  test('relevance: title matches outrank description matches; relevanceLanguage biases without filtering', async () => {
    const plain = await ids({ text: 'rock', types: ['video'], order: 'relevance' });
    assert.equal(plain.length, 8);
    assert.ok(plain.indexOf('vidGarden01') > plain.indexOf('vidMedium02'), 'a description-only match ranks below title matches');
    const de = await ids({ text: 'rock', types: ['video'], order: 'relevance', relevanceLanguage: 'de' });
    assert.deepEqual([...de].sort(), [...plain].sort(), 'the same results');
    assert.ok(de.indexOf('vidGarden01') < plain.indexOf('vidGarden01'), 'the German video moves up');
    assert.deepEqual(await ids({ text: 'rock', types: ['video'], order: 'relevance' }), plain, 'deterministic');
  });

  test('hits carry what the snippet needs', async () => {
    const r = await f.media.engine.search(query({ q: parseQuery('live rock radio'), types: ['video'] }));
    const h = r.hits.find((x) => x.id === 'vidLiveNow1')!;
    assert.equal(h.liveBroadcastContent, 'live');
    assert.equal(h.channelId, CH_BIG);
    assert.equal(h.channelTitle, 'Big Music Channel');
    assert.equal(h.title, 'Live rock radio');
    assert.equal(h.kind, 'video');
    assert.equal(h.publishedAt, day(80));
    const up = (await f.media.engine.search(query({ types: ['video'], eventType: 'upcoming' }))).hits[0];
    assert.equal(up.liveBroadcastContent, 'upcoming');
    const done = (await f.media.engine.search(query({ types: ['video'], eventType: 'completed' }))).hits[0];
    assert.equal(done.liveBroadcastContent, 'none');
    const ch = (await f.media.engine.search(query({ types: ['channel'], q: parseQuery('cooking') }))).hits[0];
    assert.deepEqual([ch.kind, ch.id, ch.channelId, ch.channelTitle], ['channel', CH_SHOW, CH_SHOW, 'Cooking Show']);
  });

  test('paging by offset visits every result once in every order; maxReachable ends the results', async () => {
    for (const order of ['date', 'rating', 'relevance', 'title', 'videoCount', 'viewCount'] as const) {
      const all = await f.media.engine.search(query({ order }));
      assert.equal(all.totalResults, all.hits.length);
      assert.equal(all.hasMore, false);
      const walked: string[] = [];
      for (let offset = 0; ; offset += 3) {
        const page = await f.media.engine.search(query({ order, offset, limit: 3 }));
        walked.push(...page.hits.map((h) => `${h.kind}:${h.id}`));
        if (!page.hasMore) break;
      }
      assert.deepEqual(walked, all.hits.map((h) => `${h.kind}:${h.id}`), order);
    }
    const capped = await f.media.engine.search(query({ offset: 3, limit: 3, maxReachable: 5 }));
    assert.equal(capped.hits.length, 2);
    assert.equal(capped.hasMore, false);
    assert.ok(capped.totalResults > 5, 'totalResults still counts every match');
    const odd = await f.media.engine.search(query({ offset: -5, limit: 2.7, maxReachable: Number.NaN }));
    assert.deepEqual([odd.hits.length, odd.hasMore], [0, false], 'nonsense paging is bounded, not an error');
    const none = await f.media.engine.search(query({ limit: 0 }));
    assert.deepEqual([none.hits.length, none.hasMore], [0, true]);
  });

  test('catalogue lookups', async () => {
    const c = f.media.catalog;
    assert.deepEqual((await c.videos(['vidShort001', 'nope', 'vidMedium01'])).map((v) => v.id), ['vidShort001', 'vidMedium01']);
    assert.equal((await c.videos(['vidShort001']))[0].kind, 'media#video');
    assert.deepEqual(await c.channelsOwnedBy('user:chef@example.com'), [CH_SHOW]);
    assert.deepEqual(await c.channelsOfContentOwner('partner01'), [CH_BIG]);
    assert.deepEqual(await c.contentOwner('partner01'), { id: 'partner01', displayName: 'Partner', linkedPrincipals: ['user:partner@example.com'] });
    assert.equal(await c.contentOwner('__proto__'), undefined);
    assert.deepEqual((await c.playlistsOfChannel(CH_SHOW, 10)).map((p) => p.id), ['PLcookcookcookcook01']);
    assert.deepEqual((await c.channels([CH_SMALL])).map((x) => x.id), [CH_SMALL]);
    assert.deepEqual((await c.playlists(['PLrockrockrockrock01'])).map((x) => x.id), ['PLrockrockrockrock01']);
  });
});

describe('media search engine: geo cells', () => {
  test('the cells a circle reaches hold every point within it (antimeridian, high latitudes, cell borders)', () => {
    const R = 6_371_008.8;
    const rad = (x: number) => (x * Math.PI) / 180;
    const distance = (a: [number, number], b: [number, number]) => {
      const h = Math.sin(rad(b[0] - a[0]) / 2) ** 2 + Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin(rad(b[1] - a[1]) / 2) ** 2;
      return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
    };
    let state = 7;
    const rand = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const centres: [number, number][] = [[40.7128, -74.006], [0, 179.95], [0, -179.99], [-33.87, 151.3], [64.1466, -21.9426], [71, 25], [41, -74], [-0.0001, 0]];
    let checked = 0;
    let covered = 0;
    for (const c of centres) {
      for (const radius of [1000, 50_000, 200_000, 1_000_000]) {
        const cells = coveringCells(rad(c[0]), rad(c[1]), radius / R);
        if (!cells) continue;
        covered++;
        const reach = new Set(cells);
        for (let i = 0; i < 4000; i++) {
          // points around the centre, many near (and on) the circle, some on whole degrees
          const spread = (radius / R) * (180 / Math.PI) * 3;
          let p: [number, number] = [c[0] + (rand() - 0.5) * 2 * spread, c[1] + (rand() - 0.5) * 2 * spread * 3];
          if (i % 10 === 0) p = [Math.round(p[0]), Math.round(p[1])];
          p[1] = ((((p[1] + 180) % 360) + 360) % 360) - 180;
          if (Math.abs(p[0]) >= 90 || distance(c, p) > radius) continue;
          checked++;
          assert.ok(reach.has(cellOf(rad(p[0]) * (180 / Math.PI), rad(p[1]) * (180 / Math.PI))), `${p} within ${radius} m of ${c}`);
        }
      }
    }
    assert.ok(checked > 3000 && covered > 20, `${checked} points in ${covered} circles`);
    // a circle around a pole (or too large) reaches every cell: no list of cells
    assert.equal(coveringCells(rad(89.5), 0, 100_000 / R), undefined);
  });
});

describe('media search engine: durability and change', () => {
  test('the index is rebuilt from the store after a restart; writes through the store (any process) show on the next search', async () => {
    let f = await openFixture();
    try {
      const before = await f.media.engine.search(query({ q: parseQuery('rock'), order: 'relevance' }));
      f = await f.reopen();
      const afterRestart = await f.media.engine.search(query({ q: parseQuery('rock'), order: 'relevance' }));
      assert.deepEqual(afterRestart, before);
      // Another writer: on PostgreSQL a second process's store; on SQLite (one process per data dir) a write that bypasses the engine.
      const other = f.url ? await Store.open({ databaseUrl: f.url }) : f.store;
      try {
        await load(other, [video('vidNewOne01', 'Brand new zeppelin rock', { day: 200 }), video('vidShort001', 'Renamed clip', { seconds: 120 })]);
      } finally {
        if (other !== f.store) await other.close();
      }
      assert.deepEqual((await f.media.engine.search(query({ q: parseQuery('zeppelin') }))).hits.map((h) => h.id), ['vidNewOne01']);
      assert.deepEqual((await f.media.engine.search(query({ q: parseQuery('guitar') }))).hits.map((h) => h.id), [], 'the old title is gone');
      assert.deepEqual((await f.media.engine.search(query({ q: parseQuery('renamed') }))).hits.map((h) => h.id), ['vidShort001']);
      // a wiped catalogue (admin reset) is noticed even when the new sequence catches up
      for (const t of ['media_playlists', 'media_videos', 'media_channels', 'media_content_owners', 'media_meta'] as const) await f.store.db.deleteFrom(t).execute();
      assert.equal((await f.media.engine.search(query({}))).totalResults, 0);
      await load(f.store, [
        { kind: 'youtube#channel', id: CH_SMALL, snippet: { title: 'Again', publishedAt: '2025-01-01T00:00:00Z' } },
        video('vidAgain001', 'Again rock', { channelId: CH_SMALL }),
      ]);
      assert.deepEqual((await f.media.engine.search(query({ q: parseQuery('rock') }))).hits.map((h) => h.id), ['vidAgain001']);
    } finally {
      await f.close();
    }
  });

  test('titles and descriptions come back as written in every script (and cut at 161 code points), also from a saved index', async () => {
    let f = await openFixture();
    try {
      const long = '🎵'.repeat(200);
      const cases: [string, string, string][] = [
        ['vidTextAsc1', 'Plain zyxascii title', 'Plain description.'],
        ['vidTextLat1', 'Café olé ñandú ÿ zyxlatin', 'Été à Zürich: ß, ½, «»'],
        ['vidTextCjk1', 'Plain zyxwide title', '音楽のライブ'],
        ['vidTextEmj1', '🎸 zyxemoji 🎵', ''],
        ['vidTextOdd1', `zyxlong ${'x'.repeat(987)} 💿`, long],
        ['vidTextDsh1', 'Dash – zyxdash', 'Ŀ ŉ Ω д'],
      ];
      await load(f.store, cases.map(([id, title, description]) => video(id, title, { description })));
      const check = async () => {
        for (const [id, title, description] of cases) {
          const word = title.match(/zyx\w+/)![0];
          const hit = (await f.media.engine.search(query({ q: parseQuery(word) }))).hits.find((h) => h.id === id);
          assert.ok(hit, `${id} found by ${word}`);
          assert.equal(hit.title, title);
          assert.equal(hit.description, [...description].slice(0, 161).join(''));
        }
      };
      await check();
      await (f.media.engine as SearchPool).engine.saved();
      f = await f.reopen();
      await check();
    } finally {
      await f.close();
    }
  });

  test('after writes, the exact orders are ranked by merging the added documents into the rankings before: the same as sorting them all again', async () => {
    const f = await openFixture();
    try {
      const engine = (f.media.engine as SearchPool).engine;
      await engine.refresh();
      for (const order of STABLE_ORDERS) ordering(engine.index, order as SearchQuery['order']);
      // new videos (one with the title of another: a tie broken by id), a changed one, one no longer public
      await load(f.store, [
        video('vidMerged001', 'Renamed clip', { day: 300, views: 5 }),
        video('vidMerged002', 'Zz last by title', { day: 1, views: 1e9 }),
        video('vidShort001', 'Renamed clip', { seconds: 120 }),
        video('vidMerged003', 'Hidden', { privacy: 'private' }),
      ]);
      await engine.refresh();
      const index = engine.index;
      assert.deepEqual([...index.pastOrderings.keys()].sort(), [...STABLE_ORDERS].sort(), 'kept to merge into');
      for (const order of STABLE_ORDERS as SearchQuery['order'][]) {
        const merged = [...ordering(index, order)];
        assert.equal(index.pastOrderings.has(order), false, 'merged once');
        assert.equal(merged.length, index.live);
        index.orderings.delete(order);
        assert.deepEqual(merged, [...ordering(index, order)], `${order}: merged as sorted`);
      }
      const byDate = [...ordering(index, 'date')].map((d) => index.ids[d]);
      assert.ok(byDate.includes('vidMerged001') && byDate.includes('vidMerged002'), 'the new videos are ranked');
      assert.equal(byDate.includes('vidMerged003'), false, 'not the one that is not public');
      assert.equal(byDate.filter((id) => id === 'vidShort001').length, 1, 'the changed one once');
    } finally {
      await f.close();
    }
  });

  test('a second engine on the same store gives the same answers (fresh index)', async () => {
    const f = await openFixture();
    try {
      const second = createMediaCatalog(f.store);
      try {
        for (const order of ['relevance', 'date', 'title'] as const) {
          const q = query({ q: parseQuery('rock|cooking'), order });
          assert.deepEqual(await second.engine.search(q), await f.media.engine.search(q));
        }
      } finally {
        await second.close();
      }
    } finally {
      await f.close();
    }
  });
});
