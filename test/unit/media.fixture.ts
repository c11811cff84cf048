import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/platform/store/store.ts';
import { createMediaCatalog, type Media } from '../../src/services/media/catalog/index.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { checkEntries, writeChecked } from '../../src/services/media/catalog/writer.ts';
import { freshDatabase, TEST_STORE } from '../support/store.ts';

/** A small hand-made catalogue whose every filter and order has a known answer. */

export const CH_SHOW = 'UCshowshowshowshowshow01';
export const CH_BIG = 'UCbigbigbigbigbigbigbig01';
export const CH_SMALL = 'UCsmallsmallsmallsmall01';

const at = (day: number) => new Date(Date.UTC(2025, 0, 1) + day * 86_400_000).toISOString().replace('.000Z', 'Z');

export function channel(id: string, title: string, o: { videoCount: number; show?: boolean; owner?: string; contentOwner?: string; day?: number; language?: string }) {
  return {
    kind: 'youtube#channel',
    id,
    snippet: { title, description: `${title} channel`, publishedAt: at(o.day ?? 0), defaultLanguage: o.language ?? 'en' },
    statistics: { viewCount: String(o.videoCount * 1000), subscriberCount: String(o.videoCount * 10), videoCount: String(o.videoCount) },
    ...(o.contentOwner ? { contentOwnerDetails: { contentOwner: o.contentOwner } } : {}),
    cloudtwin: { channelType: o.show ? 'show' : 'any', ...(o.owner ? { ownerPrincipal: o.owner } : {}) },
  };
}

export interface VideoOpts {
  channelId?: string;
  day?: number;
  description?: string;
  tags?: string[];
  seconds?: number;
  hd?: boolean;
  threeD?: boolean;
  caption?: boolean;
  creativeCommon?: boolean;
  embeddable?: boolean;
  syndicated?: boolean;
  paid?: boolean;
  videoType?: 'any' | 'episode' | 'movie';
  category?: string;
  topics?: string[];
  language?: string;
  allowed?: string[];
  blocked?: string[];
  safe?: 'safe' | 'moderate' | 'restricted';
  live?: 'live' | 'upcoming' | 'completed';
  concurrent?: number;
  location?: [number, number];
  views?: number;
  likes?: number;
  developer?: string;
  privacy?: 'public' | 'unlisted' | 'private';
}

export function video(id: string, title: string, o: VideoOpts = {}) {
  const s = o.seconds ?? 300;
  const live = o.live;
  return {
    kind: 'media#video',
    id,
    snippet: {
      publishedAt: at(o.day ?? 10),
      channelId: o.channelId ?? CH_BIG,
      title,
      description: o.description ?? '',
      tags: o.tags ?? [],
      categoryId: o.category ?? '22',
      liveBroadcastContent: live === 'live' || live === 'upcoming' ? live : 'none',
      defaultLanguage: o.language ?? 'en',
    },
    contentDetails: {
      duration: `PT${Math.floor(s / 60)}M${s % 60}S`,
      definition: o.hd === false ? 'sd' : 'hd',
      dimension: o.threeD ? '3d' : '2d',
      caption: o.caption ? 'true' : 'false',
      ...(o.allowed || o.blocked ? { regionRestriction: { ...(o.allowed ? { allowed: o.allowed } : {}), ...(o.blocked ? { blocked: o.blocked } : {}) } } : {}),
    },
    status: { privacyStatus: o.privacy ?? 'public', license: o.creativeCommon ? 'creativeCommon' : 'youtube', embeddable: o.embeddable ?? true },
    statistics: { viewCount: String(o.views ?? 100), likeCount: String(o.likes ?? 1), commentCount: '0' },
    topicDetails: { topicIds: o.topics ?? [] },
    paidProductPlacementDetails: { hasPaidProductPlacement: o.paid ?? false },
    ...(o.location ? { recordingDetails: { location: { latitude: o.location[0], longitude: o.location[1] } } } : {}),
    ...(live
      ? {
          liveStreamingDetails:
            live === 'upcoming'
              ? { scheduledStartTime: at(400) }
              : live === 'live'
                ? { actualStartTime: at(o.day ?? 10), concurrentViewers: String(o.concurrent ?? 0) }
                : { actualStartTime: at(o.day ?? 10), actualEndTime: at((o.day ?? 10) + 0.1) },
        }
      : {}),
    cloudtwin: { syndicated: o.syndicated ?? true, videoType: o.videoType ?? 'any', safeSearch: o.safe ?? 'safe', ...(o.developer ? { developerProjectNumber: o.developer } : {}) },
  };
}

export function playlist(id: string, title: string, channelId: string, day: number) {
  return { kind: 'youtube#playlist', id, snippet: { publishedAt: at(day), channelId, title, description: 'a playlist' }, cloudtwin: { videoIds: [] } };
}

