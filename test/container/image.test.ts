/**
 * The container image (the root Dockerfile), built from the current sources and run as a user
 * runs it: `run -p ... -e CLOUDTWIN_...`, a world by mount, state in a volume, stopped with
 * SIGTERM. Where no container engine can run, the tests say so and skip (in CI they must run).
 * They run once, on the SQLite pass of `npm test`: the image's store is SQLite in /data.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify as toYaml } from 'yaml';
import { type Container, containerSetup, engineOk, engineRun, runContainer, uniqueName } from '../support/container.ts';
import { callJson as call } from '../support/http.ts';
import { TEST_STORE } from '../support/store.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';

const setup = TEST_STORE === 'postgres' ? { skip: 'the container tests run once, on the SQLite pass' } : containerSetup();
const skip = 'skip' in setup ? setup.skip : false;
if (skip && process.env.CI === 'true' && TEST_STORE !== 'postgres') throw new Error(`the container tests must run in CI: ${skip}`);
if (skip) console.log(`container tests skipped: ${skip}`);
const s = setup as { engine: string; image: string; base: string };
const KEYS = `/v2/projects/${DEMO.projectId}/locations/global/keys`;

/** An access token for `principal`, minted with the admin token. */
async function tokenFor(url: string, adminToken: string, principal: string): Promise<string> {
  const minted = await call(url, '/_twin/v1/tokens', { method: 'POST', token: adminToken, body: { principal } });
  assert.equal(minted.status, 200, JSON.stringify(minted.body));
  return minted.body.access_token;
}

/** Creates key `keyId` in demo-project as `token`; its key string. */
async function createKey(url: string, token: string, keyId: string): Promise<string> {
  let op = await call(url, `${KEYS}?keyId=${keyId}`, { method: 'POST', token, body: {} });
  assert.equal(op.status, 200, JSON.stringify(op.body));
  while (!op.body.done) op = await call(url, `/v2/${op.body.name}`, { token });
  return op.body.response.keyString;
}

/** The container's exit code once it has stopped. */
async function exitCode(name: string): Promise<number> {
  return Number(await engineOk(s.engine, ['inspect', '--format', '{{.State.ExitCode}}', name]));
}

