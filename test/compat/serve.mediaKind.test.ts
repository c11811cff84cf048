/** `cloudtwin serve --media-kind-prefix` (env CLOUDTWIN_MEDIA_KIND_PREFIX): the kinds of media answers. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));

describe('serve --media-kind-prefix', () => {
  let server: ServerProcess;
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase();
    server = await startServer({ databaseUrl: db.url, args: ['--auth', 'permissive'], env: { CLOUDTWIN_MEDIA_KIND_PREFIX: 'youtube' } });
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });

  test('CLOUDTWIN_MEDIA_KIND_PREFIX=youtube: search answers youtube#searchListResponse', async () => {
    const res = await fetch(`${server.url}/youtube/v3/search?part=id&q=x`, { headers: { authorization: 'Bearer anything' } });
    const body = (await res.json()) as { kind: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.kind, 'youtube#searchListResponse');
  });

  test('a value other than media or youtube is refused before anything starts', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, 'serve', '--in-memory', '--port', '0', '--media-kind-prefix', 'yt'], { timeout: 30_000 }, (err, _stdout, stderr) => resolve({ code: err ? ((err as any).code ?? 1) : 0, stderr })),
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--media-kind-prefix yt: expected one of media, youtube/);
  });
});
