/**
 * `cloudtwin serve --media-search-threads 2` (env CLOUDTWIN_MEDIA_SEARCH_THREADS): searches are
 * answered by two engines, one on a thread of its own (search/searchPool.ts). Through the stock
 * `googleapis` client, concurrent searches (shared between both) answer as lone ones (made on the
 * server's main thread), and a catalogue write shows in the next searches; an in-memory store is
 * refused before anything starts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { google, type youtube_v3 } from 'googleapis';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { mediaWorld, video } from '../http/media.world.ts';
import { issueKey } from './media.helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));

describe('serve --media-search-threads 2', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  let yt: youtube_v3.Youtube;

  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, env: { CLOUDTWIN_MEDIA_SEARCH_THREADS: '2' } });
    await server.admin('POST', '/_twin/v1/world:apply', mediaWorld);
    yt = google.youtube({ version: 'v3', rootUrl: `${server.url}/`, auth: await issueKey(server), retry: false } as any);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  const queries: youtube_v3.Params$Resource$Search$List[] = [
    { part: ['snippet'], q: 'pasta', type: ['video'], maxResults: 25, order: 'date' },
    { part: ['snippet'], q: 'cooking lesson', maxResults: 10, order: 'viewCount' },
    { part: ['id'], q: '"pasta lesson"', maxResults: 50 },
    { part: ['snippet'], q: 'pasta -moments', type: ['video'], videoDefinition: 'high', maxResults: 20 },
    { part: ['snippet'], type: ['video'], location: '48.8566,2.3522', locationRadius: '50km', maxResults: 20 },
    { part: ['snippet'], q: 'pasta|word', order: 'title', maxResults: 30 },
  ];
  const items = async (p: youtube_v3.Params$Resource$Search$List) => {
    const res = await yt.search.list(p);
    assert.equal(res.status, 200);
    return res.data.items;
  };

  it('concurrent searches answer as the same searches made one at a time', async () => {
    const alone: (youtube_v3.Schema$SearchResult[] | undefined)[] = [];
    for (const q of queries) alone.push(await items(q));
    assert.ok(alone.every((x) => x!.length > 0));
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all([...queries, ...queries, ...queries].map(items));
      together.forEach((x, i) => assert.deepEqual(x, alone[i % queries.length], JSON.stringify(queries[i % queries.length])));
    }
  });

  it('a catalogue write shows in every search made after it', async () => {
    const added = { ...video(1000), id: 'vidThreads01', snippet: { ...(video(1000).snippet as object), title: 'Xylophone quartet rehearsal' } };
    await server.admin('POST', '/_twin/v1/media/catalog:write', { entries: [added] });
    const found = await Promise.all(Array.from({ length: 8 }, () => items({ part: ['id'], q: 'xylophone' })));
    for (const x of found) assert.deepEqual(x!.map((i) => i.id?.videoId), ['vidThreads01']);
  });

  it('with --in-memory it is refused before anything starts', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, 'serve', '--in-memory', '--port', '0', '--media-search-threads', '2'], { timeout: 30_000 }, (err, _stdout, stderr) => resolve({ code: err ? ((err as any).code ?? 1) : 0, stderr })),
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--media-search-threads 2: needs a data directory or database/);
  });
});
