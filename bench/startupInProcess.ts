// One side of bench:startup's in-process measure, run in a fresh Node process:
//
//   node bench/startupInProcess.ts fastify|cloudtwin [LATER_STARTS]
//
// fastify: import fastify, make an app with one route, await listen() on 127.0.0.1:0.
// cloudtwin: import cloudtwin (src/index.ts) and await startCloudtwin() (in memory).
// The first start includes loading the modules (what a test file pays); LATER_STARTS more starts
// follow with the modules loaded, each stopped before the next. Prints one JSON line:
// {"firstMs", "firstCpuMs", "laterMs": [...], "laterCpuMs": [...]}. bench:startup runs it with
// NODE_COMPILE_CACHE set, as `cloudtwin serve` runs with the compile cache on (a test runner that
// sets NODE_COMPILE_CACHE gets the same). cloudtwin's dependencies load from their bundles, as an
// installed package loads them (dist/vendor/, made by scripts/build-package.js from the same
// scripts/vendor-deps.js build the repository's bundles come from); the baseline's fastify loads
// from node_modules, as a user's own fastify does.
import { useVendoredDeps } from '../bin/vendored.js';

const [mode, later = '5'] = process.argv.slice(2);
if (mode !== 'fastify' && mode !== 'cloudtwin') throw new Error('usage: node bench/startupInProcess.ts fastify|cloudtwin [LATER_STARTS]');
if (mode === 'cloudtwin') useVendoredDeps();

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Starts one server and returns its stop function. */
async function start(): Promise<() => Promise<unknown>> {
  if (mode === 'fastify') {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    return () => app.close();
  }
  const { startCloudtwin } = await import('../src/index.ts');
  const twin = await startCloudtwin({ inMemory: true });
  return () => twin.stop();
}

async function timed(): Promise<{ ms: number; cpuMs: number }> {
  const [t0, c0] = [performance.now(), cpu()];
  const stop = await start();
  const result = { ms: performance.now() - t0, cpuMs: cpu() - c0 };
  await stop();
  return result;
}

const first = await timed();
const laterStarts: { ms: number; cpuMs: number }[] = [];
for (let i = 0; i < Number(later); i++) laterStarts.push(await timed());
process.stdout.write(JSON.stringify({ firstMs: first.ms, firstCpuMs: first.cpuMs, laterMs: laterStarts.map((s) => s.ms), laterCpuMs: laterStarts.map((s) => s.cpuMs) }) + '\n');
