/**
 * compose.yaml, the multi-process example: PostgreSQL and two cloudtwin replicas behind one port.
 *
 * 1. The file (on every pass): its services, the replicas' shared database, master key and admin
 *    token, the health conditions, and the proxy's one published port spreading over both.
 * 2. Its cloudtwin services and its proxy configuration, run here (on the PostgreSQL pass, where
 *    there is a database): the official postgres and nginx images cannot be pulled on these
 *    machines, so the replicas run as containers of `cloudtwin:dev` with their compose environment
 *    on the host's network and the suite's PostgreSQL database (each on a port of its own, as
 *    the compose network's names cannot be had there), and the proxy is Debian's nginx running the
 *    compose file's own `stream` block (its upstreams and port pointed at those ports). Through the
 *    one port: health, a key made and seen by both replicas, and connections spread over both.
 *    Where podman or nginx cannot run, this part says so and skips (in CI it must run).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { type Container, containerSetup, runContainer } from '../support/container.ts';
import { ROOT } from '../support/docs.ts';
import { freePort } from '../support/http.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';

const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));
/** `${NAME:-default}` as compose reads it with NAME unset. */
const interpolate = (value: string) => value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');
const NGINX_STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

describe('compose.yaml: PostgreSQL and two cloudtwin replicas behind one port', () => {
  it('declares the services, the replicas sharing database, master key and admin token, and one published port over both', () => {
    const { services, configs } = compose;
    assert.deepEqual(Object.keys(services).sort(), ['cloudtwin-1', 'cloudtwin-2', 'postgres', 'proxy']);
    assert.match(services.postgres.image, /^postgres:\d+/);
    assert.deepEqual(services.postgres.healthcheck.test.slice(0, 2), ['CMD', 'pg_isready']);
    const [one, two] = [services['cloudtwin-1'], services['cloudtwin-2']];
    assert.deepEqual(one, two, 'the replicas are the same service twice');
    assert.equal(one.build, '.');
    assert.equal(one.image, 'cloudtwin:dev');
    assert.deepEqual(one.depends_on, { postgres: { condition: 'service_healthy' } });
    const env = one.environment;
    const db = new URL(env.CLOUDTWIN_DATABASE_URL);
    assert.equal(db.protocol, 'postgres:');
    assert.equal(db.hostname, 'postgres', 'the database is the postgres service');
    assert.equal(`${db.username}:${db.password}${db.pathname}`, `${services.postgres.environment.POSTGRES_USER}:${services.postgres.environment.POSTGRES_PASSWORD}/${services.postgres.environment.POSTGRES_DB}`);
    assert.equal(Buffer.from(interpolate(env.CLOUDTWIN_MASTER_KEY), 'base64').length, 32, 'one master key, 32 bytes');
    assert.ok(interpolate(env.CLOUDTWIN_ADMIN_TOKEN), 'one admin token');
    assert.deepEqual(services.proxy.ports, ['8080:8080']);
    assert.deepEqual(services.proxy.depends_on, { 'cloudtwin-1': { condition: 'service_healthy' }, 'cloudtwin-2': { condition: 'service_healthy' } });
    const nginx = configs[services.proxy.configs[0].source].content as string;
    assert.equal(services.proxy.configs[0].target, '/etc/nginx/nginx.conf');
    assert.deepEqual([...nginx.matchAll(/^\s*server (\S+);/gm)].map((m) => m[1]), ['cloudtwin-1:8080', 'cloudtwin-2:8080']);
    assert.match(nginx, /listen 8080;/);
    assert.match(nginx, /proxy_pass cloudtwin;/);
  });
});

// The run needs a database (the PostgreSQL pass), podman and Debian's nginx with its stream module.
const setup = TEST_STORE !== 'postgres' ? { skip: 'run on the PostgreSQL pass (the replicas share a database)' } : containerSetup();
let skip: string | false = 'skip' in setup ? setup.skip : false;
if (!skip && !existsSync(NGINX_STREAM_MODULE)) skip = 'no nginx with its stream module (apt-get install nginx-light libnginx-mod-stream)';
if (skip && process.env.CI === 'true' && TEST_STORE === 'postgres') throw new Error(`the compose run must run in CI: ${skip}`);
if (skip && TEST_STORE === 'postgres') console.log(`compose run skipped: ${skip}`);

/** One request on a connection of its own (so that the proxy places each anew). */
function call(url: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method: init.method ?? 'GET', agent: false, headers: { ...(init.token && { authorization: `Bearer ${init.token}` }), ...(init.body !== undefined && { 'content-type': 'application/json' }) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(init.body === undefined ? undefined : JSON.stringify(init.body));
  });
}

