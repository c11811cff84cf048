// Benchmark: Compute instance templates, regional and global (the same figures for each collection).
// 1. insert of a maximal template (every field set) + wait until DONE, closed loop at
//    concurrency 8 (autocannon, 8 connections): throughput and p50/p99, as a ratio of the same request to a bare fastify
//    route that only parses the body (same process tree, same core layout), and each server's
//    own CPU time per call. Measured in BENCH_RUNS rounds, each a baseline slice then an insert
//    slice: on a shared machine the load moves between two long slices, so the ratio is taken per
//    round (the median and the spread are reported); p50/p99 are over every measured insert.
//    The figure to keep: the insert's throughput as a ratio of the durable floor (below); p99 <= 30 ms.
//    Each round also measures the durable floor (bench/durableFloorServer.ts): the bare route that
//    also stores the parsed body as one row with the store's durability (SQLite, WAL,
//    synchronous=FULL, group commit) before answering. Its ratio to the baseline is the most any
//    insert acknowledged only once durable can reach here, whatever else it does.
//    The same rounds also drive instances.insert from a global template (`?sourceInstanceTemplate=`,
//    a body of its name alone) + wait until DONE: one more slice per round, the same baselines.
// 2. get and list of 1,000 templates in one region, and of 1,000 global ones (list in pages of 500): p50/p99.
// 3. A managed instance group of 100 instances created, resized to 200 and rolled to a new template
//    (a PROACTIVE update with gcloud's defaults), each step until the group is stable: the step's wall time,
//    the server's CPU over it and its calls' p50/p99 (the write, the gets until stable, a
//    listManagedInstances checking the members), in BENCH_MIG_RUNS cycles (a fresh group each, the
//    last one deleted first).
//
//   npm run bench:compute        (env: BENCH_RUNS=3, BENCH_SECONDS=3 per slice, BENCH_CONCURRENCY=8, BENCH_MIG_RUNS=3;
//                                 BENCH_TWIN_ARGS='--in-memory': extra `cloudtwin serve` arguments, e.g. to take the disk out)
import autocannon from 'autocannon';
import { CORA, computeWorld } from '../test/http/compute.helpers.ts';
import { call, cpuMs, deadline, fmt, median, meets, pinSelf, printSummary, printTable, startBaseline, startCloudtwin, startDurableFloor, summarize, usText } from './lib.ts';

