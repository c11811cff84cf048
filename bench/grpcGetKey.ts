// Benchmark: getKey over gRPC against getKey over REST, same run, same server (pinned to its
// own CPU): the server's CPU time per call and p50/p99 latency at concurrency 8, in alternating
// slices (the target: gRPC at most 1.2x REST's server CPU per call). Also the server's RSS at
// idle before any gRPC call and after the first (gRPC loads lazily), and its start-up.
//
//   npm run bench:grpc        (env: BENCH_SECONDS=8, BENCH_CONCURRENCY=8)
import { Agent, request } from 'node:http';
import { connect } from 'node:http2';
import { cpuMs, deadline, fmt, pinSelf, prepareKey, printSummary, printTable, rssMiB, startCloudtwin, summarize } from './lib.ts';

deadline(150);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SLICES = 8;
const layout = pinSelf();

/** `GetKeyRequest { name = 1 }` as a gRPC length-prefixed message (hand-encoded: no protobuf library in the load generator). */
function getKeyFrame(name: string): Buffer {
  const n = Buffer.from(name);
  const msg = Buffer.concat([Buffer.from([0x0a]), varint(n.length), n]);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(msg.length, 1);
  return Buffer.concat([head, msg]);
}

function varint(v: number): Buffer {
  const out: number[] = [];
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

type Caller = () => Promise<void>;

/** Runs `concurrency` closed loops of `call` for `ms`; latencies in ms. */
async function drive(call: Caller, ms: number): Promise<{ latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, errors };
}

const twin = await startCloudtwin();
try {
  const startupRss = rssMiB(twin.pid);
  const { token, keyName } = await prepareKey(twin);
  const url = new URL(twin.url);
  const path = `/v2/${keyName}`;
  const auth = `Bearer ${token}`;

  // REST: HTTP/1.1 keep-alive, one socket per loop.
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const rest: Caller = () =>
    new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, agent, headers: { authorization: auth } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
      });
      req.on('error', reject);
      req.end();
    });

  // gRPC: one HTTP/2 connection, `concurrency` streams in flight (as grpc-js multiplexes a channel).
  const session = connect(twin.url);
  const frame = getKeyFrame(keyName);
  const grpc: Caller = () =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/google.api.apikeys.v2.ApiKeys/GetKey', 'content-type': 'application/grpc', te: 'trailers', authorization: auth });
      let status: string | undefined;
      stream.on('trailers', (t) => (status = String(t['grpc-status'])));
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
      });
      stream.resume();
      stream.on('end', () => (status === '0' ? resolve() : reject(new Error(`grpc-status ${status}`))));
      stream.on('error', reject);
      stream.end(frame);
    });

  const idleRssBeforeGrpc = rssMiB(twin.pid);
  await grpc(); // the first call loads protobuf.js and the .proto files
  const rssAfterFirstGrpc = rssMiB(twin.pid);

  // Warm-up, then alternating slices; server CPU measured around each slice.
  await drive(rest, 1000);
  await drive(grpc, 1000);
  const totals = { rest: { lat: [] as number[], cpu: 0, n: 0, errors: 0 }, grpc: { lat: [] as number[], cpu: 0, n: 0, errors: 0 } };
  for (let i = 0; i < SLICES; i++) {
    for (const kind of i % 2 === 0 ? (['rest', 'grpc'] as const) : (['grpc', 'rest'] as const)) {
      const before = cpuMs(twin.pid);
      const r = await drive(kind === 'rest' ? rest : grpc, (seconds * 1000) / SLICES);
      const t = totals[kind];
      t.cpu += cpuMs(twin.pid) - before;
      t.n += r.latencies.length;
      t.errors += r.errors;
      t.lat.push(...r.latencies);
    }
  }
  session.close();
  agent.destroy();

  const row = (name: string, t: (typeof totals)['rest']) => {
    const s = summarize(t.lat);
    return { target: name, calls: String(t.n), 'calls/s': t.n / seconds, 'p50 ms': s.p50, 'p99 ms': s.p99, 'server CPU us/call': (t.cpu * 1000) / t.n, errors: String(t.errors) };
  };
  const restRow = row('GET /v2/{key} (REST, HTTP/1.1)', totals.rest);
  const grpcRow = row('ApiKeys/GetKey (gRPC, h2c)', totals.grpc);
  printTable(`getKey at concurrency ${concurrency}; ${layout}`, [restRow, grpcRow]);
  const ratio = grpcRow['server CPU us/call'] / restRow['server CPU us/call'];
  printSummary('bench:grpc', [
    ['REST getKey', `p50 ${fmt(restRow['p50 ms'], 2)} ms, p99 ${fmt(restRow['p99 ms'], 2)} ms, server CPU ${fmt(restRow['server CPU us/call'])} us/call`],
    ['gRPC getKey', `p50 ${fmt(grpcRow['p50 ms'], 2)} ms, p99 ${fmt(grpcRow['p99 ms'], 2)} ms, server CPU ${fmt(grpcRow['server CPU us/call'])} us/call`],
    ['gRPC / REST server CPU', `${ratio.toFixed(2)}x (target <= 1.2x: ${ratio <= 1.2 ? 'MET' : 'NOT MET'})`],
    ['server RSS', `${fmt(startupRss)} MiB at the ready line, ${fmt(idleRssBeforeGrpc)} MiB idle before any gRPC call, ${fmt(rssAfterFirstGrpc)} MiB after the first (gRPC loads then)`],
    ['ready line', `${twin.readyMs.toFixed(0)} ms after spawn`],
    ['errors', `REST ${totals.rest.errors}, gRPC ${totals.grpc.errors}`],
  ]);
} finally {
  await twin.stop();
}
