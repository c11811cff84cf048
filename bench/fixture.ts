// Benchmark: the in-process fixture (startCloudtwin). Start to ready with a world applied (target
// <= 300 ms), and reset() / restore(snapshot) between tests with a world of 10 projects and 100
// keys (target <= 20 ms each). The first start in a process also loads the modules: reported
// apart. Medians and p90 over BENCH_ROUNDS (default 15) rounds.
//
//   npm run bench:fixture
import { loadavg } from 'node:os';
import { startCloudtwin } from '../src/index.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const ADMIN = 'user:admin@example.com';
const world = {
  organizations: [{ id: '100000000001', domain: 'example.com' }],
  projects: Array.from({ length: 10 }, (_, i) => ({ projectId: `bench-project-${i}`, projectNumber: String(300000000100 + i), parent: 'organizations/100000000001' })),
  iamPolicies: [{ resource: 'organizations/100000000001', bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: [ADMIN] }] }],
};

const ms = (t0: number) => performance.now() - t0;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, min ${s[0].toFixed(1)} ms (${s.length} rounds)`;
};

let t0 = performance.now();
const first = await startCloudtwin({ world });
const firstStart = ms(t0);
await first.stop();

const starts: number[] = [];
for (let i = 0; i < rounds; i++) {
  t0 = performance.now();
  const twin = await startCloudtwin({ world });
  starts.push(ms(t0));
  await twin.stop();
}

// A world of 10 projects and 100 keys (10 per project), the state reset() and restore() bring back.
const twin = await startCloudtwin({ world });
const token = await twin.token(ADMIN);
for (let p = 0; p < 10; p++) {
  await Promise.all(
    Array.from({ length: 10 }, async (_, k) => {
      const res = await fetch(`${twin.url}/v2/projects/bench-project-${p}/locations/global/keys?keyId=key-${k}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      if (res.status !== 200) throw new Error(`key create: ${res.status} ${await res.text()}`);
    }),
  );
}
const snap = await twin.snapshot();
const keys = snap.tables.api_keys?.length ?? 0;
if (keys !== 100) throw new Error(`expected 100 keys in the snapshot, found ${keys}`);
const restores: number[] = [];
const resets: number[] = [];
const snapshots: number[] = [];
for (let i = 0; i < rounds; i++) {
  const created = await fetch(`${twin.url}/v2/projects/bench-project-0/locations/global/keys?keyId=extra`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  if (created.status !== 200) throw new Error(`extra key: ${created.status}`);
  t0 = performance.now();
  await twin.restore(snap);
  restores.push(ms(t0));
  t0 = performance.now();
  await twin.snapshot();
  snapshots.push(ms(t0));
}
for (let i = 0; i < rounds; i++) {
  await twin.restore(snap);
  t0 = performance.now();
  await twin.reset();
  resets.push(ms(t0));
}
await twin.stop();

const load = loadavg().map((l) => l.toFixed(2)).join(' ');
process.stdout.write(
  [
    `bench:fixture (load average ${load})`,
    `  first start in the process (modules loaded too), world of 10 projects: ${firstStart.toFixed(1)} ms`,
    `  start to ready, world of 10 projects (target <= 300 ms): ${stats(starts)}`,
    `  restore(snapshot of 10 projects, 100 keys) (target <= 20 ms): ${stats(restores)}`,
    `  reset() from 10 projects and 100 keys to the world at start (target <= 20 ms): ${stats(resets)}`,
    `  snapshot() of 10 projects and 100 keys: ${stats(snapshots)}`,
    '',
  ].join('\n'),
);
