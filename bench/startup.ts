// Benchmark: cold start of `cloudtwin serve --port 0 --data-dir <fresh dir>` to its ready line
// (first start: master key, admin token, migrations), and the idle RSS 2 s after it, against a
// bare fastify server started the same way (`node <file>`, same core) to its listen line, in the
// same run. Runs are interleaved (fastify, cloudtwin, fastify, ...); every figure is the median
// of RUNS runs, every ratio the median of the per-run ratios, with their spread.
//
// Three measures of the start: wall time to the ready line (what a user waits), CPU time used
// by then (steady on a busy machine: other load lengthens the wall time, not the CPU time) and
// idle RSS. cloudtwin runs as shipped: bin/cloudtwin.js enables Node's compile cache, so after
// its first start the code cache and the type-stripped sources are reused. The row "no compile
// cache" shows a start without it (NODE_DISABLE_COMPILE_CACHE=1), for information. Each measured
// start follows an unmeasured one, so that sources changed meanwhile are compiled and cached again.
//
//   npm run bench:startup       (env: BENCH_RUNS=7)
import { BASELINE_SERVER, BIN, type Child, deadline, fmt, median, meets, pinSelf, printSummary, printTable, rssMiB, spawnNode, spreadText, tempDir } from './lib.ts';

deadline(170);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const IDLE_MS = 2000;
const layout = pinSelf();

interface Start {
  readyMs: number;
  cpuMs: number;
  rss: number;
}

async function measure(c: Child, withRss = true): Promise<Start> {
  let rss = NaN;
  if (withRss) {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    rss = rssMiB(c.pid);
  }
  await c.stop();
  return { readyMs: c.readyMs, cpuMs: c.readyCpuMs, rss };
}

const fastify = () => spawnNode([BASELINE_SERVER], /baseline listening on (http:\/\/\S+)/);
const twin = (env: NodeJS.ProcessEnv = {}) =>
  spawnNode([BIN, 'serve', '--port', '0', '--data-dir', tempDir('cloudtwin-start-'), '--log-level', 'warn'], /cloudtwin listening on (http:\/\/\S+)/, { env });

process.stdout.write(`startup benchmark: ${RUNS} interleaved runs each after one warm-up run; RSS read ${IDLE_MS} ms after the ready line; ${layout}\n`);
// Warm-up (discarded): the OS file cache for both, and cloudtwin's compile cache.
await (await fastify()).stop();
await (await twin()).stop();

const F: Start[] = [];
const T: Start[] = [];
const N: Start[] = [];
for (let i = 0; i < RUNS; i++) {
  F.push(await measure(await fastify()));
  // An unmeasured start first: it refreshes the compile cache for any source changed since the
  // last run (a working tree others edit while this runs). One changed .ts file makes the next
  // start strip types again (Node loads its TypeScript stripper: ~80 ms more CPU, ~15 MiB more
  // resident), which is a first start after an upgrade, not the start this measures.
  await (await twin()).stop();
  T.push(await measure(await twin()));
  N.push(await measure(await twin({ NODE_DISABLE_COMPILE_CACHE: '1' }), false));
  process.stdout.write(
    `  run ${i + 1}: fastify ${fmt(F[i].readyMs)} ms (cpu ${fmt(F[i].cpuMs, 0)} ms, ${fmt(F[i].rss)} MiB), ` +
      `cloudtwin ${fmt(T[i].readyMs)} ms (cpu ${fmt(T[i].cpuMs, 0)} ms, ${fmt(T[i].rss)} MiB), no compile cache ${fmt(N[i].readyMs)} ms (cpu ${fmt(N[i].cpuMs, 0)} ms)\n`,
  );
}

const per = (a: Start[], b: Start[], k: keyof Start) => a.map((x, i) => x[k] / b[i][k]);
const med = (xs: Start[], k: keyof Start) => median(xs.map((x) => x[k]));
const readyRatio = per(T, F, 'readyMs');
const cpuRatio = per(T, F, 'cpuMs');
const rssRatio = per(T, F, 'rss');
const row = (name: string, xs: Start[], rss = true) => ({
  process: name,
  'ready ms (median)': fmt(med(xs, 'readyMs')),
  'min-max ms': `${fmt(Math.min(...xs.map((x) => x.readyMs)), 0)}-${fmt(Math.max(...xs.map((x) => x.readyMs)), 0)}`,
  'cpu ms to ready': fmt(med(xs, 'cpuMs'), 0),
  'idle RSS MiB': rss ? fmt(med(xs, 'rss')) : '-',
});
printTable('start to ready line and idle RSS (medians)', [
  row('bare fastify, listen line', F),
  row('cloudtwin serve, ready line', T),
  row('cloudtwin, no compile cache', N, false),
]);
printSummary('bench:startup', [
  ['cloudtwin cold start', `median ${fmt(med(T, 'readyMs'))} ms to the ready line (fresh data dir, ${RUNS} runs); CPU ${fmt(med(T, 'cpuMs'), 0)} ms`],
  ['bare fastify start', `median ${fmt(med(F, 'readyMs'))} ms to the listen line; CPU ${fmt(med(F, 'cpuMs'), 0)} ms`],
  ['ready / fastify (wall)', `${spreadText(readyRatio)}; target <= 2: ${meets(median(readyRatio), 2)}`],
  ['ready / fastify (CPU)', spreadText(cpuRatio)],
  ['idle RSS', `cloudtwin ${fmt(med(T, 'rss'))} MiB, fastify ${fmt(med(F, 'rss'))} MiB (${IDLE_MS} ms after ready)`],
  ['idle RSS / fastify', `${spreadText(rssRatio)}; target <= 1.3: ${meets(median(rssRatio), 1.3)}`],
  ['no compile cache', `median ${fmt(med(N, 'readyMs'))} ms (${spreadText(per(N, F, 'readyMs'))} of fastify), CPU ${fmt(med(N, 'cpuMs'), 0)} ms`],
]);
