/**
 * Internal IPs under concurrency: many `instances.insert` (and internal `addresses.insert`) into one
 * subnetwork at once, through two `cloudtwin serve` processes on one PostgreSQL database (on
 * SQLite, which allows one process per data directory, through one), never give two resources the
 * same address: allocation is serialised per subnetwork by the store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { CAROL } from '../support/world.ts';
import { P, REGION, computeWorld } from '../http/compute.helpers.ts';

const ZONES = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
const V1 = '/compute/v1';

describe(`internal IPs of concurrent inserts (${TEST_STORE === 'postgres' ? 'two processes on one PostgreSQL database' : 'one process on SQLite'})`, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];
  let token: string;

  const call = async (s: ServerProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(s.url + V1 + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const done = async (s: ServerProcess, method: string, path: string, body?: unknown) => {
    const r = await call(s, method, path, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'DONE', JSON.stringify(r.body));
    assert.equal(r.body.error, undefined, JSON.stringify(r.body));
    return r.body;
  };

  before(async () => {
    db = await freshDatabase();
    // One master key for both processes (the store is sealed with it).
    const env = { CLOUDTWIN_MASTER_KEY: randomBytes(32).toString('base64') };
    servers.push(await startServer({ databaseUrl: db.url, env }));
    if (TEST_STORE === 'postgres') servers.push(await startServer({ databaseUrl: db.url, env }));
    await servers[0].admin('POST', '/_twin/v1/world:apply', computeWorld);
    ({ access_token: token } = await servers[0].admin('POST', '/_twin/v1/tokens', { principal: CAROL, scopes: ['https://www.googleapis.com/auth/cloud-platform'] }));
    await done(servers[0], 'POST', `/projects/${P}/global/networks`, { name: 'race-net', autoCreateSubnetworks: false });
    await done(servers[0], 'POST', `/projects/${P}/regions/${REGION}/subnetworks`, { name: 'race-sub', network: 'global/networks/race-net', ipCidrRange: '10.77.0.0/24' });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const s of servers) s.cleanup();
    await db?.drop();
  });

  it('60 instances and 12 internal addresses inserted at once, alternately through each process: 72 distinct addresses of the range', async () => {
    const vm = (i: number) => ({
      name: `race-${i}`,
      machineType: `zones/${ZONES[i % 3]}/machineTypes/e2-small`,
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
      networkInterfaces: [{ subnetwork: `regions/${REGION}/subnetworks/race-sub` }],
    });
    const inserts = [
      ...Array.from({ length: 60 }, (_, i) => () => call(servers[i % servers.length], 'POST', `/projects/${P}/zones/${ZONES[i % 3]}/instances`, vm(i))),
      ...Array.from({ length: 12 }, (_, i) => () => call(servers[(i + 1) % servers.length], 'POST', `/projects/${P}/regions/${REGION}/addresses`, { name: `race-ip-${i}`, addressType: 'INTERNAL', subnetwork: `regions/${REGION}/subnetworks/race-sub` })),
    ];
    const results = await Promise.all(inserts.map((f) => f()));
    for (const r of results) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.error, undefined, JSON.stringify(r.body));
    }
    const ips: string[] = [];
    for (const zone of ZONES) {
      const { body } = await call(servers[0], 'GET', `/projects/${P}/zones/${zone}/instances?maxResults=500`);
      for (const i of body.items ?? []) if (i.name.startsWith('race-')) ips.push(i.networkInterfaces[0].networkIP);
    }
    const { body: addresses } = await call(servers[servers.length - 1], 'GET', `/projects/${P}/regions/${REGION}/addresses`);
    for (const a of addresses.items ?? []) if (a.name.startsWith('race-')) ips.push(a.address);
    assert.equal(ips.length, 72);
    const seen = new Map<string, number>();
    for (const ip of ips) seen.set(ip, (seen.get(ip) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], `addresses given more than once: ${JSON.stringify(twice)}`);
    for (const ip of ips) assert.match(ip, /^10\.77\.0\.\d+$/);
  });
});
