// Benchmark: GET /v2/keys:lookupKey throughput and latency over HTTP, as a ratio of a bare
// fastify route returning a constant (run in the same process tree, same core layout), and the
// server's own CPU time per request against the baseline's (the target: <= 1.6x). Both log at
// `info` (BENCH_LOG_LEVEL): cloudtwin its one request line per request, the baseline Fastify's own
// request lines; each writes them to its stderr, here /dev/null.
//
//   npm run bench:lookup        (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=50, BENCH_LOG_LEVEL=info)
import { call, compare, cpuRatioText, equalRateCpuText, deadline, loadRows, prepareKey, ratioText, pinSelf, printSummary, printTable, startBaseline, startCloudtwin, usText } from './lib.ts';

deadline(110);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const layout = pinSelf();

const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
const baseline = await startBaseline({ logLevel });
const twin = await startCloudtwin([], { logLevel });
try {
  const { token, keyString, keyName } = await prepareKey(twin);
  const lookupQuery = `?keyString=${encodeURIComponent(keyString)}`;
  const answer = await call(twin.url, 'GET', `/v2/keys:lookupKey${lookupQuery}`, token);
  if (answer.name !== keyName) throw new Error(`lookupKey answered ${JSON.stringify(answer)}, expected ${keyName}`);

  process.stdout.write(`lookupKey benchmark (both logging at ${logLevel}): ${connections} connections, ${seconds} s each after a 2 s warm-up, in 10 alternating 1 s slices; ${layout}\n`);
  const cmp = await compare(
    // The baseline gets the same request (query and headers; as bench:checkkey and bench:compute
    // do): what is compared is the server's work on it, not the bytes of a longer request.
    { name: 'baseline (bare fastify GET constant)', url: `${baseline.url}/baseline${lookupQuery}`, headers: { authorization: `Bearer ${token}` }, pid: baseline.pid },
    { name: 'GET /v2/keys:lookupKey (bearer token)', url: `${twin.url}/v2/keys:lookupKey${lookupQuery}`, headers: { authorization: `Bearer ${token}` }, pid: twin.pid },
    { connections, seconds, equalRate: true },
  );
  const { baseline: base, target: lookup } = cmp;
  printTable('lookupKey vs baseline', loadRows([base, lookup], base));
  printSummary('bench:lookup', [
    ['baseline req/s', `${base.reqPerSec.toFixed(0)}  (p50 ${base.p50} ms, p99 ${base.p99} ms)`],
    ['lookupKey req/s', `${lookup.reqPerSec.toFixed(0)}  (p50 ${lookup.p50} ms, p99 ${lookup.p99} ms @ ${connections} connections)`],
    ['lookupKey / baseline', ratioText(cmp)],
    ['server CPU per request', `lookupKey ${usText(lookup.cpuUsPerRequest)}, baseline ${usText(base.cpuUsPerRequest)}`],
    ['  lookupKey / baseline', cpuRatioText(cmp)],
    ['server CPU per request, equal rate', equalRateCpuText(cmp)],
    ['errors + non-2xx', `${lookup.errors + lookup.non2xx} (baseline ${base.errors + base.non2xx})`],
  ]);
} finally {
  await twin.stop();
  await baseline.stop();
}
