// Child process of bench/checkKey.ts: the cloudtwin app built as the CLI builds it (SQLite in a
// data dir), the test world applied, one key with browser restrictions + apiTargets, and a
// bench-only route `GET /bench/check` that calls `twin.apikeys.checkKey` and returns a constant.
// Before listening it measures the direct (in-process) checkKey call rate and prints it.
//
//   node bench/checkKeyServer.ts <dataDir>
import { createCloudtwin } from '../src/server.ts';
import { ALICE, DEMO, testWorld } from '../test/support/world.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: checkKeyServer.ts <dataDir>');
const ADMIN = 'bench-admin-token';

export const CHECK = {
  service: 'youtube.googleapis.com',
  method: 'youtube.api.v3.V3DataSearchService.List',
  referer: 'https://app.example.com/search?q=cats',
  ip: '127.0.0.1',
};

const twin = await createCloudtwin({ dataDir, auth: 'enforce', adminToken: ADMIN, logger: false });
// Routes must be added before the first inject() readies the app.
let keyString = '';
const constant = { ok: true };
twin.app.get('/bench/check', async (req) => {
  await twin.apikeys.checkKey(keyString, { ...CHECK, ip: req.ip });
  return constant;
});
const admin = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
  const r = await twin.app.inject({ method, url, payload: payload as any, headers: { authorization: `Bearer ${ADMIN}` } });
  if (r.statusCode !== 200) throw new Error(`${method} ${url} -> ${r.statusCode}: ${r.body}`);
  return r.json();
};
await admin('POST', '/_twin/v1/world:apply', testWorld);
await admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
const { access_token: token } = await admin('POST', '/_twin/v1/tokens', { principal: ALICE });
const created = await twin.app.inject({
  method: 'POST',
  url: `/v2/projects/${DEMO.projectId}/locations/global/keys`,
  headers: { authorization: `Bearer ${token}` },
  payload: {
    displayName: 'bench checkKey',
    restrictions: {
      browserKeyRestrictions: { allowedReferrers: ['https://www.example.org/*', '*.example.net/*', 'https://app.example.com/*'] },
      apiTargets: [
        { service: 'maps.googleapis.com' },
        { service: 'youtube.googleapis.com', methods: ['youtube.api.v3.V3DataVideoService.*', 'youtube.api.v3.V3DataSearchService.List'] },
      ],
    },
  },
});
const op = created.json();
if (!op.done || !op.response?.keyString) throw new Error(`key creation did not finish: ${created.body}`);
keyString = op.response.keyString;

// The request must pass (a failing check would measure the error path).
const identity = await twin.apikeys.checkKey(keyString, CHECK);
if (identity.projectNumber !== DEMO.projectNumber) throw new Error(`checkKey answered ${JSON.stringify(identity)}`);
let blocked = false;
await twin.apikeys.checkKey(keyString, { ...CHECK, referer: 'https://evil.example/' }).catch(() => (blocked = true));
if (!blocked) throw new Error('a disallowed referer passed checkKey');

// Direct in-process call rate: 0.5 s warm-up, then 2 s measured, sequential awaits.
async function directRate(ms: number): Promise<number> {
  let n = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < 1000; i++) await twin.apikeys.checkKey(keyString, CHECK);
    n += 1000;
  }
  return n / ((performance.now() - t0) / 1000);
}
// BENCH_SKIP_DIRECT=1 skips it (for profiling the HTTP path alone).
const skipDirect = process.env.BENCH_SKIP_DIRECT === '1';
if (!skipDirect) await directRate(500);
const direct = skipDirect ? NaN : await directRate(2000);


await twin.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = twin.app.server.address() as { port: number };
process.stdout.write(`direct checkKey calls/s: ${direct.toFixed(0)}\n`);
process.stdout.write(`checkKey bench listening on http://127.0.0.1:${port}\n`);
const stop = () => void twin.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