export const OWNER = { kind: 'youtubePartner#contentOwner', id: 'partner01', displayName: 'Partner', cloudtwin: { linkedPrincipals: ['user:partner@example.com'] } };

export function fixtureEntries(): Record<string, unknown>[] {
  return [
    OWNER,
    channel(CH_SHOW, 'Cooking Show', { videoCount: 3, show: true, owner: 'user:chef@example.com', day: 1 }),
    channel(CH_BIG, 'Big Music Channel', { videoCount: 9, contentOwner: 'partner01', day: 2 }),
    channel(CH_SMALL, 'Small Garden', { videoCount: 1, owner: 'user:gardener@example.com', day: 3, language: 'de' }),
    video('vidShort001', 'Guitar lesson for beginners', { seconds: 120, caption: true, tags: ['guitar', 'lesson'], views: 5000, likes: 400, day: 20, topics: ['/m/04rlf'] }),
    video('vidMedium01', 'Piano lesson Crème brûlée', { seconds: 240, hd: false, views: 100000, likes: 1000, day: 30, creativeCommon: true, topics: ['/m/04rlf', '/m/064t9'] }),
    video('vidMedium02', 'Rock concert full', { seconds: 1200, threeD: true, views: 300, likes: 90, day: 40, embeddable: false, location: [48.8566, 2.3522] }),
    video('vidLong0001', 'Rock documentary movie', { seconds: 1201, videoType: 'movie', views: 700, likes: 7, day: 50, syndicated: false, allowed: ['US', 'CA'] }),
    video('vidEpisode1', 'Cooking pasta episode', { channelId: CH_SHOW, videoType: 'episode', day: 60, paid: true, blocked: ['DE'], location: [48.86, 2.35], category: '26' }),
    video('vidEpisode2', 'Cooking rice episode', { channelId: CH_SHOW, videoType: 'episode', day: 70, safe: 'moderate', developer: '300000000001' }),
    video('vidLiveNow1', 'Live rock radio', { live: 'live', concurrent: 50_000, views: 10, day: 80, seconds: 0 }),
    video('vidUpcomin1', 'Upcoming rock premiere', { live: 'upcoming', day: 90, seconds: 0 }),
    video('vidComplet1', 'Completed rock stream', { live: 'completed', day: 100, views: 2000 }),
    video('vidRestrict', 'Rock restricted clip', { safe: 'restricted', day: 110, developer: '300000000001' }),
    video('vidGarden01', 'Gartenarbeit im Frühling', { channelId: CH_SMALL, language: 'de', day: 120, location: [52.52, 13.405], description: 'rock garden ideas' }),
    video('vidPrivate1', 'Rock private video', { privacy: 'private', day: 130 }),
    video('vidSydney01', 'Rock in Sydney', { location: [-33.8688, 151.2093], day: 140 }),
    playlist('PLrockrockrockrock01', 'Rock classics', CH_BIG, 15),
    playlist('PLcookcookcookcook01', 'Cooking basics', CH_SHOW, 25),
  ];
}

export interface FixtureStore {
  store: Store;
  media: Media;
  url: string | undefined;
  dataDir: string | undefined;
  /** Reopens the same database (a restart). */
  reopen(): Promise<FixtureStore>;
  close(): Promise<void>;
}

/** A store on the suite's database kind (SQLite in a temporary data directory, or a fresh PostgreSQL schema). */
export async function openFixture(entries: Record<string, unknown>[] = fixtureEntries(), kind: 'sqlite' | 'postgres' = TEST_STORE): Promise<FixtureStore> {
  const db = kind === 'postgres' ? await freshDatabase() : { url: undefined, drop: async () => {} };
  const dataDir = db.url ? undefined : mkdtempSync(join(tmpdir(), 'media-test-'));
  const open = async (): Promise<FixtureStore> => {
    const store = await Store.open({ databaseUrl: db.url, dataDir });
    const media = createMediaCatalog(store);
    return {
      store,
      media,
      url: db.url,
      dataDir,
      async reopen() {
        await media.close();
        await store.close();
        return open();
      },
      async close() {
        await media.close();
        await store.close();
        await db.drop();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
  const f = await open();
  if (entries.length) await load(f.store, entries);
  return f;
}

export async function load(store: Store, entries: Record<string, unknown>[]): Promise<void> {
  const checked = await checkEntries(store.db, entries, (i) => `entries[${i}]`);
  if (checked.problems.length) throw new Error(checked.problems.join('; '));
  await store.db.transaction().execute((trx) => writeChecked(trx, checked.entries));
}

export function query(o: Partial<SearchQuery> = {}): SearchQuery {
  return { types: ['video', 'channel', 'playlist'], safeSearch: 'none', order: 'date', offset: 0, limit: 50, maxReachable: 500, ...o };
}
