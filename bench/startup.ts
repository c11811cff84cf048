// Benchmark: cold start of `cloudtwin serve --port 0 --data-dir <fresh dir>` to its ready line
// (first start: master key, admin token, migrations), and the idle RSS 2 s after it. Baselines
// in the same run: Node's own start (`node -e` printing a line) and a bare fastify server to its
// listen line (and its idle RSS). The three are interleaved, RUNS times each.
//
//   npm run bench:startup       (env: BENCH_RUNS=5)
import { readFileSync } from 'node:fs';
import { BASELINE_SERVER, BIN, type Child, deadline, fmt, pinSelf, printSummary, printTable, spawnNode, summarize, tempDir } from './lib.ts';

deadline(110);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = 2000;
const layout = pinSelf();

/** VmRSS of a process in MiB (Linux /proc), or NaN elsewhere. */
function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function idleRss(c: Child): Promise<number> {
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const rss = rssMiB(c.pid);
  await c.stop();
  return rss;
}

const nodeStart: number[] = [];
const fastifyStart: number[] = [];
const fastifyRss: number[] = [];
const twinStart: number[] = [];
const twinRss: number[] = [];

process.stdout.write(`startup benchmark: ${RUNS} interleaved runs each; RSS read ${IDLE_MS} ms after the ready line; ${layout}\n`);
for (let i = 0; i < RUNS; i++) {
  const n = await spawnNode(['-e', 'console.log("node ready")'], /node ready/);
  nodeStart.push(n.readyMs);
  await n.stop();

  const f = await spawnNode([BASELINE_SERVER], /baseline listening on (http:\/\/\S+)/);
  fastifyStart.push(f.readyMs);
  fastifyRss.push(await idleRss(f));

  const t = await spawnNode([BIN, 'serve', '--port', '0', '--data-dir', tempDir('cloudtwin-start-'), '--log-level', 'warn'], /cloudtwin listening on (http:\/\/\S+)/);
  twinStart.push(t.readyMs);
  twinRss.push(await idleRss(t));
  process.stdout.write(`  run ${i + 1}: node -e ${fmt(n.readyMs)} ms, fastify ${fmt(f.readyMs)} ms, cloudtwin ${fmt(t.readyMs)} ms (idle RSS ${fmt(twinRss[i])} MiB)\n`);
}

const ns = summarize(nodeStart);
const fs = summarize(fastifyStart);
const ts = summarize(twinStart);
const fr = summarize(fastifyRss);
const tr = summarize(twinRss);
printTable('start to ready line (ms) and idle RSS (MiB)', [
  { process: 'node -e (Node start)', 'p50 ms': ns.p50, 'max ms': ns.max, 'p50 / node': '1.0x', 'idle RSS MiB': '-' },
  { process: 'bare fastify, listen line', 'p50 ms': fs.p50, 'max ms': fs.max, 'p50 / node': (fs.p50 / ns.p50).toFixed(1) + 'x', 'idle RSS MiB': fmt(fr.p50) },
  { process: 'cloudtwin serve, ready line', 'p50 ms': ts.p50, 'max ms': ts.max, 'p50 / node': (ts.p50 / ns.p50).toFixed(1) + 'x', 'idle RSS MiB': fmt(tr.p50) },
]);
printSummary('bench:startup', [
  ['cloudtwin cold start', `p50 ${fmt(ts.p50)} ms, max ${fmt(ts.max)} ms  (fresh data dir, ${RUNS} runs)`],
  ['  / bare fastify start', `${(ts.p50 / fs.p50).toFixed(1)}x  (fastify p50 ${fmt(fs.p50)} ms, max ${fmt(fs.max)} ms)`],
  ['  / node -e start', `${(ts.p50 / ns.p50).toFixed(1)}x  (node -e p50 ${fmt(ns.p50)} ms, max ${fmt(ns.max)} ms)`],
  ['cloudtwin idle RSS', `p50 ${fmt(tr.p50)} MiB, max ${fmt(tr.max)} MiB  (${IDLE_MS} ms after ready)`],
  ['  / bare fastify idle RSS', `${(tr.p50 / fr.p50).toFixed(1)}x  (fastify p50 ${fmt(fr.p50)} MiB)`],
]);
