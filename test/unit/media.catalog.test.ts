import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type BatchItem, type CatalogTarget, exportNdjson, generatedBatches, generateInto, ImportError, importNdjson, jsonSyntaxProblem, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { normalizeEntry, parseDuration } from '../../src/services/media/catalog/format.ts';
import { generateCatalog, generatedCount, isoTime, languageWords } from '../../src/services/media/catalog/generator.ts';
import { countEntries, resourcesById } from '../../src/services/media/catalog/repository.ts';
import { PhaseRate } from '../../src/services/media/catalog/progress.ts';
import { checkEntries, writeImportBatch } from '../../src/services/media/catalog/writer.ts';
import { isUniqueViolation } from '../../src/platform/store/uniqueViolation.ts';
import { CH_BIG, channel, type FixtureStore, fixtureEntries, load, openFixture, video } from './media.fixture.ts';

const error = (entry: unknown) => {
  const r = normalizeEntry(entry);
  return 'error' in r ? r.error : undefined;
};

/**
 * A generated entry passes the full checks (the schema walk included), and the trusted path that
 * generation takes (no schema walk) derives the very same row and resource JSON: the proof that
 * skipping the walk for the generator's output changes nothing.
 */
const generatedEntryProblem = (entry: unknown) => {
  const full = normalizeEntry(entry);
  if ('error' in full) return full.error;
  assert.deepEqual(normalizeEntry(entry, {}, { trusted: true }), full);
  return undefined;
};

