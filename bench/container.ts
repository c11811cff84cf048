// Benchmark: the container image (`npm run image:build` makes it) against its base image.
//
// 1. Size: what the image adds to its Node 24 slim base (target <= 80 MB), as the engine reports
//    the images' sizes (their unpacked layers).
// 2. Start: from `run -d` to the first 200 of /_twin/v1/health through the published port
//    (what a harness waiting for the health endpoint sees; target <= 2 s), against the base image
//    running a one-route `node:http` server to its first answer (the engine's own part: making the
//    container, its network and port mapping, starting Node). Also, for information, the first
//    passing run of the image's HEALTHCHECK (`healthcheck run`, polled).
//
// Runs alternate (base, cloudtwin, base, ...); each figure is the median of RUNS runs, with its
// spread. Every container is removed.
//
//   npm run bench:container       (env: BENCH_RUNS=5; CLOUDTWIN_IMAGE, CLOUDTWIN_CONTAINER_ENGINE)
import { execFileSync } from 'node:child_process';
import { BASE_LABEL, IMAGE, containerEngine, imageLabel, imageSize } from '../scripts/image-build.ts';
import { deadline, fmt, median, meets, printSummary, printTable } from './lib.ts';

deadline(600);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const engine = containerEngine();
if (!engine) throw new Error('no container engine (podman or docker) on PATH');
const base = imageLabel(engine, IMAGE, BASE_LABEL);
if (!base) throw new Error(`${IMAGE} is missing or has no ${BASE_LABEL} label: run npm run image:build`);

const BARE_SERVER = `process.on('SIGTERM', () => process.exit(0)); require('node:http').createServer((req, res) => res.end('ok')).listen(8080);`;
const engineOut = (args: string[]) => execFileSync(engine, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
let n = 0;

/** Runs a container, waits for `path` to answer 200 on its published 8080; the milliseconds from `run` to then, and to a passing HEALTHCHECK when asked. */
async function start(image: string, command: string[], path: string, healthcheck: boolean): Promise<{ ms: number; healthcheckMs: number }> {
  const name = `cloudtwin-bench-${process.pid}-${n++}`;
  const t0 = performance.now();
  try {
    engineOut(['run', '-d', '--name', name, '-p', '127.0.0.1::8080', image, ...command]);
    const port = /:(\d+)\s*$/.exec(engineOut(['port', name, '8080']))![1];
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (performance.now() - t0 > 60_000) throw new Error(`${image} did not answer in 60 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const ms = performance.now() - t0;
    let healthcheckMs = NaN;
    if (healthcheck) {
      // the answer has come, so the first run normally passes; polled in case it does not
      for (let i = 0; i < 50 && Number.isNaN(healthcheckMs); i++) {
        try {
          engineOut(['healthcheck', 'run', name]);
          healthcheckMs = performance.now() - t0;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
    return { ms, healthcheckMs };
  } finally {
    try {
      engineOut(['rm', '-f', '-t', '0', name]);
    } catch {
      // already gone
    }
  }
}

const mb = (bytes: number) => `${fmt(bytes / 1e6)} MB`;
const imageBytes = imageSize(engine, IMAGE);
const baseBytes = imageSize(engine, base);

// warm-up: the first run of an image pays for its layers' first mount
await start(base, ['node', '-e', BARE_SERVER], '/', false);
await start(IMAGE, [], '/_twin/v1/health', false);
const baseMs: number[] = [];
const twinMs: number[] = [];
const checkMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  baseMs.push((await start(base, ['node', '-e', BARE_SERVER], '/', false)).ms);
  const t = await start(IMAGE, [], '/_twin/v1/health', true);
  twinMs.push(t.ms);
  checkMs.push(t.healthcheckMs);
}
const spread = (xs: number[]) => `${fmt(Math.min(...xs), 0)} - ${fmt(Math.max(...xs), 0)} ms`;
const ratios = twinMs.map((t, i) => t / baseMs[i]);

printTable('Image size', [
  { image: IMAGE, size: mb(imageBytes), 'over its base': mb(imageBytes - baseBytes) },
  { image: base, size: mb(baseBytes), 'over its base': '' },
]);
printTable(`Start to an answer, median of ${RUNS} (interleaved)`, [
  { container: `${IMAGE}: run to /_twin/v1/health 200`, median: `${fmt(median(twinMs), 0)} ms`, spread: spread(twinMs) },
  { container: `${IMAGE}: run to a passing HEALTHCHECK`, median: `${fmt(median(checkMs), 0)} ms`, spread: spread(checkMs) },
  { container: `${base}: run to a node:http answer`, median: `${fmt(median(baseMs), 0)} ms`, spread: spread(baseMs) },
]);
printSummary('bench:container', [
  ['engine', engineOut(['--version'])],
  ['added to the base', `${mb(imageBytes - baseBytes)} (${IMAGE} ${mb(imageBytes)}, ${base} ${mb(baseBytes)}): ${meets(imageBytes - baseBytes, 80e6)} (<= 80 MB)`],
  ['run to healthy', `${fmt(median(twinMs), 0)} ms median (${spread(twinMs)}): ${meets(median(twinMs), 2000)} (<= 2 s)`],
  ['base run to an answer', `${fmt(median(baseMs), 0)} ms median (${spread(baseMs)}); cloudtwin's ${fmt(median(ratios), 2)}x it`],
]);
