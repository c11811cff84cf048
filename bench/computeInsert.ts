// Benchmark: Compute regional instance templates.
// 1. insert of a maximal template (every field set) + wait until DONE, closed loop at
//    concurrency 8 (autocannon, 8 connections): throughput and p50/p99, as a ratio of the same request to a bare fastify
//    route that only parses the body (same process tree, same core layout), and each server's
//    own CPU time per call. Measured in BENCH_RUNS rounds, each a baseline slice then an insert
//    slice: on a shared machine the load moves between two long slices, so the ratio is taken per
//    round (the median and the spread are reported); p50/p99 are over every measured insert.
//    Targets: >= 0.3 of the baseline's throughput; p99 <= 30 ms.
//    Each round also measures the durable floor (bench/durableFloorServer.ts): the bare route that
//    also stores the parsed body as one row with the store's durability (SQLite, WAL,
//    synchronous=FULL, group commit) before answering. Its ratio to the baseline is the most any
//    insert acknowledged only once durable can reach here, whatever else it does.
// 2. get and list of 1,000 templates in one region (list in pages of 500): p50/p99.
//
//   npm run bench:compute        (env: BENCH_RUNS=3, BENCH_SECONDS=3 per slice, BENCH_CONCURRENCY=8;
//                                 BENCH_TWIN_ARGS='--in-memory': extra `cloudtwin serve` arguments, e.g. to take the disk out)
import autocannon from 'autocannon';
import { CORA, computeWorld } from '../test/http/compute.helpers.ts';
import { call, cpuMs, deadline, fmt, median, meets, pinSelf, printSummary, printTable, startBaseline, startCloudtwin, startDurableFloor, summarize, usText } from './lib.ts';

deadline(170);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const layout = pinSelf();
const P = 'demo-project';
const REGION = 'us-central1';
const BASE = `/compute/v1/projects/${P}/regions/${REGION}`;

/** A template with every field a client sets (outputs excepted). */
function maximalTemplate(name: string): Record<string, unknown> {
  return {
    name,
    description: 'bench template with every field',
    properties: {
      description: 'instances from the bench',
      tags: { items: ['web', 'https-server', 'bench'] },
      machineType: 'n2-standard-4',
      canIpForward: true,
      labels: { env: 'bench', team: 'compute', tier: 'frontend' },
      minCpuPlatform: 'Intel Ice Lake',
      privateIpv6GoogleAccess: 'INHERIT_FROM_SUBNETWORK',
      keyRevocationActionType: 'NONE',
      resourcePolicies: ['daily-snapshots'],
      resourceManagerTags: { 'tagKeys/123456': 'tagValues/654321' },
      metadata: { items: [{ key: 'startup-script', value: '#!/bin/bash\necho hello\n'.repeat(20) }, { key: 'enable-oslogin', value: 'TRUE' }] },
      disks: [
        {
          boot: true, autoDelete: true, type: 'PERSISTENT', mode: 'READ_WRITE', deviceName: 'boot', interface: 'SCSI',
          initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '50', diskType: 'pd-balanced', labels: { disk: 'boot' }, description: 'boot disk' },
        },
        { autoDelete: true, type: 'PERSISTENT', mode: 'READ_WRITE', deviceName: 'data', initializeParams: { diskSizeGb: '200', diskType: 'pd-ssd', labels: { disk: 'data' } } },
      ],
      networkInterfaces: [
        {
          network: `https://www.googleapis.com/compute/v1/projects/${P}/global/networks/custom-net`,
          subnetwork: `https://www.googleapis.com/compute/v1/projects/${P}/regions/${REGION}/subnetworks/sub-a`,
          stackType: 'IPV4_ONLY',
          nicType: 'GVNIC',
          accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }],
          aliasIpRanges: [{ ipCidrRange: '/24', subnetworkRangeName: 'pods' }],
        },
      ],
      serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
      scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD' },
      reservationAffinity: { consumeReservationType: 'ANY_RESERVATION' },
      shieldedInstanceConfig: { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true },
      advancedMachineFeatures: { enableNestedVirtualization: false, threadsPerCore: 2 },
      networkPerformanceConfig: { totalEgressBandwidthTier: 'DEFAULT' },
    },
  };
}

/** What this bench reads of an autocannon result. */
type LoadResult = { totalCompletedRequests: number; requests: { total: number }; duration: number; latency: { p50: number; p99: number }; errors: number; timeouts: number };

interface Slice {
  /** Completed calls per second. */
  rps: number;
  /** The server's own CPU time per call (us). */
  cpuUs: number;
  result: LoadResult;
}