describe('media catalogue entry format', () => {
  test('Data API resources (youtube# or media# kinds) with the cloudtwin extension are accepted', () => {
    for (const e of fixtureEntries()) assert.equal(error(e), undefined, JSON.stringify(e).slice(0, 80));
    assert.equal(error({ ...video('abcdefghijk', 't'), kind: 'youtube#video' }), undefined);
  });

  test('bad entries are refused with the field named', () => {
    const v = video('abcdefghijk', 'title');
    const cases: [unknown, RegExp][] = [
      [null, /must be a JSON object/],
      [[], /must be a JSON object/],
      [{ ...v, kind: 'youtube#comment' }, /^kind: must be one of/],
      [{ ...v, id: 'bad id!' }, /^id: must be an id/],
      [{ ...v, id: 'x'.repeat(65) }, /^id:/],
      [{ ...v, snippet: { ...v.snippet, title: 'a\u0000b' } }, /snippet.title: must not contain NUL/],
      [{ ...v, snippet: { ...v.snippet, title: '\uD800' } }, /snippet.title: must be valid Unicode/],
      [{ ...v, snippet: { ...v.snippet, publishedAt: 'yesterday' } }, /snippet.publishedAt: must be an RFC 3339 time/],
      [{ ...v, snippet: { ...v.snippet, channelId: undefined } }, /snippet.channelId: is required/],
      [{ ...v, contentDetails: { ...v.contentDetails, duration: '4 minutes' } }, /contentDetails.duration: must be an ISO 8601 duration/],
      [{ ...v, contentDetails: { ...v.contentDetails, definition: 'uhd' } }, /contentDetails.definition/],
      [{ ...v, contentDetails: { ...v.contentDetails, regionRestriction: { allowed: ['US', 'us'] } } }, /^contentDetails\.regionRestriction\.allowed\[1\]: must be an ISO 3166-1 alpha-2 code \(got "us"\)$/],
      [{ ...v, statistics: { viewCount: '-1' } }, /statistics.viewCount/],
      [{ ...v, statistics: { viewCount: 1.5 } }, /statistics.viewCount/],
      [{ ...v, recordingDetails: { location: { latitude: 91, longitude: 0 } } }, /latitude/],
      [{ ...v, recordingDetails: { location: { latitude: 0, longitude: 'east' } } }, /longitude/], // a numeric string is a double to proto JSON (coerced)
      [{ ...v, cloudtwin: { ...v.cloudtwin, safeSearch: 'x' } }, /cloudtwin.safeSearch/],
      [{ ...v, cloudtwin: { colour: 'red' } }, /cloudtwin.colour: is not a known field/],
      [{ ...v, cloudtwin: JSON.parse('{"__proto__": {"x": 1}}') }, /cloudtwin.__proto__: is not a known field/],
      [{ ...v, cloudtwin: { developerProjectNumber: 'my-project' } }, /developerProjectNumber/],
      [{ ...v, snippet: { ...v.snippet, liveBroadcastContent: 'upcoming' } }, /scheduledStartTime: is required/],
      [{ ...channel(CH_BIG, 'c', { videoCount: 1 }), cloudtwin: { ownerPrincipal: 'alice' } }, /cloudtwin.ownerPrincipal/],
      [{ kind: 'youtubePartner#contentOwner', id: 'o1', cloudtwin: { linkedPrincipals: ['user:a@example.com', 'bob'] } }, /^cloudtwin\.linkedPrincipals\[1\]: must be user:EMAIL, serviceAccount:EMAIL, group:EMAIL or domain:DOMAIN \(got "bob"\)$/],
      [{ kind: 'youtubePartner#contentOwner', id: 'o1', cloudtwin: { linkedPrincipals: [null] } }, /^cloudtwin\.linkedPrincipals\[0\]: is required$/],
      [{ kind: 'youtubePartner#contentOwner', id: 'o1', cloudtwin: { linkedPrincipals: ['user:a@example.com', 7] } }, /^cloudtwin\.linkedPrincipals\[1\]: must be a string$/],
      [{ kind: 'youtubePartner#contentOwner', id: 'o1', cloudtwin: { linkedPrincipals: 'user:a@example.com' } }, /^cloudtwin\.linkedPrincipals: must be a list$/],
      [{ ...v, snippet: 'x' }, /snippet: must be an object/],
    ];
    for (const [entry, re] of cases) assert.match(error(entry) ?? '(accepted)', re);
  });

  test('entries are read as proto JSON reads the Data API resource: counts coerced, anything else outside the schema refused', () => {
    const v = video('abcdefghijk', 'title');
    const resourceOf = (entry: unknown) => {
      const r = normalizeEntry(entry);
      assert.ok(!('error' in r), JSON.stringify(r));
      return JSON.parse(r.row.resource);
    };
    // A uint64 given as a number is stored as its string; a uint32 given as a string as its number.
    assert.equal(resourceOf({ ...v, statistics: { viewCount: 5 } }).statistics.viewCount, '5');
    const pl = fixtureEntries().find((e: any) => e.kind.endsWith('#playlist')) as any;
    assert.equal(resourceOf({ ...pl, contentDetails: { ...pl.contentDetails, itemCount: '2' } }).contentDetails.itemCount, 2);
    const cases: [unknown, RegExp][] = [
      [{ ...v, bogus: 1 }, /^bogus: is not a field of this resource/],
      [{ ...v, snippet: { ...v.snippet, bogus: 1 } }, /snippet.bogus: is not a field/],
      [{ ...v, status: { ...v.status, privacyStatus: 'WEIRD' } }, /status.privacyStatus: must be one of/],
      [{ ...v, snippet: { ...v.snippet, publishedAt: 'last tuesday' } }, /snippet.publishedAt: must be an RFC 3339 timestamp/],
      [{ ...v, contentDetails: { ...v.contentDetails, licensedContent: 'no' } }, /contentDetails.licensedContent: must be true or false/],
      [{ ...v, statistics: { viewCount: 'many' } }, /statistics.viewCount: must be an integer/],
      [{ ...pl, contentDetails: { ...pl.contentDetails, itemCount: -1 } }, /contentDetails.itemCount: must be an integer in \[0/],
    ];
    for (const [entry, re] of cases) assert.match(error(entry) ?? '(accepted)', re);
  });

  test('ISO 8601 durations', () => {
    assert.equal(parseDuration('PT4M13S'), 253);
    assert.equal(parseDuration('PT1H'), 3600);
    assert.equal(parseDuration('P1DT2H'), 93_600);
    assert.equal(parseDuration('P0D'), 0);
    for (const bad of ['', 'P', 'PT', '4M', 'PT-1S', 'PT1.5S']) assert.equal(parseDuration(bad), undefined, bad);
  });
});

describe('media catalogue generator', () => {
  test('same seed, same catalogue; another seed, another catalogue', () => {
    const a = [...generateCatalog({ videos: 300, seed: 5 })].map((e) => JSON.stringify(e));
    const b = [...generateCatalog({ videos: 300, seed: 5 })].map((e) => JSON.stringify(e));
    const c = [...generateCatalog({ videos: 300, seed: 6 })].map((e) => JSON.stringify(e));
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    assert.equal(a.length, generatedCount(300));
  });

  test('a seed gives the same catalogue from one version to the next (its digest is pinned)', () => {
    // A user's tests and benchmarks name a catalogue by its seed: a change to the generator that
    // changes a byte of what a seed gives is a change users see, and needs this digest changed.
    const digest = (opts: { videos: number; seed: number; now?: number }) => {
      const h = createHash('sha256');
      for (const e of generateCatalog(opts)) h.update(`${JSON.stringify(e)}\n`);
      return h.digest('hex');
    };
    assert.equal(digest({ videos: 3000, seed: 42 }), '7c9d089e10156896e0c788cbc79da88476363597bc3ad2ad5fef4a5c17595aea');
    assert.equal(digest({ videos: 2000, seed: 3, now: Date.UTC(1999, 11, 31, 23, 59, 59, 999) }), 'd3a97f3b753926dfdb8d23c22641531f220337ce27de70ef8b37e0e65593ab31');
  });

  test("its times are toISOString's, without '.000' for whole seconds", () => {
    const expected = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    const days = [Date.UTC(1970, 0, 1), Date.UTC(1972, 1, 29), Date.UTC(2000, 1, 29), Date.UTC(2000, 2, 1), Date.UTC(2100, 1, 28), Date.UTC(2100, 2, 1), Date.UTC(2026, 11, 31), Date.UTC(9999, 11, 31)];
    const times = days.flatMap((d) => [d, d - 1, d + 1, d + 999, d + 1000, d + 86_399_999]);
    // before 1970 and after 9999 (six-digit years), and fractions of a millisecond
    times.push(-1, Date.UTC(1969, 11, 31, 12), Date.UTC(10_000, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999), 1.5, Date.UTC(2026, 0, 1) + 0.25);
    let x = 7;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      times.push(Math.floor((x / 2 ** 31) * Date.UTC(2200, 0, 1)));
    }
    for (const ms of times) assert.equal(isoTime(ms), expected(ms), String(ms));
  });

  test("titles, descriptions and tags are real words of the entry's language, Zipf-weighted", () => {
    const counts = new Map<string, number>();
    const languages = new Set<string>();
    for (const e of generateCatalog({ videos: 2000, seed: 3 }) as Iterable<any>) {
      if (e.kind !== 'youtube#video') continue;
      const lang = e.snippet.defaultLanguage;
      languages.add(lang);
      const known = languageWords(lang);
      const words = [e.snippet.title, e.snippet.description, ...(e.snippet.tags ?? [])].join(' ').split(/\s+/).filter(Boolean);
      for (const w of words) {
        const word = w.toLowerCase();
        assert.ok(known.has(word) || known.has(w), `${lang}: '${w}' (in "${e.snippet.title}") is a word of the language`);
        if (lang === 'en') counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
    assert.deepEqual([...languages].sort(), ['en', 'es', 'fr', 'it', 'ja', 'pt', 'ru']);
    // Zipf: the most common English word is far more common than the hundredth
    const ranked = [...counts.values()].sort((a, b) => b - a);
    assert.ok(ranked[0] > 20 * ranked[99], `${ranked[0]} vs ${ranked[99]}`);
  });

  test('a million-video catalogue starts without a hitch (full vocabularies)', () => {
    let n = 0;
    for (const e of generateCatalog({ videos: 1_000_000, seed: 42 })) {
      assert.equal(generatedEntryProblem(e), undefined);
      if (++n >= 1500) break;
    }
  });

  test('entries are valid (the trusted path derives the same rows) and every filterable attribute is represented', () => {
    const seen = new Map<string, number>();
    const see = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
    for (const e of generateCatalog({ videos: 4000, seed: 1 }) as Iterable<any>) {
      assert.equal(generatedEntryProblem(e), undefined);
      see(e.kind);
      if (e.kind !== 'youtube#video') continue;
      see(`lang:${e.snippet.defaultLanguage}`);
      see(`live:${e.snippet.liveBroadcastContent}`);
      if (e.liveStreamingDetails?.actualEndTime) see('completed');
      if (e.recordingDetails) see('geo');
      if (e.contentDetails.regionRestriction?.allowed) see('allowed');
      if (e.contentDetails.regionRestriction?.blocked) see('blocked');
      see(`def:${e.contentDetails.definition}`);
      see(`dim:${e.contentDetails.dimension}`);
      see(`cap:${e.contentDetails.caption}`);
      see(`lic:${e.status.license}`);
      see(`emb:${e.status.embeddable}`);
      see(`paid:${e.paidProductPlacementDetails.hasPaidProductPlacement}`);
      see(`type:${e.cloudtwin.videoType}`);
      see(`safe:${e.cloudtwin.safeSearch}`);
      see(`synd:${e.cloudtwin.syndicated}`);
      if (e.cloudtwin.developerProjectNumber) see('developer');
      if (e.topicDetails.topicIds.length) see('topic');
    }
    for (const k of ['youtube#channel', 'youtube#playlist', 'youtubePartner#contentOwner', 'live:live', 'live:upcoming', 'completed', 'geo', 'allowed', 'blocked', 'def:hd', 'def:sd', 'dim:3d', 'cap:true', 'lic:creativeCommon', 'emb:false', 'paid:true', 'type:episode', 'type:movie', 'safe:moderate', 'safe:restricted', 'synd:false', 'developer', 'topic']) {
      assert.ok(seen.get(k), `generated catalogue has ${k}`);
    }
    assert.ok([...seen.keys()].filter((k) => k.startsWith('lang:')).length >= 5, 'several languages');
  });
});

describe("media catalogue generator's thread", () => {
  /** Threads alive in this process (a worker thread holds a MessagePort to it). */
  const threads = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
  const opts = { videos: 9000, seed: 4 };

  test('gives the entries generateCatalog gives, normalized, in order, in batches; the resources too only when asked', async () => {
    const inProcess = [...generateCatalog(opts)];
    for (const json of [true, false]) {
      const items: BatchItem[] = [];
      const sizes: number[] = [];
      for await (const batch of generatedBatches(opts, { json })) {
        sizes.push(batch.length);
        items.push(...batch);
      }
      assert.equal(items.length, generatedCount(opts.videos));
      assert.deepEqual(sizes.slice(0, -1), Array(sizes.length - 1).fill(4000));
      assert.ok(sizes.length >= 3 && sizes.at(-1)! <= 4000, `${sizes}`);
      items.forEach((item, i) => {
        assert.deepEqual(item.entry, normalizeEntry(inProcess[i], undefined, { trusted: true }));
        if (json) assert.deepEqual(item.json, inProcess[i]);
        else assert.equal('json' in item, false);
      });
    }
    assert.equal(threads(), 0);
  });

  test('a caller that stops, a write that fails, or an error in the thread ends the thread; generateInto rejects with the write\'s error and ends bulk writing', async () => {
    for await (const batch of generatedBatches(opts, { json: false })) {
      assert.equal(batch.length, 4000);
      assert.equal(threads(), 1);
      break;
    }
    assert.equal(threads(), 0);
    const calls: string[] = [];
    const failing: CatalogTarget = {
      notStored: async () => ({ channels: new Set(), contentOwners: new Set() }),
      resumePoint: async () => 0,
      async write(batch) {
        calls.push(`write ${batch.length}`);
        if (calls.length === 3) throw new Error('disk full');
      },
      finishImport: async () => {},
      exportLines: async function* () {},
      async bulk(on) {
        calls.push(`bulk ${on}`);
      },
    };
    await assert.rejects(generateInto(failing, opts, generatedCount(opts.videos)), /disk full/);
    assert.deepEqual(calls, ['bulk true', 'write 4000', 'write 4000', 'bulk false']);
    assert.equal(threads(), 0);
    // an error in the thread (no date can be made for an invalid 'now') reaches the caller
    await assert.rejects(async () => {
      for await (const batch of generatedBatches({ ...opts, now: NaN }, { json: false })) assert.fail(`a batch of ${batch.length}`);
    }, /Invalid time value/);
    assert.equal(threads(), 0);
  });
});

describe('media catalogue writes', () => {
  test('a batch of several upserts (full ones compiled once, and the rest) stores every entry; an id twice keeps its last entry', async () => {
    const f = await openFixture([]);
    try {
      const batch = (title: string) => {
        const videos = Array.from({ length: 1200 }, (_, i) => video(`vidBatch${String(i).padStart(4, '0')}`, `${title} ${i}`, { channelId: CH_BIG }));
        return [channel(CH_BIG, 'Big', { videoCount: 1200 }), ...videos.slice(0, 1100), video('vidBatch0007', `${title} again`, { channelId: CH_BIG }), ...videos.slice(1100)];
      };
      // twice: the first write compiles the full upserts, the second only substitutes values
      for (const title of ['first', 'second']) {
        await load(f.store, batch(title));
        assert.deepEqual(await countEntries(f.store.db), { content_owners: 0, channels: 1, videos: 1200, playlists: 0 });
        const [again, last] = (await resourcesById(f.store.db, 'video', ['vidBatch0007', 'vidBatch1199'])) as any[];
        assert.equal(again.snippet.title, `${title} again`);
        assert.equal(last.snippet.title, `${title} 1199`);
        const row = await f.store.db.selectFrom('media_videos').select(['title', 'channel_id']).where('id', '=', 'vidBatch0007').executeTakeFirstOrThrow();
        assert.deepEqual({ ...row }, { title: `${title} again`, channel_id: CH_BIG });
      }
    } finally {
      await f.close();
    }
  });
});

describe('media catalogue writes of new entries (plain inserts)', () => {
  const exported = async (f: FixtureStore) => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c) => chunks.push(String(c)));
    await exportNdjson(storeTarget(f.store), out);
    return chunks.join('').trim().split('\n').sort();
  };

  test('a write of new entries inserts them; one that meets a stored entry fails whole with a unique violation', async () => {
    const f = await openFixture([]);
    try {
      const entries = await checkEntries(f.store.db, [channel(CH_BIG, 'Big', { videoCount: 2 }), video('vidFresh0001', 'fresh one', { channelId: CH_BIG }), video('vidFresh0002', 'fresh two', { channelId: CH_BIG })], (i) => `entries[${i}]`);
      assert.deepEqual(entries.problems, []);
      const [big, one, two] = entries.entries;
      await writeImportBatch(f.store.db, [big, one], undefined, true);
      assert.deepEqual(await countEntries(f.store.db), { content_owners: 0, channels: 1, videos: 1, playlists: 0 });
      await assert.rejects(writeImportBatch(f.store.db, [two, one], undefined, true), (err: unknown) => isUniqueViolation(err));
      // nothing of that batch, not even its new video
      assert.deepEqual(await countEntries(f.store.db), { content_owners: 0, channels: 1, videos: 1, playlists: 0 });
      // as upserts it is written
      await writeImportBatch(f.store.db, [two, one]);
      assert.deepEqual(await countEntries(f.store.db), { content_owners: 0, channels: 1, videos: 2, playlists: 0 });
    } finally {
      await f.close();
    }
  });

  test('generating into a catalogue that holds part of it already gives the catalogue a clean generation gives', async () => {
    // on PostgreSQL the batches are first written as new rows: the first meets stored entries and is written again as upserts
    const opts = { videos: 600, seed: 12 };
    const clean = await openFixture([]);
    const partial = await openFixture([]);
    try {
      await generateInto(storeTarget(clean.store), opts, generatedCount(opts.videos));
      const stored = [...generateCatalog(opts)].slice(0, 300);
      // and one of them changed: the generation writes it as generated
      stored[stored.length - 1] = { ...stored[stored.length - 1], etag: 'changed' };
      await load(partial.store, stored);
      await generateInto(storeTarget(partial.store), opts, generatedCount(opts.videos));
      const expected = await exported(clean);
      assert.equal(expected.length, generatedCount(opts.videos));
      assert.deepEqual(await exported(partial), expected);
      assert.deepEqual(await countEntries(partial.store.db), await countEntries(clean.store.db));
    } finally {
      await clean.close();
      await partial.close();
    }
  });
});

