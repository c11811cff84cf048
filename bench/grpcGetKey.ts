// Benchmark: getKey over gRPC against getKey over REST, same run, same server (pinned to its own
// CPU): the server's CPU time per call and p50/p99 latency at concurrency 8 (the target: gRPC at
// most 1.5x REST's server CPU per call). Also the server's RSS at idle before any gRPC call and
// after the first (gRPC loads lazily), and its start-up.
//
// The load generator is h2load (Debian's nghttp2-client), in C, for both transports: REST as 8
// HTTP/1.1 keep-alive connections, gRPC as one HTTP/2 connection with 8 streams in flight (as a
// grpc-js channel multiplexes). A generator in Node cannot keep a node:http2 server busy (its own
// HTTP/2 client costs more per call than the server), and a server that waits pays for waking up
// in every write: its CPU per call then measures the generator as much as itself. Three figures:
//   1. at concurrency 8, both transports driven as fast as the server answers (the target's own terms);
//   2. at one request rate for both, below what either serves (the same wake-ups on both sides);
//   3. the transport floors, measured the same way: a bare fastify route (HTTP/1.1) against a bare
//      node:http2 unary answer (bench/baselineGrpcServer.ts), what either transport costs before
//      any of cloudtwin's work;
//   4. with a Python that has grpcio (gRPC C-core, which waits for the server's SETTINGS before
//      its first request): a getKey on a new channel made with the README's idiom, from making the
//      channel to the answer, against the channel's second call and the same against the bare node:http2
//      server (target: the first <= 20 ms).
//
//   npm run bench:grpc        (env: BENCH_SECONDS=8 per measure and transport, BENCH_CONCURRENCY=8)
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pythonWithGrpc } from '../test/support/python.ts';
import { cpuMs, deadline, fmt, pinSelf, prepareKey, printSummary, printTable, rssMiB, spawnNode, startBaseline, startCloudtwin, summarize, tempDir } from './lib.ts';

deadline(300);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = 4;
const layout = pinSelf(); // h2load, started from here, runs on this process's CPU

try {
  execFileSync('h2load', ['--version'], { stdio: 'ignore' });
} catch {
  process.stderr.write('bench:grpc drives both transports with h2load: apt-get install nghttp2-client\n');
  process.exit(1);
}
const run = promisify(execFile);
const dir = tempDir('cloudtwin-bench-grpc-');

/** One gRPC request message as a length-prefixed frame (hand-encoded: `field 1, length-delimited`). */
function grpcFrame(field1: string): Buffer {
  const s = Buffer.from(field1);
  if (s.length > 127) throw new Error('one-byte length only');
  const msg = Buffer.concat([Buffer.from([0x0a, s.length]), s]);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(msg.length, 1);
  return Buffer.concat([head, msg]);
}

interface Target {
  name: string;
  /** h1: `concurrency` HTTP/1.1 connections; grpc: one h2c connection, `concurrency` streams. */
  kind: 'h1' | 'grpc';
  url: string;
  pid: number;
  headers?: string[];
  body?: string;
}

interface Slice {
  calls: number;
  cpuMs: number;
  latenciesMs: number[];
  failed: number;
}

/** h2load against one target for `secs` (at `rate` calls/s in all, or as fast as it answers). */
async function drive(t: Target, secs: number, rate?: number): Promise<Slice> {
  const log = join(dir, 'requests.log');
  rmSync(log, { force: true }); // h2load appends
  const args = t.kind === 'h1' ? ['--h1', '-c', String(concurrency)] : ['-c', '1', '-m', String(concurrency), '-H', 'content-type: application/grpc', '-H', 'te: trailers'];
  if (rate !== undefined) args.push(`--rps=${t.kind === 'h1' ? rate / concurrency : rate}`);
  if (t.body) args.push('-d', t.body);
  for (const h of t.headers ?? []) args.push('-H', h);
  const before = cpuMs(t.pid);
  const { stdout } = await run('h2load', [...args, '-D', `${Math.round(secs * 1000)}ms`, '--log-file', log, t.url], { maxBuffer: 1 << 24 });
  const cpu = cpuMs(t.pid) - before;
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const latenciesMs = lines.map((l) => Number(l.split('\t')[2]) / 1000);
  const failed = lines.filter((l) => l.split('\t')[1] !== '200').length + Number(/(\d+) failed/.exec(stdout)?.[1] ?? 0);
  return { calls: lines.length, cpuMs: cpu, latenciesMs, failed };
}

