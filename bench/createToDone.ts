// Benchmark: create-to-done latency of an API key through the official client
// (@google-cloud/apikeys, REST fallback, service-account key self-signing JWTs), operations in
// instant mode: N sequential `createKey` + `await op.promise()`. Baseline: a POST round trip
// to a bare fastify route through plain fetch, in the same run, and the server's own CPU time
// per call (from /proc) for each. Also shown: the same create
// through plain fetch with a bearer token, separating the client library's cost from the server's.
//
//   npm run bench:create        (env: BENCH_N=100)
import { ApiKeysClient } from '@google-cloud/apikeys';
import { CI_SA, DEMO, testWorld } from '../test/support/world.ts';
import { call, cpuMs, deadline, fmt, pinSelf, printSummary, printTable, startBaseline, startCloudtwin, summarize, usText } from './lib.ts';

deadline(110);
const N = Number(process.env.BENCH_N ?? 100);
const WARMUP = 10;
const layout = pinSelf();
const PARENT = `projects/${DEMO.projectId}/locations/global`;

async function timeEach(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  return ms;
}

const baseline = await startBaseline();
const twin = await startCloudtwin();
let client: ApiKeysClient | undefined;
try {
  await twin.admin('POST', '/_twin/v1/world:apply', testWorld);
  await twin.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  const keyFile = await twin.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
  const { access_token: token } = await twin.admin('POST', '/_twin/v1/tokens', { principal: `serviceAccount:${CI_SA}` });
  const port = Number(new URL(twin.url).port);
  // Self-signed JWTs from the key: no token request leaves the machine.
  client = new ApiKeysClient({ apiEndpoint: '127.0.0.1', port, protocol: 'http', fallback: true, credentials: keyFile });
  process.stdout.write(`createToDone benchmark: N=${N} sequential creates per row after ${WARMUP} warm-up calls; operations instant; ${layout}\n`);

  const viaClient = async (i: number) => {
    const [op] = await client!.createKey({ parent: PARENT, key: { displayName: `bench gax ${i}` } });
    const [key] = await op.promise();
    if (!key.keyString) throw new Error(`operation finished without a keyString: ${JSON.stringify(key)}`);
  };
  const viaFetch = async (i: number) => {
    let op = await call(twin.url, 'POST', `/v2/${PARENT}/keys`, token, { displayName: `bench fetch ${i}` });
    while (!op.done) op = await call(twin.url, 'GET', `/v2/${op.name}`, token);
    if (!op.response?.keyString) throw new Error(`operation finished without a keyString: ${JSON.stringify(op)}`);
  };
  const viaBaseline = async () => {
    const res = await fetch(`${baseline.url}/baseline`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ displayName: 'x' }) });
    await res.json();
  };

  // Warm-ups (JIT, connections, the client's first JWT), then the measured runs.
  await timeEach(WARMUP, viaBaseline);
  await timeEach(WARMUP, viaFetch);
  await timeEach(WARMUP, viaClient);
  /** Latencies of N calls and the server's own CPU time per call (us). */
  const measured = async (pid: number, fn: (i: number) => Promise<void>) => {
    const c0 = cpuMs(pid);
    const s = summarize(await timeEach(N, fn));
    return { ...s, cpuUs: ((cpuMs(pid) - c0) * 1000) / N };
  };
  const base = await measured(baseline.pid, viaBaseline);
  const fetched = await measured(twin.pid, viaFetch);
  const gax = await measured(twin.pid, viaClient);

  const row = (name: string, s: typeof base) => ({
    path: name,
    n: String(s.n),
    'p50 ms': fmt(s.p50, 2),
    'p99 ms': fmt(s.p99, 2),
    'mean ms': fmt(s.mean, 2),
    'max ms': fmt(s.max, 2),
    'p50 / baseline': (s.p50 / base.p50).toFixed(1) + 'x',
    'server CPU/call': usText(s.cpuUs),
  });
  printTable('create-to-done latency', [
    row('baseline: bare fastify POST, plain fetch', base),
    row('createKey via plain fetch (bearer token)', fetched),
    row('createKey + op.promise() via @google-cloud/apikeys', gax),
  ]);
  printSummary('bench:create', [
    ['baseline POST round trip', `p50 ${fmt(base.p50, 2)} ms, p99 ${fmt(base.p99, 2)} ms, mean ${fmt(base.mean, 2)} ms`],
    ['create-to-done (official client)', `p50 ${fmt(gax.p50, 2)} ms, p99 ${fmt(gax.p99, 2)} ms, mean ${fmt(gax.mean, 2)} ms  (N=${N})`],
    ['  as multiple of baseline', `p50 ${(gax.p50 / base.p50).toFixed(1)}x, mean ${(gax.mean / base.mean).toFixed(1)}x`],
    ['create (plain fetch, same server)', `p50 ${fmt(fetched.p50, 2)} ms, p99 ${fmt(fetched.p99, 2)} ms, mean ${fmt(fetched.mean, 2)} ms`],
    ['  client library share of p50', `${fmt(gax.p50 - fetched.p50, 2)} ms`],
    ['server CPU per create-to-done', `official client ${usText(gax.cpuUs)}, plain fetch ${usText(fetched.cpuUs)}; baseline POST ${usText(base.cpuUs)} (${(fetched.cpuUs / base.cpuUs).toFixed(1)}x for plain fetch)`],
  ]);
} finally {
  await client?.close();
  await twin.stop();
  await baseline.stop();
}
