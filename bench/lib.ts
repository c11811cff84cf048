// Shared pieces of the benchmarks: child processes (cloudtwin and the bare-fastify baseline),
// an autocannon runner, percentiles and a table printer.
//
// Every benchmark measures cloudtwin as a ratio against a baseline run in the same process
// tree (DESIGN.md §5). On Linux with `taskset` the load generator (this process) is pinned
// to CPU 0 and every server child to CPU 1, so "2 cores" means one core each, for cloudtwin
// and for the baseline alike.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { ALICE, DEMO, testWorld } from '../test/support/world.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'cloudtwin.js');
export const BASELINE_SERVER = fileURLToPath(new URL('./baselineServer.ts', import.meta.url));
export const DURABLE_FLOOR_SERVER = fileURLToPath(new URL('./durableFloorServer.ts', import.meta.url));
export const ADMIN_TOKEN = 'bench-admin-token';

// ---- pinning ---------------------------------------------------------------------------------

const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((p) => existsSync(p));
const PIN = TASKSET !== undefined && cpus().length >= 2 && process.env.BENCH_NO_PIN !== '1';
let pinned = false;

/** Pins this process (the load generator) to CPU 0; servers go to CPU 1. */
export function pinSelf(): string {
  if (!PIN) return 'not pinned (no taskset or < 2 CPUs)';
  if (!pinned) {
    try {
      execFileSync(TASKSET!, ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
      pinned = true;
    } catch {
      return 'not pinned (taskset failed)';
    }
  }
  return 'load generator on CPU 0, each server on CPU 1';
}

// ---- child processes -------------------------------------------------------------------------

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** The URL of the ready line (or the whole matched line when there is no URL). */
  url: string;
  /** Milliseconds from spawn to the ready line. */
  readyMs: number;
  /** CPU time (ms) the process had used when its ready line arrived (NaN off Linux). */
  readyCpuMs: number;
  output(): string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** A hard time limit for the whole benchmark: kills every child and exits 1. */
export function deadline(seconds: number): void {
  setTimeout(() => {
    process.stderr.write(`benchmark exceeded its ${seconds} s limit; stopping\n`);
    killAll();
    process.exit(1);
  }, seconds * 1000).unref();
}

export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(d);
  return d;
}

/**
 * Spawns `node <args>` (pinned to CPU 1 when possible) and waits for a stdout line matching
 * `ready`; its first capture group (if any) becomes `url`.
 */
export async function spawnNode(args: string[], ready: RegExp, opts: { pin?: boolean; timeoutMs?: number; env?: NodeJS.ProcessEnv; discardStderr?: boolean } = {}): Promise<Child> {
  const usePin = PIN && opts.pin !== false;
  // BENCH_CPU_PROF=<dir>: cloudtwin and baseline processes write a V8 CPU profile there when they stop (to profile under the bench's load).
  if (process.env.BENCH_CPU_PROF && (args[0] === BIN || args[0] === BASELINE_SERVER || args[0] === DURABLE_FLOOR_SERVER)) args = ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, ...args];
  // BENCH_NODE_ARGS='--trace-gc ...': extra node flags for the cloudtwin process.
  if (process.env.BENCH_NODE_ARGS && args[0] === BIN) args = [...process.env.BENCH_NODE_ARGS.split(' '), ...args];
  const cmd = usePin ? TASKSET! : process.execPath;
  const argv = usePin ? ['-c', '1', process.execPath, ...args] : args;
  const t0 = performance.now();
  // discardStderr: the child's log goes to /dev/null (a request log at info would otherwise be
  // read, and kept, by this process: the load generator).
  const proc = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', opts.discardStderr ? 'ignore' : 'pipe'] });
  children.add(proc);
  let out = '';
  let stdout = '';
  proc.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.on('exit', () => (children.delete(proc), resolve())));
  const { url, readyMs, readyCpuMs } = await new Promise<{ url: string; readyMs: number; readyCpuMs: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')}: no ready line in ${opts.timeoutMs ?? 30_000} ms:\n${out}`)), opts.timeoutMs ?? 30_000);
    proc.stdout!.on('data', (d) => {
      const t = performance.now();
      out += d;
      stdout += d;
      const m = ready.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1] ?? m[0], readyMs: t - t0, readyCpuMs: cpuMs(proc.pid!) });
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${proc.exitCode ?? proc.signalCode}) before it was ready:\n${out}`));
    });
  });
  return {
    proc,
    pid: proc.pid!,
    url,
    readyMs,
    readyCpuMs,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `node <args>` (pinned to CPU 1 when possible) to its exit: wall milliseconds from spawn to exit, and its stdout. A non-zero exit throws. */
export async function runNode(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<{ ms: number; stdout: string }> {
  const cmd = PIN ? TASKSET! : process.execPath;
  const argv = PIN ? ['-c', '1', process.execPath, ...args] : args;
  const t0 = performance.now();
  const proc = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => (children.delete(proc), resolve(c))));
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}`);
  return { ms, stdout };
}

