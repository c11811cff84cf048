// Benchmark: how long cloudtwin takes to start and how much memory it holds idle, each against a
// bare fastify started the same way, side by side in one run. Runs are interleaved (baseline,
// cloudtwin, baseline, ...); every figure is the median of RUNS runs, every ratio the median of
// the per-run ratios, with their spread.
//
// 1. The process: `cloudtwin serve --in-memory --port 0` to its ready line, and its RSS 2 s
//    later, against `node -e` a one-route fastify to its listen line (targets: <= 1.5x the wall
//    time, <= 1.2x the RSS). Also the CPU time used by then (steady on a busy machine: other
//    load lengthens the wall time, not the CPU time), and, for information, a start without the
//    compile cache (NODE_DISABLE_COMPILE_CACHE=1: the first start after an upgrade).
// 2. The command line: `cloudtwin --version` and `cloudtwin --help` to their exit, against
//    `node -e ''` (target <= 3x).
// 3. In process, as a test suite starts the fixture: a fresh Node process that imports cloudtwin
//    and awaits `startCloudtwin()` (in memory), against one that imports fastify, adds one route
//    and awaits `listen()` (target <= 1.5x); then, in the same processes, later starts with the
//    modules loaded (for information).
//
// cloudtwin runs as shipped: bin/cloudtwin.js enables Node's compile cache, so after its first
// start the code cache and the type-stripped sources are reused. Each measured start follows an
// unmeasured one, so that sources changed meanwhile are compiled and cached again.
//
//   npm run bench:startup       (env: BENCH_RUNS=5)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, type Child, deadline, fmt, median, meets, pinSelf, printSummary, printTable, rssMiB, runNode, spawnNode, spreadText } from './lib.ts';

deadline(240);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = 2000;
const layout = pinSelf();
const IN_PROCESS = fileURLToPath(new URL('./startupInProcess.ts', import.meta.url));

/** The baseline server: one route, started by `node -e` (CommonJS, as `-e` runs), to its listen line. */
const BARE_FASTIFY = `const app = require('fastify')(); app.get('/', async () => ({ ok: true })); app.listen({ host: '127.0.0.1', port: 0 }).then((url) => process.stdout.write('bare fastify listening on ' + url + '\\n'));`;

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

const fastify = () => spawnNode(['-e', BARE_FASTIFY], /bare fastify listening on (http:\/\/\S+)/);
const twin = (env: NodeJS.ProcessEnv = {}) => spawnNode([BIN, 'serve', '--in-memory', '--port', '0', '--log-level', 'warn'], /cloudtwin listening on (http:\/\/\S+)/, { env });

interface InProcess {
  firstMs: number;
  firstCpuMs: number;
  laterMs: number[];
  laterCpuMs: number[];
}
// The compile cache on from the process's first module (as bin/cloudtwin.js has it for serve):
// the runner script itself is TypeScript, and stripping it would load Node's stripper.
const COMPILE_CACHE = join(tmpdir(), 'node-compile-cache');
const inProcess = async (mode: 'fastify' | 'cloudtwin'): Promise<InProcess> => JSON.parse((await runNode([IN_PROCESS, mode, '5'], { env: { NODE_COMPILE_CACHE: COMPILE_CACHE } })).stdout);

process.stdout.write(`startup benchmark: ${RUNS} interleaved runs each after one warm-up run; RSS read ${IDLE_MS} ms after the ready line; ${layout}\n`);
// Warm-up (discarded): the OS file cache for all, and cloudtwin's compile cache.
await (await fastify()).stop();
await (await twin()).stop();
await runNode(['-e', '']);
await runNode([BIN, '--version']);
await runNode([BIN, '--help']);
await inProcess('fastify');
await inProcess('cloudtwin');

const F: Start[] = [];
const T: Start[] = [];
const N: Start[] = [];
const cli = { bare: [] as number[], version: [] as number[], help: [] as number[] };
const fixture = { fastify: [] as InProcess[], cloudtwin: [] as InProcess[] };
for (let i = 0; i < RUNS; i++) {
  F.push(await measure(await fastify()));
  // An unmeasured start first: it refreshes the compile cache for any source changed since the
  // last run (a working tree others edit while this runs). One changed .ts file makes the next
  // start strip types again (Node loads its TypeScript stripper: ~80 ms more CPU, ~15 MiB more
  // resident), which is a first start after an upgrade, not the start this measures.
  await (await twin()).stop();
  T.push(await measure(await twin()));
  N.push(await measure(await twin({ NODE_DISABLE_COMPILE_CACHE: '1' }), false));
  cli.bare.push((await runNode(['-e', ''])).ms);
  cli.version.push((await runNode([BIN, '--version'])).ms);
  cli.help.push((await runNode([BIN, '--help'])).ms);
  fixture.fastify.push(await inProcess('fastify'));
  fixture.cloudtwin.push(await inProcess('cloudtwin'));
  const [ff, fc] = [fixture.fastify[i], fixture.cloudtwin[i]];
  process.stdout.write(
    `  run ${i + 1}: fastify ${fmt(F[i].readyMs)} ms (cpu ${fmt(F[i].cpuMs, 0)} ms, ${fmt(F[i].rss)} MiB), ` +
      `cloudtwin ${fmt(T[i].readyMs)} ms (cpu ${fmt(T[i].cpuMs, 0)} ms, ${fmt(T[i].rss)} MiB), no compile cache ${fmt(N[i].readyMs)} ms (cpu ${fmt(N[i].cpuMs, 0)} ms); ` +
      `node -e '' ${fmt(cli.bare[i])} ms, --version ${fmt(cli.version[i])} ms, --help ${fmt(cli.help[i])} ms; ` +
      `in process: fastify ${fmt(ff.firstMs)} ms, startCloudtwin ${fmt(fc.firstMs)} ms (later ${fmt(median(ff.laterMs))} / ${fmt(median(fc.laterMs))} ms)\n`,
  );
}