describe('the container image', { skip }, () => {
  const containers: Container[] = [];
  const volumes: string[] = [];
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-container-'));
  });
  after(async () => {
    for (const c of containers) await c.remove();
    for (const v of volumes) await engineRun(s.engine, ['volume', 'rm', '-f', v]);
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async (what: string, args: string[] = [], opts?: { waitHealthy: boolean }) => {
    const c = await runContainer(s, what, args, opts);
    containers.push(c);
    return c;
  };

  it('adds at most 80 MB to its Node 24 slim base', async (t) => {
    const [image, base] = await Promise.all([s.image, s.base].map(async (i) => Number(await engineOk(s.engine, ['image', 'inspect', '--format', '{{.Size}}', i]))));
    t.diagnostic(`${s.image}: ${(image / 1e6).toFixed(1)} MB, ${((image - base) / 1e6).toFixed(1)} MB over ${s.base} (${(base / 1e6).toFixed(1)} MB)`);
    assert.ok(image - base <= 80e6, `${((image - base) / 1e6).toFixed(1)} MB over its base`);
  });

  it('declares what a runtime needs: a non-root user, port 8080, the /data volume, a HEALTHCHECK with node, serve as the command', async () => {
    const [image] = JSON.parse(await engineOk(s.engine, ['image', 'inspect', s.image]));
    const config = image.Config;
    // docker keeps the HEALTHCHECK in Config, podman beside it
    const healthcheck = config.Healthcheck ?? image.Healthcheck;
    assert.equal(config.User, '10001:10001');
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), ['8080/tcp']);
    assert.deepEqual(Object.keys(config.Volumes ?? {}), ['/data']);
    assert.deepEqual(healthcheck.Test.slice(0, 2), ['CMD', 'node']);
    assert.match(healthcheck.Test.join(' '), /\/_twin\/v1\/health/);
    assert.equal(config.StopSignal, 'SIGTERM');
    assert.deepEqual(config.Entrypoint, ['node', '/app/bin/cloudtwin.js']);
    assert.deepEqual(config.Cmd, ['serve']);
    for (const env of ['CLOUDTWIN_HOST=0.0.0.0', 'CLOUDTWIN_PORT=8080', 'CLOUDTWIN_DATA_DIR=/data']) assert.ok(config.Env.includes(env), env);
  });

  it('starts healthy, listening on every interface as a non-root user; its HEALTHCHECK passes; the admin token comes from the environment', async (t) => {
    const c = await run('health', ['-e', 'CLOUDTWIN_ADMIN_TOKEN=container-admin-token']);
    t.diagnostic(`healthy ${c.healthyAfterMs} ms after run`);
    const health = await call(c.url, '/_twin/v1/health');
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.store, 'sqlite');
    assert.equal((await call(c.url, '/_twin/v1/clock', { token: 'container-admin-token' })).status, 200, 'the admin token of CLOUDTWIN_ADMIN_TOKEN');
    assert.equal((await call(c.url, '/_twin/v1/clock', { token: 'another-token' })).status, 401);
    const logs = await c.logs();
    assert.match(logs, /^admin token: as given by CLOUDTWIN_ADMIN_TOKEN \(from the environment\)$/m);
    assert.match(logs, /^cloudtwin listening on http:\/\/127\.0\.0\.1:8080 \(all interfaces: 0\.0\.0\.0\)$/m);
    assert.equal(await engineOk(s.engine, ['exec', c.name, 'id', '-u']), '10001', 'the server runs as uid 10001');
    assert.equal(await engineOk(s.engine, ['exec', c.name, 'sh', '-c', 'stat -c %u /proc/1']), '10001', 'PID 1 (the server) is not root');
    assert.equal((await engineRun(s.engine, ['healthcheck', 'run', c.name])).code, 0, 'the HEALTHCHECK passes');
  });

  it('applies a world document mounted at CLOUDTWIN_WORLD; a key is created and used with an access token', async () => {
    const world = join(dir, 'world.yaml');
    writeFileSync(world, toYaml(testWorld));
    const c = await run('world', ['-v', `${world}:/world.yaml:ro`, '-e', 'CLOUDTWIN_WORLD=/world.yaml', '-e', 'CLOUDTWIN_ADMIN_TOKEN=world-admin']);
    const alice = await tokenFor(c.url, 'world-admin', ALICE);
    const keyString = await createKey(c.url, alice, 'in-container');
    assert.match(keyString, /^AIza[0-9A-Za-z_-]{35}$/);
    const lookup = await call(c.url, `/v2/keys:lookupKey?keyString=${keyString}`, { token: alice });
    assert.equal(lookup.status, 200, JSON.stringify(lookup.body));
    assert.equal(lookup.body.name, `projects/${DEMO.projectNumber}/locations/global/keys/in-container`);
  });

  it('keeps its state in the /data volume: the store, the generated admin token and master key survive a restart', async () => {
    const volume = uniqueName('data');
    volumes.push(volume);
    const first = await run('volume-1', ['-v', `${volume}:/data`]);
    const token = /^admin token: (ctadm_\S+) \(kept in \/data\/admin-token\)$/m.exec(await first.logs())?.[1];
    assert.ok(token, await first.logs());
    await call(first.url, '/_twin/v1/world:apply', { method: 'POST', token, body: testWorld });
    const alice = await tokenFor(first.url, token, ALICE);
    const keyString = await createKey(first.url, alice, 'kept');
    await engineOk(s.engine, ['stop', first.name]);
    assert.equal(await exitCode(first.name), 0);

    const second = await run('volume-2', ['-v', `${volume}:/data`]);
    assert.match(await second.logs(), /^admin token: kept in \/data\/admin-token$/m);
    const lookup = await call(second.url, `/v2/keys:lookupKey?keyString=${keyString}`, { token: await tokenFor(second.url, token, ALICE) });
    assert.equal(lookup.status, 200, 'the key made before the restart, found by its key string (sealed with the kept master key)');
    const files = await engineOk(s.engine, ['exec', second.name, 'sh', '-c', 'cd /data && stat -c "%n %a %u" admin-token master.key && stat -c "%n %u" cloudtwin.db']);
    assert.deepEqual(files.split('\n'), ['admin-token 600 10001', 'master.key 600 10001', 'cloudtwin.db 10001']);
  });

  it('CLOUDTWIN_TLS=true: HTTPS with the local CA kept in /data/tls; the HEALTHCHECK follows', async () => {
    const c = await run('tls', ['-e', 'CLOUDTWIN_TLS=true'], { waitHealthy: false });
    const { name } = c;
    const port = new URL(c.url).port;
    let ca = '';
    for (let i = 0; i < 600 && !ca.includes('BEGIN CERTIFICATE'); i++) {
      ca = (await engineRun(s.engine, ['exec', name, 'cat', '/data/tls/ca.pem'])).stdout;
      if (!ca.includes('BEGIN CERTIFICATE')) await new Promise((r) => setTimeout(r, 100));
    }
    const status = await new Promise<number>((resolve, reject) => {
      const attempt = (left: number) =>
        request({ host: '127.0.0.1', port, path: '/_twin/v1/health', ca, servername: 'localhost' }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).on('error', (err) => (left > 0 ? setTimeout(() => attempt(left - 1), 100) : reject(err))).end();
      attempt(100);
    });
    assert.equal(status, 200, 'verified against the CA from the volume');
    assert.equal((await engineRun(s.engine, ['healthcheck', 'run', name])).code, 0, 'the HEALTHCHECK speaks TLS too');
  });

  it('SIGTERM (`stop`) drains a request in flight, and the server, PID 1, exits 0 within 10 s', async () => {
    const c = await run('drain', ['-e', 'CLOUDTWIN_ADMIN_TOKEN=drain-admin', '-e', 'CLOUDTWIN_AUTH=permissive']);
    await call(c.url, '/_twin/v1/faults', { method: 'POST', token: 'drain-admin', body: { match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'latency', delayMs: 2000 } } });
    const slow = call(c.url, KEYS, { token: 'any-token' });
    await new Promise((r) => setTimeout(r, 500));
    const stopping = Date.now();
    const stopped = await engineRun(s.engine, ['stop', '-t', '10', c.name]);
    const stopMs = Date.now() - stopping;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal((await slow).status, 200, 'the request in flight was answered');
    assert.equal(await exitCode(c.name), 0, 'exit 0: not killed after the 10 s grace');
    assert.ok(stopMs < 10_000, `stopped in ${stopMs} ms`);
    assert.match(await c.logs(), /"signal":"SIGTERM","msg":"draining"/);
  });
});
