import { readFileSync } from 'node:fs';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as french } from '@scure/bip39/wordlists/french.js';
import { wordlist as italian } from '@scure/bip39/wordlists/italian.js';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { wordlist as portuguese } from '@scure/bip39/wordlists/portuguese.js';
import { wordlist as spanish } from '@scure/bip39/wordlists/spanish.js';
import { CURATED_TOPICS } from './topics.ts';

/**
 * A deterministic, realistic catalogue: the same `seed` and size give the same entries, byte
 * for byte. Several languages with Zipf-distributed vocabularies of real words (a few words are
 * very common, most are rare; see `LANGUAGES`), channels of very different sizes (Zipf), popularity spread over orders of
 * magnitude, live, upcoming and completed broadcasts, geotagged videos, region restrictions,
 * and every attribute search.list filters on. Entries are in the catalogue format (format.ts),
 * in import order: content owners, channels, videos, playlists.
 */

export interface GenerateOptions {
  videos: number;
  seed: number;
  /** The generated world's "now" (epoch ms): upcoming events are after it, everything else before. */
  now?: number;
}

/**
 * sfc32: small, fast, good enough for test data, and the same on every platform. Its four words
 * live in a Uint32Array: as variables of the closure, words above 2^30 would be boxed numbers,
 * one allocation per word per draw.
 */