describe("compose.yaml's replicas and proxy, run here", { skip }, () => {
  const s = setup as { engine: string; image: string };
  const env = compose.services['cloudtwin-1'].environment as Record<string, string>;
  const adminToken = interpolate(env.CLOUDTWIN_ADMIN_TOKEN);
  let db: TestDatabase;
  let dir: string;
  let nginx: ChildProcess;
  const replicas: Container[] = [];
  const replicaUrls: string[] = [];
  let proxy: string;

  before(async () => {
    db = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-compose-'));
    const ports = [await freePort(), await freePort()];
    // one after the other: the first start creates the schema
    for (const [i, port] of ports.entries()) {
      const envArgs = Object.entries({ ...env, CLOUDTWIN_DATABASE_URL: db.url!, CLOUDTWIN_HOST: '127.0.0.1', CLOUDTWIN_PORT: String(port) }).flatMap(([k, v]) => ['-e', `${k}=${interpolate(v)}`]);
      replicas.push(await runContainer(s, `compose-${i + 1}`, ['--network', 'host', ...envArgs], { publish: false }));
      replicaUrls.push(`http://127.0.0.1:${port}`);
      for (let t = 0; ; t++) {
        if ((await call(replicaUrls[i], '/_twin/v1/health').catch(() => ({ status: 0 }))).status === 200) break;
        if (t > 1200) throw new Error(`replica ${i + 1} not healthy:\n${await replicas[i].logs()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const proxyPort = await freePort();
    proxy = `http://127.0.0.1:${proxyPort}`;
    let conf = compose.configs.nginx.content as string;
    conf = conf.replace('server cloudtwin-1:8080;', `server 127.0.0.1:${ports[0]};`).replace('server cloudtwin-2:8080;', `server 127.0.0.1:${ports[1]};`).replace('listen 8080;', `listen 127.0.0.1:${proxyPort};`);
    writeFileSync(join(dir, 'nginx.conf'), `load_module ${NGINX_STREAM_MODULE};\npid ${join(dir, 'nginx.pid')};\n${conf}`);
    execFileSync('nginx', ['-t', '-q', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')]);
    nginx = spawn('nginx', ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    for (let t = 0; (await call(proxy, '/_twin/v1/health').catch(() => ({ status: 0 }))).status !== 200; t++) {
      if (t > 200) throw new Error(`nginx did not pass requests on:\n${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    if (nginx) {
      nginx.kill('SIGQUIT');
      await new Promise((r) => nginx.once('exit', r));
    }
    for (const r of replicas) await r.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('one port, one service: a key made through it is seen by each replica, with the shared admin token and master key', async () => {
    assert.equal((await call(proxy, '/_twin/v1/world:apply', { method: 'POST', token: adminToken, body: testWorld })).status, 200);
    const alice = (await call(proxy, '/_twin/v1/tokens', { method: 'POST', token: adminToken, body: { principal: ALICE } })).body.access_token;
    let op = (await call(proxy, `/v2/projects/${DEMO.projectId}/locations/global/keys?keyId=through-the-proxy`, { method: 'POST', token: alice, body: {} })).body;
    for (let t = 0; !op.done && t < 100; t++) op = (await call(proxy, `/v2/${op.name}`, { token: alice })).body;
    const keyString = op.response.keyString;
    for (const url of replicaUrls) {
      const found = await call(url, `/v2/keys:lookupKey?keyString=${keyString}`, { token: alice });
      assert.equal(found.status, 200, `${url}: ${JSON.stringify(found.body)}`);
      assert.equal(found.body.name, `projects/${DEMO.projectNumber}/locations/global/keys/through-the-proxy`);
    }
  });

  it('connections through the one port are spread over both replicas', async () => {
    const alice = (await call(proxy, '/_twin/v1/tokens', { method: 'POST', token: adminToken, body: { principal: ALICE } })).body.access_token;
    for (const url of replicaUrls) assert.equal((await call(url, '/_twin/v1/requests', { method: 'DELETE', token: adminToken })).status, 200);
    for (let i = 0; i < 10; i++) assert.equal((await call(proxy, `/v2/projects/${DEMO.projectId}/locations/global/keys`, { token: alice })).status, 200);
    const served = await Promise.all(replicaUrls.map(async (url) => (await call(url, '/_twin/v1/requests', { token: adminToken })).body.requests.length));
    assert.equal(served[0] + served[1], 10, `each replica's journal: ${served}`);
    assert.ok(served[0] > 0 && served[1] > 0, `both replicas served some: ${served}`);
  });
});
