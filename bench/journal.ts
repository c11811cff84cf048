// Benchmark: what the request journal costs. GET /v2/keys:lookupKey on a server with the journal on
// (the default, 10,000 entries) against one with --journal-size 0, same request, same core layout:
// the server's CPU time per request, on against off (the target: <= 1.05x). Then the journal's
// own work per call, measured alone in this process (a figure a busy machine disturbs far less
// than the difference of two servers' CPU times).
//
//   npm run bench:journal       (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=50)
import { CallPipeline } from '../src/platform/calls/pipeline.ts';
import { CallRecord } from '../src/platform/calls/record.ts';
import { RequestStats } from '../src/platform/http/metrics.ts';
import { Journal } from '../src/platform/journal/journal.ts';
import { call, compare, cpuRatioText, equalRateCpuText, deadline, loadRows, prepareKey, ratioText, pinSelf, printSummary, printTable, startCloudtwin, usText } from './lib.ts';

deadline(110);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const layout = pinSelf();

const off = await startCloudtwin(['--journal-size', '0']);
const on = await startCloudtwin();
try {
  const [a, b] = [await prepareKey(off), await prepareKey(on)];
  for (const [twin, k] of [[off, a], [on, b]] as const) {
    const answer = await call(twin.url, 'GET', `/v2/keys:lookupKey?keyString=${encodeURIComponent(k.keyString)}`, k.token);
    if (answer.name !== k.keyName) throw new Error(`lookupKey answered ${JSON.stringify(answer)}, expected ${k.keyName}`);
  }
  const journal = await on.admin('GET', '/_twin/v1/requests?limit=1');
  if (journal.capacity !== 10_000 || journal.requests.length !== 1) throw new Error(`the journal is not on: ${JSON.stringify(journal).slice(0, 300)}`);

  process.stdout.write(`journal benchmark: lookupKey with the journal off and on, ${connections} connections, ${seconds} s each after a 2 s warm-up, in alternating 1 s slices; ${layout}\n`);
  const cmp = await compare(
    { name: 'lookupKey, --journal-size 0', url: `${off.url}/v2/keys:lookupKey?keyString=${encodeURIComponent(a.keyString)}`, headers: { authorization: `Bearer ${a.token}` }, pid: off.pid },
    { name: 'lookupKey, journal on (10,000)', url: `${on.url}/v2/keys:lookupKey?keyString=${encodeURIComponent(b.keyString)}`, headers: { authorization: `Bearer ${b.token}` }, pid: on.pid },
    { connections, seconds, equalRate: true },
  );
  const { baseline: base, target: journaled } = cmp;
  printTable('journal on vs off', loadRows([base, journaled], base));
  const after = await on.admin('GET', '/_twin/v1/requests?limit=1');
  printSummary('bench:journal', [
    ['journal off req/s', `${base.reqPerSec.toFixed(0)}  (p50 ${base.p50} ms, p99 ${base.p99} ms)`],
    ['journal on req/s', `${journaled.reqPerSec.toFixed(0)}  (p50 ${journaled.p50} ms, p99 ${journaled.p99} ms @ ${connections} connections)`],
    ['on / off', ratioText(cmp)],
    ['server CPU per request', `on ${usText(journaled.cpuUsPerRequest)}, off ${usText(base.cpuUsPerRequest)}`],
    ['  on / off', cpuRatioText(cmp, 1.05)],
    ['server CPU per request, equal rate', equalRateCpuText(cmp, 1.05)],
    ['journal entries (ring full)', `${after.size} of ${after.capacity}, last seq ${after.lastSeq}`],
    ['the journal\'s own work (a completion, on - off)', journalWork(base.cpuUsPerRequest)],
    ['errors + non-2xx', `${journaled.errors + journaled.non2xx} (off ${base.errors + base.non2xx})`],
  ]);
} finally {
  await on.stop();
  await off.stop();
}

/**
 * The journal's own work per call, in this process: a lookupKey call's completion in the call
 * pipeline (`CallPipeline.complete`: metrics and the journal entry; no log line, as at
 * `--log-level warn`) with the journal on (a full 10,000-entry ring) less the same with it off,
 * 20 rounds of 100,000 calls each way, interleaved; the median difference, in us and against
 * lookupKey's server CPU per request measured above (journal off), which on a quiet machine is
 * ~16 us (docs/benchmarks.md).
 */
function journalWork(offCpuUs: number): string {
  const api = { service: 'apikeys.googleapis.com', method: 'google.api.apikeys.v2.ApiKeys.LookupKey', id: 'apikeys.keys.lookupKey', scopes: [] };
  const completions = (journal: Journal) => {
    const pipeline = new CallPipeline({ journal, stats: new RequestStats() });
    const routeKey = {};
    return () => {
      const call = new CallRecord('rest', 'GET', '/v2/keys:lookupKey?keyString=AIzaSyD3x8kPq2wR7tY9uI0oP1aS2dF3gH4jK5l', 'req-1', {});
      call.api = api;
      call.route = '/v2/keys::lookupKey';
      call.routeKey = routeKey;
      call.principal = { member: 'user:alice@example.com', scopes: 'all', superuser: false };
      call.status = 200;
      pipeline.complete(call);
    };
  };
  const on = completions(new Journal());
  const off = completions(new Journal({ capacity: 0 }));
  const N = 100_000;
  const cpu = (fn: () => void) => {
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) fn();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / N;
  };
  const rounds: number[] = [];
  for (let r = 0; r < 22; r++) {
    const a = cpu(on);
    const b = cpu(off);
    if (r >= 2) rounds.push(a - b);
  }
  rounds.sort((a, b) => a - b);
  const med = rounds[Math.floor(rounds.length / 2)];
  const quiet = 16;
  return `${med.toFixed(3)} us per call (rounds ${rounds[0].toFixed(3)}-${rounds[rounds.length - 1].toFixed(3)}): ${((100 * med) / offCpuUs).toFixed(1)} % of lookupKey's ${offCpuUs.toFixed(1)} us here, ${((100 * med) / quiet).toFixed(1)} % of its ~${quiet} us on a quiet machine`;
}
