// Benchmark: what the request journal costs. GET /v2/keys:lookupKey on a server with the journal on
// (the default, 10,000 entries) against one with --journal-size 0, same request, same core layout:
// the server's CPU time per request, on against off (the target: <= 1.05x).
//
//   npm run bench:journal       (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=50)
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
    ['errors + non-2xx', `${journaled.errors + journaled.non2xx} (off ${base.errors + base.non2xx})`],
  ]);
} finally {
  await on.stop();
  await off.stop();
}
