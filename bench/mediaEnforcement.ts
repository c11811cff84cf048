// Benchmark: what key enforcement and quota cost a media search. One server process holds the
// whole cloudtwin app (SQLite in a data dir, or PostgreSQL with BENCH_DATABASE_URL) with a
// generated catalogue, and the media service mounted twice over the same catalogue and engine:
//   /youtube/v3/search   as served: checkKey (browser restriction + apiTargets) and a quota charge
//   /baseline/v3/search  the same service with the key check and the quota stubbed out
// The load generator alternates the two in 1 s slices (same run, same process, same query) and
// reports the overhead as a ratio (target: <= 10 %). The server also prints the in-process cost
// of one checkKey + one quota charge next to one engine search, as a second view of the same.
//
//   npm run bench:media-enforcement   (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=8, BENCH_VIDEOS=20000)
import { fileURLToPath } from 'node:url';
import { compare, deadline, fmt, loadRows, pinSelf, printSummary, printTable, spawnNode, tempDir, usText } from './lib.ts';

const SELF = fileURLToPath(import.meta.url);
const ADMIN = 'bench-admin-token';

if (process.argv[2] === '--server') await serve(process.argv[3]);
else await measure();

async function measure(): Promise<void> {
  deadline(300);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
  const layout = pinSelf();
  const server = await spawnNode([SELF, '--server', tempDir('cloudtwin-bench-')], /media bench listening on (http:\/\/\S+)/, { timeoutMs: 240_000 });
  try {
    const out = server.output();
    const info = JSON.parse(/media bench info (\{.*\})/.exec(out)![1]);
    const headers = { referer: 'https://app.example.com/search' };
    process.stdout.write(`media enforcement benchmark: ${info.videos} generated videos on ${info.store}, ${connections} connections, ${seconds} s per target in alternating 1 s slices; ${layout}\n`);
    const rows: [string, string][] = [];
    for (const [label, query] of [
      ['single term, snippet, 25 results', `part=snippet&q=${encodeURIComponent(info.term)}&maxResults=25`],
      ['filtered video search, date order', 'part=snippet&type=video&videoDuration=medium&order=date&maxResults=10'],
    ] as const) {
      const cmp = await compare(
        { name: `/baseline (no key check, no quota): ${label}`, url: `${server.url}/baseline/v3/search?${query}&key=${info.key}`, headers, pid: server.pid },
        { name: `/youtube (checkKey + quota): ${label}`, url: `${server.url}/youtube/v3/search?${query}&key=${info.key}`, headers, pid: server.pid },
        { connections, seconds },
      );
      printTable(label, loadRows([cmp.baseline, cmp.target], cmp.baseline));
      const overhead = 1 / cmp.ratio - 1;
      const cpuOverhead = cmp.cpuRatio - 1;
      rows.push([`${label}: throughput overhead`, `${fmt(overhead * 100)} %  (${fmt(cmp.baseline.reqPerSec, 0)} -> ${fmt(cmp.target.reqPerSec, 0)} req/s; target <= 10 %: ${overhead <= 0.1 ? 'MET' : 'NOT MET'})`]);
      rows.push([`${label}: server CPU per request`, `${usText(cmp.baseline.cpuUsPerRequest)} -> ${usText(cmp.target.cpuUsPerRequest)} (${fmt(cpuOverhead * 100)} %)`]);
      rows.push([`${label}: p50 / p99`, `${cmp.baseline.p50} / ${cmp.baseline.p99} ms -> ${cmp.target.p50} / ${cmp.target.p99} ms`]);
      rows.push([`${label}: errors + non-2xx`, String(cmp.target.errors + cmp.target.non2xx + cmp.baseline.errors + cmp.baseline.non2xx)]);
    }
    rows.push(['in process: checkKey + quota charge', `${usText(info.enforceUs)} per call (checkKey ${usText(info.checkKeyUs)}, quota ${usText(info.quotaUs)})`]);
    rows.push(['in process: one engine search', `${usText(info.searchUs)} (single term, 25 results)`]);
    rows.push(['in process: enforcement / search', `${fmt((info.enforceUs / info.searchUs) * 100)} %`]);
    printSummary('bench:media-enforcement', rows);
  } finally {
    await server.stop();
  }
}

