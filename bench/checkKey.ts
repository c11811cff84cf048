// Benchmark: `apikeys.checkKey`, the per-request key enforcement other services call, measured
// over HTTP through a bench-only route (`GET /bench/check` -> checkKey -> constant) in an app
// built like the CLI builds it, as a ratio of a bare fastify route returning a constant. The
// key has browser restrictions and apiTargets; the checked request passes them. Also prints
// the direct in-process call rate of checkKey (sequential awaits) as extra information.
//
//   npm run bench:checkkey      (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=50)
import { fileURLToPath } from 'node:url';
import { compare, cpuRatioText, equalRateCpuText, deadline, loadRows, ratioText, pinSelf, printSummary, printTable, spawnNode, startBaseline, tempDir, usText } from './lib.ts';

deadline(110);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const layout = pinSelf();

const baseline = await startBaseline();
const server = await spawnNode([fileURLToPath(new URL('./checkKeyServer.ts', import.meta.url)), tempDir('cloudtwin-bench-')], /checkKey bench listening on (http:\/\/\S+)/);
try {
  const direct = Number(/direct checkKey calls\/s: (\d+)/.exec(server.output())?.[1] ?? NaN);
  const headers = { referer: 'https://app.example.com/search?q=cats' };
  process.stdout.write(`checkKey benchmark: ${connections} connections, ${seconds} s each after a 2 s warm-up, in 10 alternating 1 s slices; ${layout}\n`);
  const cmp = await compare(
    { name: 'baseline (bare fastify GET constant)', url: `${baseline.url}/baseline`, headers, pid: baseline.pid },
    { name: 'GET /bench/check (checkKey + constant)', url: `${server.url}/bench/check`, headers, pid: server.pid },
    { connections, seconds, equalRate: true },
  );
  const { baseline: base, target: check } = cmp;
  printTable('checkKey over HTTP vs baseline', loadRows([base, check], base));
  printSummary('bench:checkkey', [
    ['baseline req/s', `${base.reqPerSec.toFixed(0)}  (p50 ${base.p50} ms, p99 ${base.p99} ms)`],
    ['checkKey route req/s', `${check.reqPerSec.toFixed(0)}  (p50 ${check.p50} ms, p99 ${check.p99} ms @ ${connections} connections)`],
    ['checkKey / baseline', ratioText(cmp)],
    ['server CPU per request', `checkKey route ${usText(check.cpuUsPerRequest)}, baseline ${usText(base.cpuUsPerRequest)}`],
    ['  checkKey / baseline', cpuRatioText(cmp)],
    ['server CPU per request, equal rate', equalRateCpuText(cmp)],
    ['errors + non-2xx', `${check.errors + check.non2xx} (baseline ${base.errors + base.non2xx})`],
    ['direct checkKey calls/s', `${direct.toFixed(0)}  (in process, sequential awaits, no HTTP)`],
  ]);
} finally {
  await server.stop();
  await baseline.stop();
}
