// The command test/compat/exec.test.ts runs under `cloudtwin exec`: it does one thing against the
// server its environment names and reports what it saw (JSON in a file, or lines on stdout).
//
//   report OUT                the environment's CLOUDTWIN_* and gcloud overrides, health, an admin call
//   create-key OUT KEY_ID     as alice, creates an API key in demo-project (the world is given to exec)
//   list-keys OUT             as alice, the ids of demo-project's keys
//   fail CODE                 a health request, then exit CODE
//   trap                      prints `trapping`; on SIGTERM, SIGINT or SIGHUP prints `got SIGNAL` and exits 0
//   kill-self SIGNAL          kills itself with SIGNAL
//   leave-slow-request OUT    starts a 1.5 s keys.list call in a process of its own, exits while it runs;
//                             that process writes {status, url} to OUT when the answer comes
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';

const [mode, ...args] = process.argv.slice(2);
const env = process.env;
const url = env.CLOUDTWIN_URL;
const admin = { authorization: `Bearer ${env.CLOUDTWIN_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const KEYS = '/v2/projects/demo-project/locations/global/keys';

async function call(path, init = {}) {
  const res = await fetch(url + path, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function aliceToken() {
  const minted = await call('/_twin/v1/tokens', { method: 'POST', headers: admin, body: JSON.stringify({ principal: 'user:alice@example.com' }) });
  return { authorization: `Bearer ${minted.body.access_token}`, 'content-type': 'application/json' };
}

const seenEnv = () => Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('CLOUDTWIN_') || k.startsWith('CLOUDSDK_API_ENDPOINT_OVERRIDES_')));
const health = async () => {
  const h = await call('/_twin/v1/health');
  return { status: h.status, store: h.body.store };
};

switch (mode) {
  case 'report': {
    const adminStatus = (await call('/_twin/v1/clock', { headers: admin })).status;
    writeFileSync(args[0], JSON.stringify({ env: seenEnv(), health: await health(), adminStatus }));
    break;
  }
  case 'create-key': {
    const alice = await aliceToken();
    let op = (await call(`${KEYS}?keyId=${args[1]}`, { method: 'POST', headers: alice, body: '{}' })).body;
    while (!op.done) op = (await call(`/v2/${op.name}`, { headers: alice })).body;
    const keyString = (await call(`${KEYS}/${args[1]}/keyString`, { headers: alice })).body.keyString;
    writeFileSync(args[0], JSON.stringify({ env: seenEnv(), health: await health(), keyString }));
    break;
  }
  case 'list-keys': {
    const listed = await call(KEYS, { headers: await aliceToken() });
    writeFileSync(args[0], JSON.stringify({ keys: (listed.body.keys ?? []).map((k) => k.name.split('/').pop()) }));
    break;
  }
  case 'fail':
    await call('/_twin/v1/health');
    process.exit(Number(args[0]));
    break;
  case 'trap':
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
      process.on(signal, () => {
        process.stdout.write(`got ${signal}\n`);
        process.exit(0);
      });
    }
    process.stdout.write('trapping\n');
    setInterval(() => {}, 1000);
    break;
  case 'kill-self':
    process.kill(process.pid, args[0]);
    break;
  case 'leave-slow-request': {
    await call('/_twin/v1/faults', { method: 'POST', headers: admin, body: JSON.stringify({ match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'latency', delayMs: 1500 } }) });
    const sent = `${args[0]}.sent`;
    const alice = await aliceToken();
    spawn(process.execPath, [process.argv[1], 'slow-request', args[0], alice.authorization], { detached: true, stdio: 'ignore' }).unref();
    while (!existsSync(sent)) await new Promise((r) => setTimeout(r, 20));
    rmSync(sent);
    // the server has read the request by now: it is in flight when this command ends
    await new Promise((r) => setTimeout(r, 300));
    break;
  }
  case 'slow-request': {
    const req = request(url + KEYS, { headers: { authorization: args[1] } }, (res) => {
      res.resume();
      res.on('end', () => writeFileSync(args[0], JSON.stringify({ status: res.statusCode, url })));
    });
    req.on('finish', () => writeFileSync(`${args[0]}.sent`, ''));
    req.on('error', (err) => writeFileSync(args[0], JSON.stringify({ status: 0, error: String(err), url })));
    req.end();
    break;
  }
  default:
    throw new Error(`unknown mode ${mode}`);
}