/** Two targets in alternating slices (ROUNDS each way), after a warm-up each. */
async function pair(a: Target, b: Target, rate?: number): Promise<[Row, Row]> {
  await drive(a, 1, rate);
  await drive(b, 1, rate);
  const acc = [a, b].map(() => ({ calls: 0, cpuMs: 0, lat: [] as number[], failed: 0 }));
  for (let i = 0; i < ROUNDS; i++) {
    for (const j of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const s = await drive(j === 0 ? a : b, seconds / ROUNDS, rate);
      acc[j].calls += s.calls;
      acc[j].cpuMs += s.cpuMs;
      acc[j].failed += s.failed;
      for (const l of s.latenciesMs) acc[j].lat.push(l);
    }
  }
  return [row(a, acc[0]), row(b, acc[1])];
}

/**
 * A getKey on each of `channels` new grpcio channels (the README's idiom) to each target in turn:
 * ms from making the channel to the first answer, and for the channel's second call.
 */
const GRPCIO_FIRST_CALLS = String.raw`
import json, sys, time, grpc
token, name, channels, targets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
b = name.encode()
request = bytes([0x0a, len(b)]) + b
ident = lambda x: x
out = {t: {'first': [], 'second': []} for t in targets}
for _ in range(channels):
    for addr in targets:
        t0 = time.perf_counter()
        channel = grpc.secure_channel(addr, grpc.composite_channel_credentials(
            grpc.local_channel_credentials(), grpc.access_token_call_credentials(token)))
        get_key = channel.unary_unary('/google.api.apikeys.v2.ApiKeys/GetKey', request_serializer=ident, response_deserializer=ident)
        get_key(request, timeout=10)
        t1 = time.perf_counter()
        get_key(request, timeout=10)
        t2 = time.perf_counter()
        channel.close()
        out[addr]['first'].append((t1 - t0) * 1000)
        out[addr]['second'].append((t2 - t1) * 1000)
print(json.dumps(out))
`;

type FirstCalls = { first: number[]; second: number[] };

/** grpcio's first and second calls on new channels to each of `urls`, alternating. */
async function grpcioFirstCalls(python: string, urls: string[], token: string, keyName: string, channels: number): Promise<FirstCalls[]> {
  const hosts = urls.map((u) => new URL(u).host);
  const { stdout } = await run(python, ['-c', GRPCIO_FIRST_CALLS, token, keyName, String(channels), ...hosts], { timeout: 180_000 });
  const out = JSON.parse(stdout) as Record<string, FirstCalls>;
  return hosts.map((h) => out[h]);
}

type Row = { target: string; calls: string; 'calls/s': number; 'p50 ms': number; 'p99 ms': number; 'server CPU us/call': number; failed: string };

function row(t: Target, r: { calls: number; cpuMs: number; lat: number[]; failed: number }): Row {
  const s = summarize(r.lat);
  return { target: t.name, calls: String(r.calls), 'calls/s': r.calls / seconds, 'p50 ms': s.p50, 'p99 ms': s.p99, 'server CPU us/call': (r.cpuMs * 1000) / r.calls, failed: String(r.failed) };
}

const cpuRatio = (g: Row, r: Row) => g['server CPU us/call'] / r['server CPU us/call'];