export function prng(seed: number): () => number {
  const s = new Uint32Array([0x9e3779b9 ^ seed, 0x243f6a88 + seed * 31, 0xb7e15162 ^ (seed >>> 3), 1]);
  const next = () => {
    const a = s[0];
    const b = s[1];
    const c = s[2];
    const d = s[3];
    const t = (a + b + d) >>> 0;
    s[3] = d + 1;
    s[0] = b ^ (b >>> 9);
    s[1] = c + (c << 3);
    s[2] = (((c << 21) | (c >>> 11)) + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

/**
 * Each language's words: a curated head of the most common title words, then the language's
 * real vocabulary, from kept word-list packages: the BIP39 lists of @scure/bip39 (MIT, 2048
 * common words each: English, Spanish, French, Italian, Portuguese, Japanese) and, for
 * Russian, the lower-case words of the hunspell dictionary `dictionary-ru` (BSD-3-Clause).
 */
const LANGUAGES: { code: string; weight: number; words: string[]; vocabulary: () => readonly string[]; country: string[] }[] = [
  {
    code: 'en',
    vocabulary: () => english,
    weight: 50,
    country: ['US', 'GB', 'CA', 'AU', 'IN'],
    words: 'the best music video live official new how to make easy recipe game play review top ten world news guitar piano lesson tutorial funny cat dog travel vlog city night rock jazz pop song cover remix full movie trailer football highlights goal match build home garden science space history learn english workout yoga morning chill beats study coffee street food camera drone ocean mountain summer winter christmas party dance'.split(' '),
  },
  {
    code: 'es',
    vocabulary: () => spanish,
    weight: 15,
    country: ['ES', 'MX', 'AR', 'CO', 'CL'],
    words: 'el la los mejor música en vivo oficial nuevo cómo hacer receta fácil juego reseña noticias guitarra lección gato perro viaje ciudad noche canción película fútbol goles partido casa jardín ciencia historia aprender español mañana café comida calle playa montaña verano invierno navidad fiesta baile'.split(' '),
  },
  {
    code: 'fr',
    vocabulary: () => french,
    weight: 8,
    country: ['FR', 'BE', 'CA', 'CH'],
    words: 'le la les meilleur musique en direct officiel nouveau comment faire recette facile jeu critique actualités guitare leçon chat chien voyage ville nuit chanson film bande annonce football buts match maison jardin science histoire apprendre français matin café cuisine rue plage montagne été hiver noël fête danse'.split(' '),
  },
  {
    code: 'it',
    vocabulary: () => italian,
    weight: 8,
    country: ['IT', 'CH', 'SM'],
    words: 'il la le migliore musica dal vivo ufficiale nuovo come fare ricetta facile gioco recensione notizie chitarra lezione gatto cane viaggio città notte canzone film trailer calcio gol partita casa giardino scienza storia imparare italiano mattina caffè cucina strada spiaggia montagna estate inverno natale festa ballo'.split(' '),
  },
  {
    code: 'pt',
    vocabulary: () => portuguese,
    weight: 7,
    country: ['BR', 'PT'],
    words: 'o a os melhor música ao vivo oficial novo como fazer receita fácil jogo análise notícias violão aula gato cachorro viagem cidade noite canção filme futebol gols partida casa jardim ciência história aprender português manhã café comida rua praia montanha verão inverno natal festa dança'.split(' '),
  },
  {
    code: 'ja',
    vocabulary: () => japanese,
    weight: 7,
    country: ['JP'],
    words: '音楽 ライブ 公式 新曲 料理 簡単 ゲーム 実況 ニュース ギター 猫 犬 旅行 東京 夜 歌 映画 予告 サッカー 野球 家 庭 科学 歴史 勉強 英語 朝 コーヒー 海 山 夏 冬 祭り ダンス アニメ'.split(' '),
  },
  {
    code: 'ru',
    vocabulary: russianWords,
    weight: 5,
    country: ['RU', 'KZ', 'BY'],
    words: 'лучший музыка прямой эфир новый как сделать рецепт простой игра обзор новости гитара урок кот собака путешествие город ночь песня фильм футбол голы дом сад наука история учить русский утро кофе еда море горы лето зима праздник танец'.split(' '),
  },
];

const CATEGORIES = ['1', '2', '10', '15', '17', '19', '20', '22', '23', '24', '25', '26', '27', '28', '29'];
const TOPICS = [...CURATED_TOPICS.keys()];
const CITIES: [number, number][] = [
  [40.7128, -74.006], [34.0522, -118.2437], [51.5074, -0.1278], [48.8566, 2.3522], [52.52, 13.405], [35.6762, 139.6503], [-23.5505, -46.6333],
  [19.4326, -99.1332], [55.7558, 37.6173], [-33.8688, 151.2093], [37.7749, -122.4194], [41.3851, 2.1734], [45.4642, 9.19], [1.3521, 103.8198],
  [28.6139, 77.209], [-34.6037, -58.3816], [59.3293, 18.0686], [30.0444, 31.2357], [-1.2921, 36.8219], [64.1466, -21.9426],
];
const REGIONS = ['US', 'GB', 'DE', 'FR', 'JP', 'BR', 'IN', 'CA', 'AU', 'ES', 'MX', 'IT', 'RU', 'KR', 'NL', 'SE', 'PL', 'TR', 'CN', 'AR'];
const DEVELOPER_PROJECTS = ['300000000001', '300000000002', '300000000003', '412345678901', '598765432109'];
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DAY = 86_400_000;
/** The default "now" of a generated world: 2026-01-01T00:00:00Z. */
export const GENERATED_NOW = Date.UTC(2026, 0, 1);

/** Cumulative Zipf weights (exponent s) over n ranks. */
function zipf(n: number, s: number): Float64Array {
  const c = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) c[i] = sum += 1 / Math.pow(i + 1, s);
  for (let i = 0; i < n; i++) c[i] /= sum;
  return c;
}
function pickCumulative(c: Float64Array, r: number): number {
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (c[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Vocabulary {
  code: string;
  words: string[];
  cumulative: Float64Array;
  country: string[];
}

/** Russian: the lower-case words (no abbreviations or names) of `dictionary-ru`, read once. */
let russian: string[] | undefined;
function russianWords(): readonly string[] {
  if (!russian) {
    const dic = readFileSync(new URL('index.dic', import.meta.resolve('dictionary-ru')), 'utf8');
    russian = [];
    for (const line of dic.split('\n')) {
      const word = line.split('/', 1)[0];
      if (/^[а-яё]+(-[а-яё]+)?$/.test(word)) russian.push(word);
    }
  }
  return russian;
}

/** Every word a generated text of the language may hold (its curated head and its whole word list). */
export function languageWords(code: string): ReadonlySet<string> {
  const lang = LANGUAGES.find((l) => l.code === code);
  return new Set(lang ? [...lang.words, ...lang.vocabulary().map((w) => w.normalize('NFC'))] : []);
}

/**
 * Each language's vocabulary, most common first (for the Zipf weights): the curated head, then
 * up to `size` words of its word list in an order drawn from the seed.
 */
function vocabulary(rand: () => number, size: number): Vocabulary[] {
  return LANGUAGES.map((lang) => {
    const seen = new Set(lang.words);
    const words = [...lang.words];
    const list = lang.vocabulary();
    // a partial Fisher-Yates shuffle over the indexes: as many draws as words are needed
    const order = Uint32Array.from({ length: list.length }, (_, i) => i);
    for (let i = 0; i < order.length && words.length < size; i++) {
      const j = i + Math.floor(rand() * (order.length - i));
      const pick = order[j];
      order[j] = order[i];
      // BIP39 lists are NFKD (accents and voicing marks apart); titles are written composed
      const w = list[pick].normalize('NFC');
      if (!seen.has(w)) {
        seen.add(w);
        words.push(w);
      }
    }
    return { code: lang.code, words, cumulative: zipf(words.length, 1.05), country: lang.country };
  });
}

/** Two digits of 0 - 99 (the date parts of `iso`). */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
/** The last date whose ISO year has four digits (9999-12-31T23:59:59.999Z). */
const LAST_FOUR_DIGIT_YEAR = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * `new Date(ms).toISOString()` without its ".000" (whole seconds): the same text, written here
 * from the day number (the civil calendar of Howard Hinnant's `civil_from_days`) with no Date
 * made. Times before 1970 or after 9999 take toISOString.
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR) || !Number.isInteger(ms)) return new Date(ms).toISOString().replace('.000Z', 'Z');
  const days = Math.floor(ms / DAY);
  let rest = ms - days * DAY;
  // days since 0000-03-01 in 400-year eras (each 146,097 days); March-based years put 29 February last
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const date = `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}`;
  return millis ? `${date}.${String(millis).padStart(3, '0')}Z` : `${date}Z`;
}
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}

/** Entries of a generated catalogue, in import order. */
export function* generateCatalog(opts: GenerateOptions): Generator<Record<string, unknown>> {
  const rand = prng(opts.seed >>> 0);
  const now = opts.now ?? GENERATED_NOW;
  const n = Math.max(0, Math.floor(opts.videos));
  const int = (max: number) => Math.floor(rand() * max);
  const chance = (p: number) => rand() < p;
  const id = (len: number) => {
    let s = '';
    for (let i = 0; i < len; i++) s += ID_CHARS[int(64)];
    return s;
  };
  const vocab = vocabulary(rand, Math.min(50_000, 2000 + Math.floor(n / 20)));
  const langCumulative = new Float64Array(LANGUAGES.length);
  let acc = 0;
  const totalWeight = LANGUAGES.reduce((s, l) => s + l.weight, 0);
  LANGUAGES.forEach((l, i) => (langCumulative[i] = acc += l.weight / totalWeight));
  const word = (v: Vocabulary) => v.words[pickCumulative(v.cumulative, rand())];
  const words = (v: Vocabulary, count: number) => {
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(word(v));
    return out;
  };
  /** `count` words joined by spaces (the same draws as `words(v, count).join(' ')`, with no list made). */
  const sentence = (v: Vocabulary, count: number) => {
    let s = count ? word(v) : '';
    for (let i = 1; i < count; i++) s += ` ${word(v)}`;
    return s;
  };
  const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const thumbs = (url: (size: string) => string) => ({
    default: { url: url('default'), width: 120, height: 90 },
    medium: { url: url('mqdefault'), width: 320, height: 180 },
    high: { url: url('hqdefault'), width: 480, height: 360 },
  });

  // Content owners
  const owners: string[] = [];
  const ownerCount = Math.max(2, Math.ceil(n / 50_000));
  for (let i = 0; i < ownerCount; i++) {
    const ownerId = `owner${String(i + 1).padStart(4, '0')}${id(6)}`;
    owners.push(ownerId);
    yield {
      kind: 'youtubePartner#contentOwner',
      id: ownerId,
      displayName: `Content Partner ${i + 1}`,
      cloudtwin: { linkedPrincipals: [`user:partner${i + 1}@example.com`] },
    };
  }

  // Channels: sizes follow a Zipf law (a few huge channels, a long tail of small ones).
  const channelCount = Math.max(3, Math.ceil(n / 50));
  const channelCumulative = zipf(channelCount, 0.9);
  const channels: { id: string; title: string; lang: Vocabulary; popularity: number; show: boolean }[] = [];
  for (let i = 0; i < channelCount; i++) {
    const lang = vocab[pickCumulative(langCumulative, rand())];
    const channelId = `UC${id(22)}`;
    const title = words(lang, 1 + int(3)).map(capital).join(' ');
    const show = chance(0.05);
    const share = channelCumulative[i] - (i ? channelCumulative[i - 1] : 0);
    const videoCount = Math.max(0, Math.round(share * n));
    const subscribers = Math.round(Math.pow(10, 2 + 5 * (1 - i / channelCount)) * (0.5 + rand()));
    const published = now - (400 + int(5000)) * DAY - int(DAY);
    const contentOwner = chance(0.1) ? owners[int(owners.length)] : undefined;
    channels.push({ id: channelId, title, lang, popularity: subscribers, show });
    yield {
      kind: 'youtube#channel',
      etag: id(27),
      id: channelId,
      snippet: {
        title,
        description: sentence(lang, 8 + int(20)),
        customUrl: `@${title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '').slice(0, 30)}${i}`,
        publishedAt: isoTime(published),
        thumbnails: { default: { url: `https://yt3.ggpht.com/${channelId}=s88` }, medium: { url: `https://yt3.ggpht.com/${channelId}=s240` }, high: { url: `https://yt3.ggpht.com/${channelId}=s800` } },
        defaultLanguage: lang.code,
        country: lang.country[int(lang.country.length)],
      },
      contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${channelId.slice(2)}` } },
      statistics: { viewCount: String(subscribers * (50 + int(200))), subscriberCount: String(subscribers), hiddenSubscriberCount: false, videoCount: String(videoCount) },
      topicDetails: { topicIds: [TOPICS[int(TOPICS.length)]] },
      status: { privacyStatus: 'public', isLinked: true, madeForKids: chance(0.05) },
      ...(contentOwner ? { contentOwnerDetails: { contentOwner, timeLinked: isoTime(published + 30 * DAY) } } : {}),
      cloudtwin: { ownerPrincipal: `user:creator${i + 1}@example.com`, channelType: show ? 'show' : 'any' },
    };
  }

  // Videos
  const videoIds: string[] = [];
  const keepIds = Math.min(n, 200_000);
  for (let i = 0; i < n; i++) {
    const ch = channels[pickCumulative(channelCumulative, rand())];
    const lang = chance(0.9) ? ch.lang : vocab[pickCumulative(langCumulative, rand())];
    const videoId = id(11);
    if (i < keepIds) videoIds.push(videoId);
    const title = capital(sentence(lang, 3 + int(7)));
    // Recent uploads are more common: age in days ~ exponential, capped at 15 years.
    const age = Math.min(15 * 365, -Math.log(1 - rand()) * 700);
    let published = now - Math.floor(age * DAY) - int(DAY);
    const r = rand();
    const seconds = r < 0.35 ? 15 + int(225) : r < 0.8 ? 240 + int(961) : 1201 + int(10_000);
    const views = Math.floor(Math.pow(10, rand() * 4 + Math.log10(1 + ch.popularity) * 0.6) * (0.2 + rand()));
    const live = rand();
    let liveState: 'none' | 'live' | 'upcoming' | 'completed' = 'none';
    if (live < 0.01) liveState = 'live';
    else if (live < 0.02) liveState = 'upcoming';
    else if (live < 0.05) liveState = 'completed';
    let liveStreamingDetails: Record<string, unknown> | undefined;
    if (liveState === 'live') {
      const started = now - int(6 * 3600_000);
      published = started;
      liveStreamingDetails = { actualStartTime: isoTime(started), scheduledStartTime: isoTime(started - 600_000), concurrentViewers: String(Math.floor(Math.pow(10, 1 + rand() * 4))) };
    } else if (liveState === 'upcoming') {
      published = now - int(7 * DAY);
      liveStreamingDetails = { scheduledStartTime: isoTime(now + int(14 * DAY) + 3600_000) };
    } else if (liveState === 'completed') {
      liveStreamingDetails = { actualStartTime: isoTime(published), actualEndTime: isoTime(published + seconds * 1000), scheduledStartTime: isoTime(published - 600_000) };
    }
    const restricted = rand();
    const regionRestriction =
      restricted < 0.04 ? { allowed: pickRegions(rand, 1 + int(5)) } : restricted < 0.09 ? { blocked: pickRegions(rand, 1 + int(4)) } : undefined;
    const geotagged = chance(0.1);
    const city = CITIES[int(CITIES.length)];
    const safe = rand();
    const topicCount = int(3);
    const topicIds: string[] = [];
    for (let t = 0; t < topicCount; t++) topicIds.push(TOPICS[int(TOPICS.length)]);
    const video: Record<string, unknown> = {
      kind: 'youtube#video',
      etag: id(27),
      id: videoId,
      snippet: {
        publishedAt: isoTime(published),
        channelId: ch.id,
        title,
        description: sentence(lang, 10 + int(25)),
        thumbnails: thumbs((s) => `https://i.ytimg.com/vi/${videoId}/${s}.jpg`),
        channelTitle: ch.title,
        tags: words(lang, 2 + int(5)),
        categoryId: CATEGORIES[int(CATEGORIES.length)],
        liveBroadcastContent: liveState === 'live' || liveState === 'upcoming' ? liveState : 'none',
        defaultLanguage: lang.code,
        defaultAudioLanguage: lang.code,
      },
      contentDetails: {
        duration: liveState === 'live' || liveState === 'upcoming' ? 'P0D' : duration(seconds),
        dimension: chance(0.02) ? '3d' : '2d',
        definition: chance(0.7) ? 'hd' : 'sd',
        caption: chance(0.25) ? 'true' : 'false',
        licensedContent: chance(0.5),
        ...(regionRestriction ? { regionRestriction } : {}),
        contentRating: safe < 0.01 ? { ytRating: 'ytAgeRestricted' } : {},
        projection: 'rectangular',
      },
      status: {
        uploadStatus: 'processed',
        privacyStatus: chance(0.01) ? 'unlisted' : 'public',
        license: chance(0.08) ? 'creativeCommon' : 'youtube',
        embeddable: chance(0.92),
        publicStatsViewable: true,
        madeForKids: chance(0.03),
      },
      statistics: { viewCount: String(views), likeCount: String(Math.floor(views * (0.005 + rand() * 0.06))), favoriteCount: '0', commentCount: String(Math.floor(views * rand() * 0.004)) },
      topicDetails: { topicIds: [...new Set(topicIds)] },
      paidProductPlacementDetails: { hasPaidProductPlacement: chance(0.05) },
      ...(geotagged ? { recordingDetails: { location: { latitude: round(city[0] + (rand() - 0.5) * 0.5), longitude: round(city[1] + (rand() - 0.5) * 0.5), altitude: 0 }, recordingDate: isoTime(published) } } : {}),
      ...(liveStreamingDetails ? { liveStreamingDetails } : {}),
      cloudtwin: {
        ...(chance(0.2) ? { developerProjectNumber: DEVELOPER_PROJECTS[int(DEVELOPER_PROJECTS.length)] } : {}),
        safeSearch: safe < 0.01 ? 'restricted' : safe < 0.04 ? 'moderate' : 'safe',
        syndicated: chance(0.9),
        videoType: ch.show ? (chance(0.8) ? 'episode' : 'movie') : chance(0.02) ? 'movie' : 'any',
      },
    };
    yield video;
  }

  // Playlists
  const playlistCount = Math.max(1, Math.ceil(n / 100));
  for (let i = 0; i < playlistCount; i++) {
    const ch = channels[pickCumulative(channelCumulative, rand())];
    const items: string[] = [];
    const count = videoIds.length ? 1 + int(30) : 0;
    for (let k = 0; k < count; k++) items.push(videoIds[int(videoIds.length)]);
    const title = capital(sentence(ch.lang, 2 + int(4)));
    yield {
      kind: 'youtube#playlist',
      etag: id(27),
      id: `PL${id(32)}`,
      snippet: {
        publishedAt: isoTime(now - int(3000) * DAY - int(DAY)),
        channelId: ch.id,
        title,
        description: sentence(ch.lang, 5 + int(15)),
        thumbnails: thumbs((s) => `https://i.ytimg.com/vi/${items[0] ?? 'default'}/${s}.jpg`),
        channelTitle: ch.title,
        defaultLanguage: ch.lang.code,
      },
      status: { privacyStatus: chance(0.05) ? 'private' : 'public' },
      contentDetails: { itemCount: items.length },
      cloudtwin: { videoIds: items },
    };
  }
}

function pickRegions(rand: () => number, k: number): string[] {
  const out = new Set<string>();
  while (out.size < k) out.add(REGIONS[Math.floor(rand() * REGIONS.length)]);
  return [...out].sort();
}
function round(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}

/** How many entries `generateCatalog` yields for `videos` videos (for progress bars). */
export function generatedCount(videos: number): number {
  const n = Math.max(0, Math.floor(videos));
  return Math.max(2, Math.ceil(n / 50_000)) + Math.max(3, Math.ceil(n / 50)) + n + Math.max(1, Math.ceil(n / 100));
}