deadline(420);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const migRuns = Number(process.env.BENCH_MIG_RUNS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const layout = pinSelf();
const P = 'demo-project';
const REGION = 'us-central1';
const BASE = `/compute/v1/projects/${P}/regions/${REGION}`;
/** The two collections, driven alike. */
const COLLECTIONS = [
  { label: 'regional', base: BASE },
  { label: 'global', base: `/compute/v1/projects/${P}/global` },
] as const;

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

/** The template instances are made from (what `gcloud compute instance-templates create` sends, on a /16 of its own), and its second version. */
const VM_SUBNET = { us: { name: 'bench-vms', region: REGION, range: '10.64.0.0/16' }, eu: { name: 'bench-mig', region: 'europe-west1', range: '10.65.0.0/16' } } as const;
function vmTemplate(name: string, machineType: string, subnet: { name: string; region: string }): Record<string, unknown> {
  return {
    name,
    properties: {
      machineType,
      tags: { items: ['web'] },
      labels: { env: 'bench' },
      metadata: { items: [{ key: 'startup-script', value: '#!/bin/bash\necho hello\n' }] },
      disks: [{ boot: true, autoDelete: true, type: 'PERSISTENT', mode: 'READ_WRITE', initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '10' } }],
      networkInterfaces: [{ subnetwork: `regions/${subnet.region}/subnetworks/${subnet.name}`, accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }] }],
      serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/devstorage.read_only', 'https://www.googleapis.com/auth/logging.write'] }],
      scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true },
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
  // The subnetworks instances are made in, and CORA may run them as the default service account.
  const demoPolicy = computeWorld.iamPolicies.find((p) => p.resource === `projects/${P}`)!;
  await twin.admin('POST', '/_twin/v1/world:apply', {
    iamPolicies: [{ ...demoPolicy, bindings: [...demoPolicy.bindings, { role: 'roles/iam.serviceAccountUser', members: [CORA] }] }],
    compute: { subnetworks: Object.values(VM_SUBNET).map((n) => ({ name: n.name, project: P, region: n.region, network: 'custom-net', ipCidrRange: n.range })) },
  });
  await twin.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  const { access_token: token } = await twin.admin('POST', '/_twin/v1/tokens', { principal: CORA });
  const GLOBAL = `/compute/v1/projects/${P}/global`;
  for (const t of [vmTemplate('bench-vm', 'e2-medium', VM_SUBNET.us), vmTemplate('mig-v1', 'e2-medium', VM_SUBNET.eu), vmTemplate('mig-v2', 'e2-standard-2', VM_SUBNET.eu)]) {
    const op = await call(twin.url, 'POST', `${GLOBAL}/instanceTemplates`, token, t);
    if (op.status !== 'DONE' || op.error) throw new Error(`template ${t.name}: ${JSON.stringify(op)}`);
  }
  for (const c of COLLECTIONS) {
    const check = await call(twin.url, 'POST', `${c.base}/instanceTemplates`, token, maximalTemplate('bench-check'));
    if (check.status !== 'DONE' || check.error) throw new Error(`the maximal template does not insert cleanly (${c.label}): ${JSON.stringify(check)}`);
  }
  const body = JSON.stringify(maximalTemplate('bench-baseline'));
  process.stdout.write(`compute benchmark: insert + wait, ${concurrency} closed loops, ${runs} rounds of a ${seconds} s slice each of the baseline, the durable floor and the insert, after a warm-up of each; ${layout}\n`);

  // In instant mode an insert answers its operation already DONE: that answer is the end of
  // "insert + wait" (a wait call would be made for any other answer, and is refused here instead).
  let seq = 0;
  const insertInto = (base: string) => () =>
    slice(`${twin.url}${base}/instanceTemplates`, twin.pid, { authorization: `Bearer ${token}` }, () => JSON.stringify(maximalTemplate(`b-${seq++}`)), (status, text) => status === 200 && /"status": "DONE"/.test(text) && !/"error"/.test(text));
  const insert = insertInto(BASE);
  const insertGlobal = insertInto(COLLECTIONS[1].base);
  const VM_ZONE = `/compute/v1/projects/${P}/zones/${REGION}-a`;
  let vmSeq = 0;
  const fromTemplate = () =>
    slice(`${twin.url}${VM_ZONE}/instances?sourceInstanceTemplate=global/instanceTemplates/bench-vm`, twin.pid, { authorization: `Bearer ${token}` }, () => JSON.stringify({ name: `vm-${vmSeq++}` }), (status, text) => status === 200 && /"status": "DONE"/.test(text) && !/"error"/.test(text));
  const viaBaseline = () => slice(`${baseline.url}/baseline`, baseline.pid, {}, () => body, (status) => status === 200);
  const viaFloor = () => slice(`${floor.url}/durable`, floor.pid, {}, () => body, (status) => status === 200);
  await viaBaseline();
  await viaFloor();
  await insert();
  await insertGlobal();
  await fromTemplate();
  // Each round: req/s of each, and each server's own CPU time over its slice (from /proc), per call.
  const rounds: { baseRps: number; floorRps: number; insRps: number; gInsRps: number; vmRps: number; vmsAfter: number; baseCpuUs: number; floorCpuUs: number; insCpuUs: number; gInsCpuUs: number; vmCpuUs: number }[] = [];
  const baseResults: LoadResult[] = [];
  const insResults: LoadResult[] = [];
  const gInsResults: LoadResult[] = [];
  const vmResults: LoadResult[] = [];
  for (let r = 0; r < runs; r++) {
    const base = await viaBaseline();
    const fl = await viaFloor();
    const ins = await insert();
    const gIns = await insertGlobal();
    const vm = await fromTemplate();
    rounds.push({ baseRps: base.rps, floorRps: fl.rps, insRps: ins.rps, gInsRps: gIns.rps, vmRps: vm.rps, vmsAfter: vmSeq, baseCpuUs: base.cpuUs, floorCpuUs: fl.cpuUs, insCpuUs: ins.cpuUs, gInsCpuUs: gIns.cpuUs, vmCpuUs: vm.cpuUs });
    baseResults.push(base.result);
    insResults.push(ins.result);
    gInsResults.push(gIns.result);
    vmResults.push(vm.result);
  }
  const latency = (rs: LoadResult[], url: string) => {
    const agg = autocannon.aggregateResult(rs as never, { url, connections: concurrency } as never) as unknown as LoadResult;
    return { n: agg.requests.total, p50: agg.latency.p50, p99: agg.latency.p99 };
  };
  const b = latency(baseResults, baseline.url);
  const s = latency(insResults, twin.url);
  const gs = latency(gInsResults, twin.url);
  const vs = latency(vmResults, twin.url);
  const vmRps = median(rounds.map((r) => r.vmRps));
  const vmCpuUs = median(rounds.map((r) => r.vmCpuUs));
  const vmToFloor = rounds.map((r) => r.vmRps / r.floorRps);
  const ratios = rounds.map((r) => r.insRps / r.baseRps);
  const ratio = median(ratios);
  const floorRatios = rounds.map((r) => r.floorRps / r.baseRps);
  const floorRps = median(rounds.map((r) => r.floorRps));
  const floorCpuUs = median(rounds.map((r) => r.floorCpuUs));
  const baseRps = median(rounds.map((r) => r.baseRps));
  const insRps = median(rounds.map((r) => r.insRps));
  const baseCpuUs = median(rounds.map((r) => r.baseCpuUs));
  const insCpuUs = median(rounds.map((r) => r.insCpuUs));
  const gInsRps = median(rounds.map((r) => r.gInsRps));
  const gInsCpuUs = median(rounds.map((r) => r.gInsCpuUs));
  const toFloor = rounds.map((r) => r.insRps / r.floorRps);
  const gToFloor = rounds.map((r) => r.gInsRps / r.floorRps);
  const spread = (xs: number[], digits: number) => `runs ${xs.map((x) => x.toFixed(digits)).join(', ')}`;

  // get and list of 1,000 templates in a fresh region
  const R2 = 'europe-west1';
  await twin.admin('POST', '/_twin/v1/world:apply', { compute: { subnetworks: [{ name: 'sub-b', project: P, region: R2, network: 'custom-net', ipCidrRange: '10.9.0.0/16' }] } });
  const small = (name: string) => ({ name, properties: { machineType: 'e2-medium', networkInterfaces: [{ subnetwork: `regions/${R2}/subnetworks/sub-b` }], disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }] } });
  const names = Array.from({ length: 1000 }, (_, i) => `t-${String(i).padStart(4, '0')}`);
  // The same 1,000 names in a fresh region and in the global collection of a fresh project (the
  // insert slices filled demo-project's): the same body, its subnetwork named by its region.
  const P2 = 'bench-reads';
  await twin.admin('POST', '/_twin/v1/world:apply', {
    projects: [{ projectId: P2, projectNumber: '399999999999' }],
    iamPolicies: [{ resource: `projects/${P2}`, bindings: [{ role: 'roles/compute.instanceAdmin.v1', members: [CORA] }] }],
    compute: {
      networks: [{ name: 'custom-net', project: P2, autoCreateSubnetworks: false }],
      subnetworks: [{ name: 'sub-b', project: P2, region: R2, network: 'custom-net', ipCidrRange: '10.9.0.0/16' }],
    },
  });
  const readBases = [`/compute/v1/projects/${P}/regions/${R2}`, `/compute/v1/projects/${P2}/global`];
  for (const base of readBases) {
    for (let i = 0; i < names.length; i += 8) {
      await Promise.all(
        names.slice(i, i + 8).map(async (n) => {
          const op = await call(twin.url, 'POST', `${base}/instanceTemplates`, token, small(n));
          if (op.status !== 'DONE' || op.error) throw new Error(`${base}: ${JSON.stringify(op)}`);
        }),
      );
    }
  }
  const timed = async (n: number, fn: (i: number) => Promise<void>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn(i);
      out.push(performance.now() - t0);
    }
    return summarize(out);
  };
  const reads = async (base: string) => {
    const get = await timed(500, async (i) => {
      const t = await call(twin.url, 'GET', `${base}/instanceTemplates/${names[(i * 7) % 1000]}`, token);
      if (!t.name) throw new Error(JSON.stringify(t));
    });
    const list = await timed(40, async () => {
      const first = await call(twin.url, 'GET', `${base}/instanceTemplates?maxResults=500`, token);
      const second = await call(twin.url, 'GET', `${base}/instanceTemplates?maxResults=500&pageToken=${first.nextPageToken}`, token);
      if (first.items.length + second.items.length !== 1000 || second.nextPageToken) throw new Error(`${base}: list did not return 1,000 templates in two pages`);
    });
    return { get, list };
  };
  const { get, list } = await reads(readBases[0]);
  const { get: gGet, list: gList } = await reads(readBases[1]);
  const mig = await migCycles(twin, token);

  printTable('insert (maximal template) + wait until DONE vs baseline', [
    { path: 'baseline: bare fastify POST (parses the body)', calls: b.n, 'req/s (median)': fmt(baseRps, 0), 'p50 ms': fmt(b.p50, 2), 'p99 ms': fmt(b.p99, 2) },
    { path: 'durable floor: bare POST + one durable row', calls: '', 'req/s (median)': fmt(floorRps, 0), 'p50 ms': '', 'p99 ms': '' },
    { path: 'insert + wait (instant operations), regional', calls: s.n, 'req/s (median)': fmt(insRps, 0), 'p50 ms': fmt(s.p50, 2), 'p99 ms': fmt(s.p99, 2) },
    { path: 'insert + wait (instant operations), global', calls: gs.n, 'req/s (median)': fmt(gInsRps, 0), 'p50 ms': fmt(gs.p50, 2), 'p99 ms': fmt(gs.p99, 2) },
    { path: 'instances.insert from a template + wait', calls: vs.n, 'req/s (median)': fmt(vmRps, 0), 'p50 ms': fmt(vs.p50, 2), 'p99 ms': fmt(vs.p99, 2) },
  ]);
  printTable(`a managed instance group, each step until stable (median of ${migRuns} cycles; calls: every call of the step in every cycle)`, mig.map((m) => ({
    step: m.step, 'wall ms': `${fmt(median(m.wallMs), 0)} (${m.wallMs.map((x) => fmt(x, 0)).join(', ')})`, 'server CPU ms': `${fmt(median(m.cpuMs), 0)} (${m.cpuMs.map((x) => fmt(x, 0)).join(', ')})`,
    calls: m.calls.n, 'p50 ms': fmt(m.calls.p50, 2), 'p99 ms': fmt(m.calls.p99, 2), 'write p50 ms': fmt(m.write.p50, 1),
  })));
  printTable('get and list of 1,000 templates', [
    { call: 'regional get (by name)', n: get.n, 'p50 ms': fmt(get.p50, 2), 'p99 ms': fmt(get.p99, 2) },
    { call: 'regional list, 2 pages of 500 (per page)', n: list.n, 'p50 ms': fmt(list.p50 / 2, 2), 'p99 ms': fmt(list.p99 / 2, 2) },
    { call: 'global get (by name)', n: gGet.n, 'p50 ms': fmt(gGet.p50, 2), 'p99 ms': fmt(gGet.p99, 2) },
    { call: 'global list, 2 pages of 500 (per page)', n: gList.n, 'p50 ms': fmt(gList.p50 / 2, 2), 'p99 ms': fmt(gList.p99 / 2, 2) },
  ]);
  printSummary('bench:compute', [
    ['insert+wait / durable floor, regional', `${median(toFloor).toFixed(2)} median of ${runs} rounds (${spread(toFloor, 2)}; ${rounds.map((r) => `${fmt(r.insRps, 0)}/${fmt(r.floorRps, 0)}`).join(', ')} req/s)`],
    ['insert+wait / durable floor, global', `${median(gToFloor).toFixed(2)} median of ${runs} rounds (${spread(gToFloor, 2)}; ${rounds.map((r) => `${fmt(r.gInsRps, 0)}/${fmt(r.floorRps, 0)}`).join(', ')} req/s)`],
    ['insert+wait / baseline throughput', `regional ${ratio.toFixed(2)} (${spread(ratios, 2)}), global ${median(rounds.map((r) => r.gInsRps / r.baseRps)).toFixed(2)}`],
    ['durable floor / baseline throughput', `${median(floorRatios).toFixed(2)} (${spread(floorRatios, 2)}): parse + one durable row, nothing else`],
    ['insert+wait latency', `regional p50 ${fmt(s.p50, 2)} ms, p99 ${fmt(s.p99, 2)} ms (${meets(s.p99, 30)}); global p50 ${fmt(gs.p50, 2)} ms, p99 ${fmt(gs.p99, 2)} ms (${meets(gs.p99, 30)}); target p99 <= 30 ms`],
    ['server CPU per call', `insert+wait regional ${usText(insCpuUs)}, global ${usText(gInsCpuUs)}, durable floor ${usText(floorCpuUs)}, baseline POST ${usText(baseCpuUs)} (${(insCpuUs / baseCpuUs).toFixed(1)}x; medians, ${spread(rounds.map((r) => r.insCpuUs), 0)} us)`],
    ['instances.insert from a template + wait', `${median(vmToFloor).toFixed(2)} of the durable floor (${spread(vmToFloor, 2)}; ${rounds.map((r) => fmt(r.vmRps, 0)).join(', ')} req/s), ${median(rounds.map((r) => r.vmRps / r.baseRps)).toFixed(3)} of the baseline; p50 ${fmt(vs.p50, 2)} ms, p99 ${fmt(vs.p99, 2)} ms; server CPU ${usText(vmCpuUs)} per call (${rounds.map((r) => `${fmt(r.vmCpuUs, 0)} us with ${r.vmsAfter}`).join(', ')} instances in the zone at the round's end)`],
    ...mig.map((m): [string, string] => [`MIG ${m.step}`, `wall ${fmt(median(m.wallMs), 0)} ms, server CPU ${fmt(median(m.cpuMs), 0)} ms (medians of ${migRuns}); ${m.calls.n} calls p50 ${fmt(m.calls.p50, 2)} ms, p99 ${fmt(m.calls.p99, 2)} ms; the write p50 ${fmt(m.write.p50, 1)} ms`]),
    ['get of 1,000', `regional p50 ${fmt(get.p50, 2)} ms, p99 ${fmt(get.p99, 2)} ms; global p50 ${fmt(gGet.p50, 2)} ms, p99 ${fmt(gGet.p99, 2)} ms`],
    ['list page of 500', `regional p50 ${fmt(list.p50 / 2, 2)} ms, p99 ${fmt(list.p99 / 2, 2)} ms; global p50 ${fmt(gList.p50 / 2, 2)} ms, p99 ${fmt(gList.p99 / 2, 2)} ms`],
  ]);
} finally {
  await twin.stop();
  await floor.stop();
  await baseline.stop();
}