const twin = await startCloudtwin();
const restFloor = await startBaseline();
const grpcFloor = await spawnNode([new URL('./baselineGrpcServer.ts', import.meta.url).pathname], /grpc baseline listening on (http:\/\/\S+)/);
try {
  const startupRss = rssMiB(twin.pid);
  const { token, keyName } = await prepareKey(twin);
  const auth = `authorization: Bearer ${token}`;
  writeFileSync(join(dir, 'getKey.bin'), grpcFrame(keyName));
  writeFileSync(join(dir, 'floor.bin'), grpcFrame('a'));
  const rest: Target = { name: 'GET /v2/{key} (REST, HTTP/1.1)', kind: 'h1', url: `${twin.url}/v2/${keyName}`, pid: twin.pid, headers: [auth] };
  const grpc: Target = { name: 'ApiKeys/GetKey (gRPC, h2c)', kind: 'grpc', url: `${twin.url}/google.api.apikeys.v2.ApiKeys/GetKey`, pid: twin.pid, headers: [auth], body: join(dir, 'getKey.bin') };

  const idleRssBeforeGrpc = rssMiB(twin.pid);
  await drive(grpc, 0.2, 10); // the first calls load protobuf.js and the .proto files
  const rssAfterFirstGrpc = rssMiB(twin.pid);

  const [restRow, grpcRow] = await pair(rest, grpc);
  printTable(`1. getKey at concurrency ${concurrency}, as fast as the server answers; ${layout}`, [restRow, grpcRow]);
  const rate = Math.round((0.5 * Math.min(restRow['calls/s'], grpcRow['calls/s'])) / 100) * 100;
  const [restEq, grpcEq] = await pair(rest, grpc, rate);
  printTable(`2. getKey offered at ${rate.toLocaleString('en-US')} calls/s each (half the slower one's rate above)`, [restEq, grpcEq]);
  const [restBare, grpcBare] = await pair(
    { name: 'bare fastify route (HTTP/1.1)', kind: 'h1', url: `${restFloor.url}/baseline`, pid: restFloor.pid, headers: [auth] },
    { name: 'bare node:http2 unary answer (h2c)', kind: 'grpc', url: `${grpcFloor.url}/bench.Floor/Call`, pid: grpcFloor.pid, headers: [auth], body: join(dir, 'floor.bin') },
  );
  printTable(`3. the transport floors at concurrency ${concurrency}, as fast as they answer`, [restBare, grpcBare]);

  const python = pythonWithGrpc();
  const [grpcio, grpcioFloor] = python ? await grpcioFirstCalls(python, [twin.url, grpcFloor.url], token, keyName, 30) : [];
  const grpcioLine = (ms: number[]) => {
    const s = summarize(ms);
    return `p50 ${fmt(s.p50, 1)} ms, max ${fmt(s.max, 1)} ms`;
  };

  // Every call succeeded: h2load sees HTTP 200 either way, the server's metrics count gRPC statuses (as their HTTP codes).
  const metrics = await (await fetch(`${twin.url}/metrics`)).text();
  const failures = metrics.split('\n').filter((l) => /GetKey|keys\/\{key\}/i.test(l) && /code="(?!200)/.test(l) && !l.startsWith('#'));
  const failedCalls = [restRow, grpcRow, restEq, grpcEq].reduce((n, r) => n + Number(r.failed), 0);

  const ratio = cpuRatio(grpcRow, restRow);
  const us = (r: Row) => `${fmt(r['server CPU us/call'])} us`;
  printSummary('bench:grpc', [
    ['REST getKey', `p50 ${fmt(restRow['p50 ms'], 2)} ms, p99 ${fmt(restRow['p99 ms'], 2)} ms, server CPU ${us(restRow)}/call, ${fmt(restRow['calls/s'], 0)} calls/s`],
    ['gRPC getKey', `p50 ${fmt(grpcRow['p50 ms'], 2)} ms, p99 ${fmt(grpcRow['p99 ms'], 2)} ms, server CPU ${us(grpcRow)}/call, ${fmt(grpcRow['calls/s'], 0)} calls/s`],
    ['gRPC / REST server CPU', `${ratio.toFixed(2)}x at concurrency ${concurrency} (target <= 1.5x: ${ratio <= 1.5 ? 'MET' : 'NOT MET'})`],
    ['  at equal rate', `${cpuRatio(grpcEq, restEq).toFixed(2)}x offered ${rate.toLocaleString('en-US')} calls/s each, served ${fmt(grpcEq['calls/s'], 0)} / ${fmt(restEq['calls/s'], 0)} (${us(grpcEq)} vs ${us(restEq)})`],
    ['transport floors', `bare fastify route ${us(restBare)}, bare node:http2 unary ${us(grpcBare)} (${cpuRatio(grpcBare, restBare).toFixed(2)}x)`],
    [
      'grpcio (C-core), new channel',
      grpcio ? `first call ${grpcioLine(grpcio.first)} (target p50 <= 20 ms: ${summarize(grpcio.first).p50 <= 20 ? 'MET' : 'NOT MET'}); its second call ${grpcioLine(grpcio.second)}; ${grpcio.first.length} channels` : 'not measured: no python3 with grpcio (apt-get install python3-grpcio)',
    ],
    ...(grpcioFloor ? [['  bare node:http2 server', `first call ${grpcioLine(grpcioFloor.first)}, second ${grpcioLine(grpcioFloor.second)} (same channels, alternating)`] as [string, string]] : []),
    ['server RSS', `${fmt(startupRss)} MiB at the ready line, ${fmt(idleRssBeforeGrpc)} MiB before any gRPC call, ${fmt(rssAfterFirstGrpc)} MiB after the first (gRPC loads then)`],
    ['ready line', `${twin.readyMs.toFixed(0)} ms after spawn`],
    ['failed calls', `${failedCalls} (h2load), ${failures.length ? failures.join('; ') : 'none'} (server metrics)`],
  ]);
} finally {
  await Promise.all([twin.stop(), restFloor.stop(), grpcFloor.stop()]);
}