/**
 * `concurrency` closed loops (autocannon connections, one request in flight each) POSTing a body
 * made per request, for `seconds`; every answer must be `accept`ed (an insert that failed would be
 * cheap and flatter the figures). autocannon, as the other benches use: the first version of this
 * bench drove 8 loops of `fetch`, whose own stalls gave even the bare route a p99 of ~35 ms.
 */
async function slice(url: string, pid: number, headers: Record<string, string>, body: () => string, accept: (status: number, body: string) => boolean): Promise<Slice> {
  let refused = 0;
  const c0 = cpuMs(pid);
  const result = (await autocannon({
    url,
    method: 'POST',
    connections: concurrency,
    duration: seconds,
    // per-slice histograms kept, so the slices of a side are aggregated into one latency distribution
    skipAggregateResult: true,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (req: any) => ({ ...req, body: body() }), onResponse: (status: number, text: string) => void (accept(status, text) || refused++) }],
  } as Parameters<typeof autocannon>[0])) as unknown as LoadResult;
  if (refused || result.errors || result.timeouts) throw new Error(`${url}: ${refused} answers refused, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { rps: result.totalCompletedRequests / result.duration, cpuUs: ((cpuMs(pid) - c0) * 1000) / result.totalCompletedRequests, result };
}

const baseline = await startBaseline();
const floor = await startDurableFloor();
const twin = await startCloudtwin(process.env.BENCH_TWIN_ARGS ? process.env.BENCH_TWIN_ARGS.split(' ') : []);
try {
  await twin.admin('POST', '/_twin/v1/world:apply', computeWorld);
  await twin.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  const { access_token: token } = await twin.admin('POST', '/_twin/v1/tokens', { principal: CORA });
  const check = await call(twin.url, 'POST', `${BASE}/instanceTemplates`, token, maximalTemplate('bench-check'));
  if (check.status !== 'DONE' || check.error) throw new Error(`the maximal template does not insert cleanly: ${JSON.stringify(check)}`);
  const body = JSON.stringify(maximalTemplate('bench-baseline'));
  process.stdout.write(`compute benchmark: insert + wait, ${concurrency} closed loops, ${runs} rounds of a ${seconds} s slice each of the baseline, the durable floor and the insert, after a warm-up of each; ${layout}\n`);

  // In instant mode an insert answers its operation already DONE: that answer is the end of
  // "insert + wait" (a wait call would be made for any other answer, and is refused here instead).
  let seq = 0;
  const insert = () => slice(`${twin.url}${BASE}/instanceTemplates`, twin.pid, { authorization: `Bearer ${token}` }, () => JSON.stringify(maximalTemplate(`b-${seq++}`)), (status, text) => status === 200 && /"status": "DONE"/.test(text) && !/"error"/.test(text));
  const viaBaseline = () => slice(`${baseline.url}/baseline`, baseline.pid, {}, () => body, (status) => status === 200);
  const viaFloor = () => slice(`${floor.url}/durable`, floor.pid, {}, () => body, (status) => status === 200);
  await viaBaseline();
  await viaFloor();
  await insert();
  // Each round: req/s of both, and each server's own CPU time over its slice (from /proc), per call.
  const rounds: { baseRps: number; floorRps: number; insRps: number; baseCpuUs: number; floorCpuUs: number; insCpuUs: number }[] = [];
  const baseResults: LoadResult[] = [];
  const insResults: LoadResult[] = [];
  for (let r = 0; r < runs; r++) {
    const base = await viaBaseline();
    const fl = await viaFloor();
    const ins = await insert();
    rounds.push({ baseRps: base.rps, floorRps: fl.rps, insRps: ins.rps, baseCpuUs: base.cpuUs, floorCpuUs: fl.cpuUs, insCpuUs: ins.cpuUs });
    baseResults.push(base.result);
    insResults.push(ins.result);
  }
  const latency = (rs: LoadResult[], url: string) => {
    const agg = autocannon.aggregateResult(rs as never, { url, connections: concurrency } as never) as unknown as LoadResult;
    return { n: agg.requests.total, p50: agg.latency.p50, p99: agg.latency.p99 };
  };
  const b = latency(baseResults, baseline.url);
  const s = latency(insResults, twin.url);
  const ratios = rounds.map((r) => r.insRps / r.baseRps);
  const ratio = median(ratios);
  const floorRatios = rounds.map((r) => r.floorRps / r.baseRps);
  const floorRps = median(rounds.map((r) => r.floorRps));
  const floorCpuUs = median(rounds.map((r) => r.floorCpuUs));
  const baseRps = median(rounds.map((r) => r.baseRps));
  const insRps = median(rounds.map((r) => r.insRps));
  const baseCpuUs = median(rounds.map((r) => r.baseCpuUs));
  const insCpuUs = median(rounds.map((r) => r.insCpuUs));
  const spread = (xs: number[], digits: number) => `runs ${xs.map((x) => x.toFixed(digits)).join(', ')}`;

  // get and list of 1,000 templates in a fresh region
  const R2 = 'europe-west1';
  await twin.admin('POST', '/_twin/v1/world:apply', { compute: { subnetworks: [{ name: 'sub-b', project: P, region: R2, network: 'custom-net', ipCidrRange: '10.9.0.0/16' }] } });
  const small = (name: string) => ({ name, properties: { machineType: 'e2-medium', networkInterfaces: [{ subnetwork: `regions/${R2}/subnetworks/sub-b` }], disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }] } });
  const names = Array.from({ length: 1000 }, (_, i) => `t-${String(i).padStart(4, '0')}`);
  for (let i = 0; i < names.length; i += 8) await Promise.all(names.slice(i, i + 8).map((n) => call(twin.url, 'POST', `/compute/v1/projects/${P}/regions/${R2}/instanceTemplates`, token, small(n))));
  const timed = async (n: number, fn: (i: number) => Promise<void>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn(i);
      out.push(performance.now() - t0);
    }
    return summarize(out);
  };
  const get = await timed(500, async (i) => {
    const t = await call(twin.url, 'GET', `/compute/v1/projects/${P}/regions/${R2}/instanceTemplates/${names[(i * 7) % 1000]}`, token);
    if (!t.name) throw new Error(JSON.stringify(t));
  });
  const list = await timed(40, async () => {
    const first = await call(twin.url, 'GET', `/compute/v1/projects/${P}/regions/${R2}/instanceTemplates?maxResults=500`, token);
    const second = await call(twin.url, 'GET', `/compute/v1/projects/${P}/regions/${R2}/instanceTemplates?maxResults=500&pageToken=${first.nextPageToken}`, token);
    if (first.items.length + second.items.length !== 1000 || second.nextPageToken) throw new Error('list did not return 1,000 templates in two pages');
  });

  printTable('insert (maximal template) + wait until DONE vs baseline', [
    { path: 'baseline: bare fastify POST (parses the body)', calls: b.n, 'req/s (median)': fmt(baseRps, 0), 'p50 ms': fmt(b.p50, 2), 'p99 ms': fmt(b.p99, 2) },
    { path: 'durable floor: bare POST + one durable row', calls: '', 'req/s (median)': fmt(floorRps, 0), 'p50 ms': '', 'p99 ms': '' },
    { path: 'insert + wait (instant operations)', calls: s.n, 'req/s (median)': fmt(insRps, 0), 'p50 ms': fmt(s.p50, 2), 'p99 ms': fmt(s.p99, 2) },
  ]);
  printTable('get and list of 1,000 templates', [
    { call: 'get (by name)', n: get.n, 'p50 ms': fmt(get.p50, 2), 'p99 ms': fmt(get.p99, 2) },
    { call: 'list, 2 pages of 500 (per page)', n: list.n, 'p50 ms': fmt(list.p50 / 2, 2), 'p99 ms': fmt(list.p99 / 2, 2) },
  ]);
  printSummary('bench:compute', [
    ['insert+wait / baseline throughput', `${ratio.toFixed(2)} median of ${runs} rounds (${spread(ratios, 2)}; ${rounds.map((r) => `${fmt(r.insRps, 0)}/${fmt(r.baseRps, 0)}`).join(', ')} req/s)  target >= 0.3: ${ratio >= 0.3 ? 'MET' : 'NOT MET'}`],
    ['durable floor / baseline throughput', `${median(floorRatios).toFixed(2)} (${spread(floorRatios, 2)}): parse + one durable row, nothing else; insert+wait / floor ${median(rounds.map((r) => r.insRps / r.floorRps)).toFixed(2)}`],
    ['insert+wait latency', `p50 ${fmt(s.p50, 2)} ms, p99 ${fmt(s.p99, 2)} ms (every round)  target p99 <= 30 ms: ${meets(s.p99, 30)}`],
    ['server CPU per call', `insert+wait ${usText(insCpuUs)}, durable floor ${usText(floorCpuUs)}, baseline POST ${usText(baseCpuUs)} (${(insCpuUs / baseCpuUs).toFixed(1)}x; medians, ${spread(rounds.map((r) => r.insCpuUs), 0)} us)`],
    ['get of 1,000', `p50 ${fmt(get.p50, 2)} ms, p99 ${fmt(get.p99, 2)} ms`],
    ['list page of 500', `p50 ${fmt(list.p50 / 2, 2)} ms, p99 ${fmt(list.p99 / 2, 2)} ms`],
  ]);
} finally {
  await twin.stop();
  await floor.stop();
  await baseline.stop();
}
