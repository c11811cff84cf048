// Benchmark: what the request journal costs. GET /v2/keys:lookupKey on a server with the journal on
// (the default, 10,000 entries) against one with --journal-size 0, same request, same core layout:
// the server's CPU time per request, on against off (the target: <= 1.05x). Then the same two
// servers' work without the network, in this process (fastify.inject, 30 interleaved rounds of
// 1,000 calls each): CPU per call on against off, the median of the rounds' ratios, a figure a
// busy machine disturbs far less than the HTTP one (without HTTP parsing the denominator is
// smaller, so the ratio errs on the high side).
//
//   npm run bench:journal       (env: BENCH_SECONDS=10, BENCH_CONNECTIONS=50)
import { createCloudtwin } from '../src/server.ts';
import { ALICE, DEMO, testWorld } from '../test/support/world.ts';
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
    ['in process (inject), CPU per call', await inProcess()],
    ['errors + non-2xx', `${journaled.errors + journaled.non2xx} (off ${base.errors + base.non2xx})`],
  ]);
} finally {
  await on.stop();
  await off.stop();
}

/** lookupKey through `inject` on two in-memory twins, journal off and on, interleaved: the median ratio of CPU per call. */
async function inProcess(): Promise<string> {
  const twins = await Promise.all([createCloudtwin({ auth: 'enforce', adminToken: 't', journalSize: 0 }), createCloudtwin({ auth: 'enforce', adminToken: 't' })]);
  try {
    const calls: (() => Promise<unknown>)[] = [];
    for (const t of twins) {
      const admin = (method: 'POST', url: string, payload: unknown) => t.app.inject({ method, url, payload: payload as object, headers: { authorization: 'Bearer t' } });
      await admin('POST', '/_twin/v1/world:apply', testWorld);
      const token = (await admin('POST', '/_twin/v1/tokens', { principal: ALICE })).json().access_token;
      const op = (await t.app.inject({ method: 'POST', url: `/v2/projects/${DEMO.projectId}/locations/global/keys`, payload: {}, headers: { authorization: `Bearer ${token}` } })).json();
      const url = `/v2/keys:lookupKey?keyString=${encodeURIComponent(op.response.keyString)}`;
      calls.push(() => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } }));
    }
    const N = 1000;
    const round = async (i: number) => {
      const before = process.cpuUsage();
      for (let n = 0; n < N; n++) await calls[i]();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / N;
    };
    for (let w = 0; w < 3; w++) for (const i of [0, 1]) await round(i);
    const ratios: number[] = [];
    const offUs: number[] = [];
    const onUs: number[] = [];
    for (let r = 0; r < 30; r++) {
      const [a, b] = r % 2 ? [await round(1), await round(0)].reverse() : [await round(0), await round(1)];
      offUs.push(a);
      onUs.push(b);
      ratios.push(b / a);
    }
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const sorted = [...ratios].sort((x, y) => x - y);
    return `on ${med(onUs).toFixed(1)} us, off ${med(offUs).toFixed(1)} us: ${med(ratios).toFixed(3)}x median of 30 rounds (quartiles ${sorted[7].toFixed(3)}-${sorted[22].toFixed(3)}; target <= 1.05: ${med(ratios) <= 1.05 ? 'MET' : 'NOT MET'})`;
  } finally {
    for (const t of twins) await t.close();
  }
}