/** One step of the MIG cycle as measured: per cycle its wall time and server CPU; its calls' latencies over every cycle. */
interface MigStep {
  step: string;
  wallMs: number[];
  cpuMs: number[];
  calls: ReturnType<typeof summarize>;
  write: ReturnType<typeof summarize>;
}

/**
 * The managed instance group cycle, `migRuns` times, each on a fresh group in europe-west1-b (its
 * own subnetwork, so the instances of part 1 are not in its region): insert of 100 from mig-v1,
 * resize to 200, a PROACTIVE update to mig-v2 (gcloud's `rolling-action start-update`: a patch of
 * the versions and the update type, maxSurge / maxUnavailable left to their defaults), each
 * followed by gets until `status.isStable` and a listManagedInstances that must show every
 * member RUNNING on the step's template; the group is deleted before the next cycle.
 */
async function migCycles(twin: { url: string; pid: number }, token: string): Promise<MigStep[]> {
  const ZONE_BASE = `/compute/v1/projects/${P}/zones/europe-west1-b`;
  const tpl = (name: string) => `https://www.googleapis.com/compute/v1/projects/${P}/global/instanceTemplates/${name}`;
  const steps = ['create 100', 'resize to 200', 'roll 200 to a new template'];
  const wall: number[][] = steps.map(() => []);
  const cpu: number[][] = steps.map(() => []);
  const calls: number[][] = steps.map(() => []);
  const writes: number[][] = steps.map(() => []);
  const timedCall = async (i: number, method: string, path: string, body?: unknown) => {
    const t0 = performance.now();
    const out = await call(twin.url, method, path, token, body);
    calls[i].push(performance.now() - t0);
    return out;
  };
  for (let run = 0; run < migRuns; run++) {
    const group = `${ZONE_BASE}/instanceGroupManagers/bench-mig-${run}`;
    const actions: [number, string, () => Promise<any>][] = [
      [100, 'mig-v1', () => timedCall(0, 'POST', `${ZONE_BASE}/instanceGroupManagers`, { name: `bench-mig-${run}`, baseInstanceName: `mig${run}`, instanceTemplate: tpl('mig-v1'), targetSize: 100 })],
      [200, 'mig-v1', () => timedCall(1, 'POST', `${group}/resize?size=200`)],
      [200, 'mig-v2', () => timedCall(2, 'PATCH', group, { versions: [{ instanceTemplate: tpl('mig-v2') }], updatePolicy: { type: 'PROACTIVE' } })],
    ];
    for (const [i, [size, template, write]] of actions.entries()) {
      const c0 = cpuMs(twin.pid);
      const t0 = performance.now();
      const op = await write();
      writes[i].push(calls[i].at(-1)!);
      if (op.status !== 'DONE' || op.error) throw new Error(`MIG ${steps[i]}: ${JSON.stringify(op)}`);
      while (!(await timedCall(i, 'GET', group)).status?.isStable) await new Promise((r) => setTimeout(r, 20));
      const { managedInstances = [] } = await timedCall(i, 'POST', `${group}/listManagedInstances`);
      wall[i].push(performance.now() - t0);
      cpu[i].push(cpuMs(twin.pid) - c0);
      const settled = managedInstances.filter((m: any) => m.instanceStatus === 'RUNNING' && m.currentAction === 'NONE' && m.version?.instanceTemplate === tpl(template));
      if (managedInstances.length !== size || settled.length !== size) throw new Error(`MIG ${steps[i]}: ${managedInstances.length} members, ${settled.length} RUNNING on ${template}`);
    }
    const del = await call(twin.url, 'DELETE', group, token);
    if (del.status !== 'DONE' || del.error) throw new Error(`MIG delete: ${JSON.stringify(del)}`);
  }
  return steps.map((step, i) => ({ step, wallMs: wall[i], cpuMs: cpu[i], calls: summarize(calls[i]), write: summarize(writes[i]) }));
}