const per = (a: Start[], b: Start[], k: keyof Start) => a.map((x, i) => x[k] / b[i][k]);
const med = (xs: Start[], k: keyof Start) => median(xs.map((x) => x[k]));
const ratios = (a: number[], b: number[]) => a.map((x, i) => x / b[i]);
const readyRatio = per(T, F, 'readyMs');
const rssRatio = per(T, F, 'rss');
const versionRatio = ratios(cli.version, cli.bare);
const helpRatio = ratios(cli.help, cli.bare);
const fixtureFirst = (k: 'fastify' | 'cloudtwin', f: 'firstMs' | 'firstCpuMs') => fixture[k].map((r) => r[f]);
const fixtureLater = (k: 'fastify' | 'cloudtwin', f: 'laterMs' | 'laterCpuMs') => fixture[k].map((r) => median(r[f]));
const fixtureRatio = ratios(fixtureFirst('cloudtwin', 'firstMs'), fixtureFirst('fastify', 'firstMs'));
const fixtureLaterRatio = ratios(fixtureLater('cloudtwin', 'laterMs'), fixtureLater('fastify', 'laterMs'));
const range = (xs: number[]) => `${fmt(Math.min(...xs), 0)}-${fmt(Math.max(...xs), 0)}`;
const row = (name: string, xs: Start[], rss = true) => ({
  process: name,
  'ready ms (median)': fmt(med(xs, 'readyMs')),
  'min-max ms': range(xs.map((x) => x.readyMs)),
  'cpu ms to ready': fmt(med(xs, 'cpuMs'), 0),
  'idle RSS MiB': rss ? fmt(med(xs, 'rss')) : '-',
});
printTable('process start to the ready line, and idle RSS (medians)', [
  row('bare fastify (node -e), listen line', F),
  row('cloudtwin serve --in-memory, ready line', T),
  row('cloudtwin, no compile cache', N, false),
]);
const exitRow = (name: string, xs: number[]) => ({ command: name, 'to exit ms (median)': fmt(median(xs)), 'min-max ms': range(xs) });
printTable('command line to its exit (medians)', [exitRow("node -e ''", cli.bare), exitRow('cloudtwin --version', cli.version), exitRow('cloudtwin --help', cli.help)]);
const fixtureRow = (name: string, k: 'fastify' | 'cloudtwin') => ({
  'fresh process': name,
  'first start ms (median)': fmt(median(fixtureFirst(k, 'firstMs'))),
  'min-max ms': range(fixtureFirst(k, 'firstMs')),
  'first start cpu ms': fmt(median(fixtureFirst(k, 'firstCpuMs')), 0),
  'later starts ms': fmt(median(fixtureLater(k, 'laterMs'))),
  'later starts cpu ms': fmt(median(fixtureLater(k, 'laterCpuMs'))),
});
printTable('in process: import + start to ready, then later starts in the same process (medians)', [fixtureRow('import fastify, listen()', 'fastify'), fixtureRow('import cloudtwin, startCloudtwin()', 'cloudtwin')]);
printSummary('bench:startup', [
  ['cloudtwin cold start', `median ${fmt(med(T, 'readyMs'))} ms to the ready line (serve --in-memory, ${RUNS} runs); CPU ${fmt(med(T, 'cpuMs'), 0)} ms`],
  ['bare fastify start', `median ${fmt(med(F, 'readyMs'))} ms to the listen line (node -e); CPU ${fmt(med(F, 'cpuMs'), 0)} ms`],
  ['ready / fastify (wall)', `${spreadText(readyRatio)}; target <= 1.5: ${meets(median(readyRatio), 1.5)}`],
  ['ready / fastify (CPU)', spreadText(per(T, F, 'cpuMs'))],
  ['idle RSS', `cloudtwin ${fmt(med(T, 'rss'))} MiB, fastify ${fmt(med(F, 'rss'))} MiB (${IDLE_MS} ms after ready)`],
  ['idle RSS / fastify', `${spreadText(rssRatio)}; target <= 1.2: ${meets(median(rssRatio), 1.2)}`],
  ['no compile cache', `median ${fmt(med(N, 'readyMs'))} ms (${spreadText(per(N, F, 'readyMs'))} of fastify), CPU ${fmt(med(N, 'cpuMs'), 0)} ms`],
  ['--version / node -e', `${fmt(median(cli.version))} ms against ${fmt(median(cli.bare))} ms: ${spreadText(versionRatio)}; target <= 3: ${meets(median(versionRatio), 3)}`],
  ['--help / node -e', `${fmt(median(cli.help))} ms: ${spreadText(helpRatio)}; target <= 3: ${meets(median(helpRatio), 3)}`],
  ['startCloudtwin / listen', `first in a process ${fmt(median(fixtureFirst('cloudtwin', 'firstMs')))} ms against ${fmt(median(fixtureFirst('fastify', 'firstMs')))} ms: ${spreadText(fixtureRatio)}; target <= 1.5: ${meets(median(fixtureRatio), 1.5)}`],
  ['later starts in process', `${fmt(median(fixtureLater('cloudtwin', 'laterMs')))} ms against ${fmt(median(fixtureLater('fastify', 'laterMs')))} ms: ${spreadText(fixtureLaterRatio)}`],
]);