/** `cloudtwin serve --port 0` on SQLite in a fresh temp data dir, with the bench admin token. */
export async function startCloudtwin(extra: string[] = [], opts: { logLevel?: string } = {}): Promise<Child & { admin(method: string, path: string, body?: unknown): Promise<any> }> {
  const dataDir = tempDir('cloudtwin-bench-');
  const logLevel = opts.logLevel ?? 'warn';
  const c = await spawnNode([BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--admin-token', ADMIN_TOKEN, '--log-level', logLevel, ...extra], /cloudtwin listening on (http:\/\/\S+)/, { discardStderr: logLevel !== 'warn' });
  return { ...c, admin: (method, path, body) => call(c.url, method, path, ADMIN_TOKEN, body) };
}

/** The baseline: a bare fastify app in its own process, `GET|POST /baseline` -> a constant. */
export async function startBaseline(opts: { logLevel?: string } = {}): Promise<Child> {
  return spawnNode([BASELINE_SERVER], /baseline listening on (http:\/\/\S+)/, opts.logLevel ? { env: { BASELINE_LOG_LEVEL: opts.logLevel }, discardStderr: true } : {});
}

/** The durable-insert floor (bench/durableFloorServer.ts), `POST /durable`, on a fresh temp directory. */
export async function startDurableFloor(): Promise<Child> {
  return spawnNode([DURABLE_FLOOR_SERVER, tempDir('cloudtwin-floor-')], /durable floor listening on (http:\/\/\S+)/);
}

/** JSON over fetch; throws on a non-2xx answer. */
export async function call(base: string, method: string, path: string, bearer?: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// ---- CPU time and memory of a process (Linux /proc) ---------------------------------------------

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, every thread) a process has used so far, in ms, from
 * `/proc/<pid>/stat` (10 ms ticks), or NaN off Linux. Unlike wall time it does not grow when
 * other work on the machine takes the CPU away, so it is the steady measure on a shared machine.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of stat(5); f[0] is field 3
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** CPU time (ms) so far of each PostgreSQL server process serving `database` on this machine (their process titles name it), by pid. */
function postgresBackendsCpuMs(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
      const cpu = cpuMs(Number(pid));
      if (Number.isFinite(cpu)) out.set(Number(pid), cpu);
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/**
 * A meter of the CPU time of the PostgreSQL server processes serving `database` on this machine:
 * each call gives the ms they used since the meter was made, or NaN when there are none to see
 * (a server elsewhere, off Linux). Each backend counts from its own reading when the meter was
 * made (0 for one started since); one that ended meanwhile is not counted. A sum of all
 * backends at two times went below zero when a pool closed a connection in between (its whole
 * life's CPU left the second sum).
 */
export function postgresCpuMeter(database: string): () => number {
  const start = postgresBackendsCpuMs(database);
  return () => {
    const now = postgresBackendsCpuMs(database);
    let ms = 0;
    for (const [pid, cpu] of now) {
      const since = cpu - (start.get(pid) ?? 0);
      // (below zero: another process took an ended backend's pid)
      ms += since >= 0 ? since : cpu;
    }
    return now.size ? ms : NaN;
  };
}

/** VmRSS of a process in MiB (Linux /proc), or NaN elsewhere. */
export function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export const median = (xs: number[]): number => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** "1.84x (runs 1.70-2.10)": the median of per-run ratios and their spread. */
export function spreadText(ratios: number[], digits = 2): string {
  const r = ratios.filter(Number.isFinite);
  if (r.length === 0) return 'n/a (no /proc)';
  return `${median(r).toFixed(digits)}x  (runs ${Math.min(...r).toFixed(digits)}-${Math.max(...r).toFixed(digits)})`;
}

/** "MET" / "NOT MET" against an upper bound. */
export const meets = (value: number, max: number): string => (Number.isFinite(value) ? (value <= max ? 'MET' : 'NOT MET') : 'not measured');

// ---- load ------------------------------------------------------------------------------------

export interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** The server process: its CPU time over the measured slices gives the CPU time per request. */
  pid?: number;
}

export interface LoadResult {
  name: string;
  /** Completed requests over measured seconds. */
  reqPerSec: number;
  /** Latency percentiles (ms) over every measured request. */
  p50: number;
  p99: number;
  requests: number;
  seconds: number;
  errors: number;
  non2xx: number;
  /** The server's own CPU time (user + system) per completed request, in microseconds (NaN without a pid or /proc). */
  cpuUsPerRequest: number;
}

type RawRun = { totalCompletedRequests: number; duration: number; errors: number; timeouts: number; non2xx: number; serverCpuMs: number };

async function runRaw(t: Target, connections: number, seconds: number, overallRate?: number): Promise<RawRun> {
  const cpu0 = t.pid ? cpuMs(t.pid) : NaN;
  const r = (await (autocannon({ url: t.url, headers: t.headers, connections, duration: seconds, overallRate, skipAggregateResult: true } as Parameters<typeof autocannon>[0]) as unknown as Promise<RawRun>)) as RawRun;
  r.serverCpuMs = t.pid ? cpuMs(t.pid) - cpu0 : NaN;
  return r;
}

function merge(t: Target, runs: RawRun[], connections: number): LoadResult {
  const agg = autocannon.aggregateResult(runs, { url: t.url, connections });
  const requests = runs.reduce((a, r) => a + r.totalCompletedRequests, 0);
  const seconds = runs.reduce((a, r) => a + r.duration, 0);
  return {
    name: t.name,
    reqPerSec: requests / seconds,
    p50: agg.latency.p50,
    p99: agg.latency.p99,
    requests,
    seconds,
    errors: agg.errors + agg.timeouts,
    non2xx: agg.non2xx,
    cpuUsPerRequest: (runs.reduce((a, r) => a + r.serverCpuMs, 0) * 1000) / requests,
  };
}

/** The route answers 2xx before it is loaded (a failing route would measure the error path). */
async function probe(t: Target): Promise<void> {
  const res = await fetch(t.url, { headers: t.headers });
  const body = await res.text();
  if (!res.ok) throw new Error(`${t.name}: ${t.url} -> ${res.status}: ${body}`);
}

/** autocannon against one target: a warm-up (discarded), then the measured run. */
export async function load(t: Target, o: { connections?: number; seconds?: number; warmupSeconds?: number } = {}): Promise<LoadResult> {
  const connections = o.connections ?? 50;
  await probe(t);
  await runRaw(t, connections, o.warmupSeconds ?? 2);
  return merge(t, [await runRaw(t, connections, o.seconds ?? 10)], connections);
}

export interface Comparison {
  baseline: LoadResult;
  target: LoadResult;
  /** target req/s over baseline req/s, both summed over all slices. */
  ratio: number;
  /** The ratio of each round (one baseline slice, one target slice): its spread shows how steady the machine was. */
  roundRatios: number[];
  /** Target's server CPU time per request over baseline's (lower is better; 1 = as cheap as a bare route). */
  cpuRatio: number;
  cpuRoundRatios: number[];
  /**
   * The same CPU comparison with both servers serving the same request rate (`equalRate` req/s,
   * below what either can serve), in alternating slices. At saturation each server's CPU per
   * request also depends on how busy the load generator is: the faster server finds the client
   * busy, the slower one finds it waiting and pays for waking it in every socket write. At one
   * rate both see the same client, so only the work per request differs.
   */
  equalRate: number;
  equalRateBaselineCpuUs: number;
  equalRateTargetCpuUs: number;
  equalRateCpuRatio: number;
  equalRateRoundRatios: number[];
}

/**
 * Baseline and target, each warmed up, then measured in alternating slices (`rounds` of
 * `seconds / rounds` each, so each gets `seconds` in all). Load from elsewhere on the machine
 * that comes and goes then hits both about equally instead of skewing the ratio.
 */
export async function compare(baseline: Target, target: Target, o: { connections: number; seconds: number; rounds?: number; warmupSeconds?: number; equalRate?: boolean }): Promise<Comparison> {
  const rounds = o.rounds ?? 10;
  const slice = Math.max(1, Math.round(o.seconds / rounds));
  await probe(baseline);
  await probe(target);
  await runRaw(baseline, o.connections, o.warmupSeconds ?? 2);
  await runRaw(target, o.connections, o.warmupSeconds ?? 2);
  const b: RawRun[] = [];
  const t: RawRun[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await runRaw(baseline, o.connections, slice));
    t.push(await runRaw(target, o.connections, slice));
  }
  const rate = (r: RawRun) => r.totalCompletedRequests / r.duration;
  const B = merge(baseline, b, o.connections);
  const T = merge(target, t, o.connections);
  const cpuPerReq = (r: RawRun) => r.serverCpuMs / r.totalCompletedRequests;
  // Equal rate: 70 % of what the slower of the two served, for both.
  const equalRate = Math.max(100, Math.round(0.7 * Math.min(B.reqPerSec, T.reqPerSec)));
  const eb: RawRun[] = [];
  const et: RawRun[] = [];
  for (let i = 0; o.equalRate && i < Math.max(4, Math.round(rounds / 2)); i++) {
    eb.push(await runRaw(baseline, o.connections, slice, equalRate));
    et.push(await runRaw(target, o.connections, slice, equalRate));
  }
  const EB = eb.length ? merge(baseline, eb, o.connections) : { cpuUsPerRequest: NaN };
  const ET = et.length ? merge(target, et, o.connections) : { cpuUsPerRequest: NaN };
  return {
    equalRate,
    equalRateBaselineCpuUs: EB.cpuUsPerRequest,
    equalRateTargetCpuUs: ET.cpuUsPerRequest,
    equalRateCpuRatio: ET.cpuUsPerRequest / EB.cpuUsPerRequest,
    equalRateRoundRatios: eb.map((r, i) => cpuPerReq(et[i]) / cpuPerReq(r)),
    baseline: B,
    target: T,
    ratio: T.reqPerSec / B.reqPerSec,
    roundRatios: b.map((r, i) => rate(t[i]) / rate(r)),
    cpuRatio: T.cpuUsPerRequest / B.cpuUsPerRequest,
    cpuRoundRatios: b.map((r, i) => cpuPerReq(t[i]) / cpuPerReq(r)),
  };
}

/** "0.52 (rounds 0.48-0.57)" */
export function ratioText(c: Comparison): string {
  return `${c.ratio.toFixed(2)}  (per round ${Math.min(...c.roundRatios).toFixed(2)}-${Math.max(...c.roundRatios).toFixed(2)}; target >= 0.50: ${c.ratio >= 0.5 ? 'MET' : 'NOT MET'})`;
}

/** "2.10x (per round 1.9-2.3; target <= 1.6: NOT MET)": server CPU time per request, target over baseline. */
export function cpuRatioText(c: Comparison, max = 1.6): string {
  const r = c.cpuRoundRatios.filter(Number.isFinite);
  if (!Number.isFinite(c.cpuRatio)) return 'not measured (no server pid or no /proc)';
  return `${c.cpuRatio.toFixed(2)}x  (per round ${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)}; target <= ${max}: ${meets(c.cpuRatio, max)})`;
}

/** The equal-rate CPU comparison: "1.52x at 14,000 req/s each (21.0 us vs 13.8 us; per round 1.4-1.7; target <= 1.6: MET)". */
export function equalRateCpuText(c: Comparison, max = 1.6): string {
  const r = c.equalRateRoundRatios.filter(Number.isFinite);
  if (!Number.isFinite(c.equalRateCpuRatio)) return 'not measured (no server pid or no /proc)';
  return `${c.equalRateCpuRatio.toFixed(2)}x at ${c.equalRate.toLocaleString('en-US')} req/s each (${usText(c.equalRateTargetCpuUs)} vs ${usText(c.equalRateBaselineCpuUs)}; per round ${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)}; target <= ${max}: ${meets(c.equalRateCpuRatio, max)})`;
}

/** "125.3 us" */
export const usText = (us: number): string => (Number.isFinite(us) ? `${us.toFixed(1)} us` : 'n/a');

// ---- statistics and printing -----------------------------------------------------------------

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples: number[]): { n: number; p50: number; p99: number; mean: number; min: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length, min: s[0], max: s[s.length - 1] };
}