describe('media catalogue NDJSON import and export', () => {
  let f: FixtureStore;
  let dir: string;
  before(async () => {
    f = await openFixture([]);
    dir = mkdtempSync(join(tmpdir(), 'media-ndjson-'));
  });
  after(async () => {
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };
  const good = () => fixtureEntries().map((e) => JSON.stringify(e));

  test('a bad line fails the import with its line number and reason; nothing is written', async () => {
    const lines = good();
    lines.splice(4, 0, '{"kind": "youtube#video", "id": ');
    lines.splice(7, 0, JSON.stringify(video('vidOrphan01', 'orphan', { channelId: 'UCnosuchchannel000000000' })));
    const file = write('bad.ndjson', lines);
    await assert.rejects(importNdjson(storeTarget(f.store), file), (err: unknown) => {
      assert.ok(err instanceof ImportError);
      assert.match(err.problems[0], /^line 5: not JSON/);
      assert.match(err.problems[1], /^line 8: snippet.channelId: channel 'UCnosuchchannel000000000' is neither in the file nor stored/);
      return true;
    });
    assert.deepEqual(await countEntries(f.store.db), { content_owners: 0, channels: 0, videos: 0, playlists: 0 });
  });

  test('import, then export gives the same entries back; blank lines are skipped', async () => {
    const lines = good();
    lines.splice(2, 0, '', '   ');
    const file = write('good.ndjson', lines);
    const r = await importNdjson(storeTarget(f.store), file);
    assert.deepEqual(r, { entries: good().length, resumedAfterLine: 0 });
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c) => chunks.push(String(c)));
    await exportNdjson(storeTarget(f.store), out);
    const exported = chunks.join('').trim().split('\n');
    assert.deepEqual([...exported].sort(), [...good()].sort());
    assert.ok(exported.findIndex((l) => l.includes('youtube#channel')) < exported.findIndex((l) => l.includes('media#video')), 'channels before videos');
    // importing the same file again changes nothing (upserts)
    await importNdjson(storeTarget(f.store), file);
    assert.deepEqual(await countEntries(f.store.db), { content_owners: 1, channels: 3, videos: 13, playlists: 2 });
  });

  test('an interrupted import resumes after the last committed batch', async () => {
    const lines = [JSON.stringify(channel('UCresumeresumeresume0001', 'Resume', { videoCount: 3 }))];
    for (let i = 0; i < 5; i++) lines.push(JSON.stringify(video(`resume${i}abcd`, `resumable ${i}`, { channelId: 'UCresumeresumeresume0001' })));
    const file = write('resume.ndjson', lines);
    // what pass 2 records after committing lines 1-3 (the mark is keyed by the file's content)
    const hash = createHash('sha256');
    for (const l of readFileSync(file, 'utf8').split('\n').slice(0, -1)) hash.update(l).update('\n');
    await f.store.db.insertInto('media_meta').values({ name: `import:${hash.digest('hex')}`, value: 3 }).execute();
    const r = await importNdjson(storeTarget(f.store), file);
    assert.equal(r.resumedAfterLine, 3);
    const stored = (await f.store.db.selectFrom('media_videos').select('id').where('id', 'like', 'resume%').execute()).map((x) => x.id).sort();
    assert.deepEqual(stored, ['resume2abcd', 'resume3abcd', 'resume4abcd'], 'lines 1-3 (the channel, resume0, resume1) counted as done, the rest written');
    assert.equal(await f.store.db.selectFrom('media_meta').select('name').where('name', 'like', 'import:%').executeTakeFirst(), undefined, 'the mark is removed when done');
  });
});