/** The server child: the app, a generated catalogue, a key, the two mounts; prints its info and listens. */
async function serve(dataDir: string): Promise<void> {
  const { createCloudtwin } = await import('../src/server.ts');
  const { createMedia } = await import('../src/services/media/index.ts');
  const { generateInto, storeTarget } = await import('../src/services/media/catalog/bulk.ts');
  const { generatedCount } = await import('../src/services/media/catalog/generator.ts');
  const { ALICE, DEMO, testWorld } = await import('../test/support/world.ts');
  const videos = Number(process.env.BENCH_VIDEOS ?? 20_000);
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const twin = await createCloudtwin({ dataDir, databaseUrl, auth: 'enforce', adminToken: ADMIN, logger: false });
  // The baseline mount: the same catalogue, engine and service code, with the key check and the quota stubbed.
  const identity = { projectNumber: DEMO.projectNumber, projectId: DEMO.projectId, keyName: 'bench', principal: undefined };
  const media = await twin.media.media();
  createMedia(twin.app, {
    store: twin.store,
    iam: { directory: async () => undefined } as any,
    quota: { charge: async () => true } as any,
    checkKey: async () => identity,
    options: { pathPrefix: '/baseline' },
    catalog: { catalog: media.catalog, engine: media.engine, close: async () => {} },
  });
  const admin = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const r = await twin.app.inject({ method, url, payload: payload as any, headers: { authorization: `Bearer ${ADMIN}` } });
    if (r.statusCode !== 200) throw new Error(`${method} ${url} -> ${r.statusCode}: ${r.body}`);
    return r.json();
  };
  await admin('POST', '/_twin/v1/world:apply', { ...testWorld, quotas: [{ project: DEMO.projectId, service: 'youtube.googleapis.com', dailyLimit: 1_000_000_000_000 }] });
  await admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  await generateInto(storeTarget(twin.store), { videos, seed: 7 }, generatedCount(videos));
  const { access_token: token } = await admin('POST', '/_twin/v1/tokens', { principal: ALICE });
  const created = await twin.app.inject({
    method: 'POST',
    url: `/v2/projects/${DEMO.projectId}/locations/global/keys`,
    headers: { authorization: `Bearer ${token}` },
    payload: { restrictions: { browserKeyRestrictions: { allowedReferrers: ['app.example.com/*'] }, apiTargets: [{ service: 'youtube.googleapis.com' }] } },
  });
  const key = created.json().response.keyString as string;
  // A common word of the catalogue: the first word of a title.
  const row = await twin.store.db.selectFrom('media_videos').select('title').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const term = row.title.split(/\s+/).find((w) => /^\p{L}{3,}$/u.test(w)) ?? row.title.split(/\s+/)[0];
  // Warm the index, then time the pieces in process.
  const q = `/youtube/v3/search?part=snippet&q=${encodeURIComponent(term)}&maxResults=25&key=${key}`;
  for (let i = 0; i < 20; i++) await twin.app.inject({ method: 'GET', url: q, headers: { referer: 'https://app.example.com/' } });
  const origin = { service: 'youtube.googleapis.com', method: 'youtube.api.v3.V3DataSearchService.List', referer: 'https://app.example.com/', ip: '127.0.0.1' };
  const N = 2000;
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await fn();
    return Number(process.hrtime.bigint() - t0) / 1000 / N;
  };
  const { parseQuery } = await import('../src/services/media/search/queryParser.ts');
  const checkKeyUs = await time(() => twin.apikeys.checkKey(key, origin));
  const quotaUs = await time(() => twin.quota.charge(`projects/${DEMO.projectNumber}`, 'youtube.googleapis.com', 100));
  const searchUs = await time(() => media.engine.search({ q: parseQuery(term), types: ['video', 'channel', 'playlist'], safeSearch: 'moderate', order: 'relevance', offset: 0, limit: 25, maxReachable: 500 }));
  const info = { videos, store: twin.store.dialect, key, term, checkKeyUs, quotaUs, enforceUs: checkKeyUs + quotaUs, searchUs };
  await twin.app.listen({ host: '127.0.0.1', port: 0 });
  twin.worker.start();
  const port = (twin.app.server.address() as { port: number }).port;
  process.stdout.write(`media bench info ${JSON.stringify(info)}\n`);
  process.stdout.write(`media bench listening on http://127.0.0.1:${port}\n`);
  process.on('SIGTERM', () => void twin.close().then(() => process.exit(0)));
}