export const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : String(n));

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const cell = (v: string | number) => (typeof v === 'number' ? fmt(v) : v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? '').length)));
  const line = (vals: string[]) => vals.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  process.stdout.write(`\n${title}\n${line(cols)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows) process.stdout.write(line(cols.map((c) => cell(r[c] ?? ''))) + '\n');
}

const loadAtStart = loadavg()[0];

/** CPU count and the 1-minute load average at start and now: a busy machine makes every figure noisier. */
export function machineLine(): [string, string] {
  return ['machine', `${cpus().length} CPUs; load average (1 min) ${loadAtStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`];
}

/** The final block every benchmark ends with: `label: value` lines between rulers. */
export function printSummary(title: string, lines: [string, string][]): void {
  const w = Math.max(...lines.map(([k]) => k.length), 'machine'.length);
  const rule = '='.repeat(72);
  process.stdout.write(`\n${rule}\nSUMMARY ${title}\n${rule}\n`);
  lines = [...lines, machineLine()];
  for (const [k, v] of lines) process.stdout.write(`${k.padEnd(w)}  ${v}\n`);
  process.stdout.write(`${rule}\n`);
}

export function loadRows(results: LoadResult[], baseline: LoadResult): Record<string, string | number>[] {
  return results.map((r) => ({
    target: r.name,
    'req/s': r.reqPerSec,
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    requests: String(r.requests),
    's': r.seconds.toFixed(1),
    'errors+non2xx': String(r.errors + r.non2xx),
    'ratio vs baseline': r === baseline ? '1.00' : (r.reqPerSec / baseline.reqPerSec).toFixed(2),
    'server CPU us/req': usText(r.cpuUsPerRequest),
    'CPU vs baseline': r === baseline ? '1.00x' : (r.cpuUsPerRequest / baseline.cpuUsPerRequest).toFixed(2) + 'x',
  }));
}

/** Applies the test world, creates a key (instant operations) and mints a token for ALICE. */
export async function prepareKey(twin: Child & { admin(m: string, p: string, b?: unknown): Promise<any> }, body: unknown = { displayName: 'bench' }): Promise<{ token: string; keyString: string; keyName: string }> {
  await twin.admin('POST', '/_twin/v1/world:apply', testWorld);
  await twin.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
  const { access_token: token } = await twin.admin('POST', '/_twin/v1/tokens', { principal: ALICE });
  let op = await call(twin.url, 'POST', `/v2/projects/${DEMO.projectId}/locations/global/keys`, token, body);
  for (let i = 0; !op.done && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20));
    op = await call(twin.url, 'GET', `/v2/${op.name}`, token);
  }
  if (!op.done || !op.response?.keyString) throw new Error(`key creation did not finish: ${JSON.stringify(op)}`);
  return { token, keyString: op.response.keyString, keyName: op.response.name };
}