describe('media catalogue import messages and progress', () => {
  test('a JSON syntax error names one place: the column of its line', () => {
    const reason = (text: string) => {
      try {
        JSON.parse(text);
      } catch (err) {
        return jsonSyntaxProblem((err as Error).message);
      }
      throw new Error('parsed');
    };
    assert.equal(reason(`{"kind": "youtube#video", "title": "${'x'.repeat(160)}" ]`), "column 199: not JSON: Expected ',' or '}' after property value");
    assert.equal(reason('{"a":'), 'not JSON: Unexpected end of JSON input');
    assert.equal(reason(`[1,]${' '.repeat(300)}`), "not JSON: Unexpected token ']'");
    assert.doesNotMatch(reason('{"a" 1}'), /position|line/);
  });

  test('the rate of a phase counts from the end of the one before, and says nothing in its first quarter second', () => {
    const rate = new PhaseRate(0);
    assert.deepEqual(rate.tick({ phase: 'index', done: 4000, total: 103000 }, 1), { newPhase: true, perSecond: undefined });
    assert.deepEqual(rate.tick({ phase: 'index', done: 40000, total: 103000 }, 1000), { newPhase: false, perSecond: 40000 });
    // the next phase starts where the last tick of this one was
    assert.deepEqual(rate.tick({ phase: 'write', done: 5000, total: 10000 }, 1250), { newPhase: true, perSecond: 20000 });
  });
});
