/**
 * Compatibility: the real Google Cloud CLI (`gcloud services api-keys ...`, `gcloud services
 * operations ...`) against a `cloudtwin serve` process, configured only as a user would:
 * `api_endpoint_overrides/apikeys` and an access-token file from the admin API. Commands run in
 * parallel, each with a gcloud configuration directory of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gcloud, type GcloudResult, gcloudAvailable } from '../support/gcloud.ts';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';
import { ALICE, BOB, BOUND_OK, BOUND_SA, DEMO, LOOSE, MALLORY, testWorld } from '../support/world.ts';

const KEY_STRING = /^AIza[0-9A-Za-z_-]{35}$/;
const keyName = (id: string, projectNumber = DEMO.projectNumber) => `projects/${projectNumber}/locations/global/keys/${id}`;
const SHA1 = 'DA:39:A3:EE:5E:6B:4B:0D:32:55:BF:EF:95:60:18:90:AF:D8:07:09';
const SHA1_NORMALIZED = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709';

/** Asserts a successful command; returns its parsed JSON. */
function ok(r: GcloudResult): any {
  assert.equal(r.code, 0, `${r.command} exited ${r.code}:\n${r.stderr}`);
  return r.json;
}

/** Asserts a failed command whose error line (what gcloud prints) matches. */
function fails(r: GcloudResult, status: string, message: RegExp): string {
  assert.notEqual(r.code, 0, `${r.command} should fail:\n${r.stdout}`);
  const line = r.stderr.split('\n').find((l) => l.startsWith('ERROR:')) ?? '';
  assert.match(line, new RegExp(`^ERROR: \\(gcloud\\.[a-z.-]+\\) ${status}: `), r.stderr);
  assert.match(line, message, r.stderr);
  return line;
}

/** `services operations wait|describe` print the finished operation's response on stderr (and nothing on stdout). */
function printedResult(r: GcloudResult, name: string): any {
  assert.equal(r.code, 0, `${r.command} exited ${r.code}:\n${r.stderr}`);
  const at = r.stderr.indexOf(`Operation [${name}] complete. Result: `);
  assert.ok(at >= 0, r.stderr);
  return JSON.parse(r.stderr.slice(r.stderr.indexOf('{', at)));
}

/** The finished operation gcloud returns for a mutation: done, no error, the Key as response. */
function finishedKey(r: GcloudResult): any {
  const op = ok(r);
  assert.match(op.name, /^operations\/akmf\.p\d+-\d+-[0-9a-f-]{36}$/);
  assert.equal(op.done, true);
  assert.equal(op.error, undefined);
  assert.equal(op.response['@type'], 'type.googleapis.com/google.api.apikeys.v2.Key');
  assert.match(r.stderr, /Operation \[operations\/akmf\.[^\]]+\] complete\. Result:/);
  return op.response;
}

/** A `cloudtwin serve` on the suite's store with the test world, and a gcloud user (Alice) of it. */
interface GcloudTwin {
  server: ServerProcess;
  g: Gcloud;
  /** A REST call as Alice (to set up and to check what gcloud did, without gcloud's start-up cost). */
  rest(method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

async function startGcloudTwin(): Promise<GcloudTwin> {
  const db: TestDatabase = await freshDatabase();
  const server = await startServer({ databaseUrl: db.url });
  await server.admin('POST', '/_twin/v1/world:apply', testWorld);
  const token = (await server.admin('POST', '/_twin/v1/tokens', { principal: ALICE })).access_token;
  const g = new Gcloud({ url: server.url, adminToken: server.adminToken, project: DEMO.projectId }, ALICE);
  return {
    server,
    g,
    async rest(method, path, body) {
      const res = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const data = await res.json();
      assert.ok(res.ok, `${method} ${path}: ${JSON.stringify(data)}`);
      return data;
    },
    async close() {
      await server.stop();
      server.cleanup();
      await db.drop();
      g.cleanup();
    },
  };
}

if (gcloudAvailable('gcloud services api-keys')) {
  describe('gcloud', { concurrency: true }, () => {
    describe('gcloud services api-keys against cloudtwin serve', { concurrency: 4 }, () => {
      let tw: GcloudTwin;
      let g: Gcloud;
      const rest = (method: string, path: string, body?: unknown) => tw.rest(method, path, body);
      const seed = async (id: string, key: Record<string, unknown> = {}, project = DEMO.projectId) => {
        const op = await rest('POST', `/v2/projects/${project}/locations/global/keys?keyId=${id}`, key);
        assert.equal(op.done, true);
        return op.response;
      };
      const getKey = (id: string, project = DEMO.projectId) => rest('GET', `/v2/projects/${project}/locations/global/keys/${id}`);

      before(async () => {
        tw = await startGcloudTwin();
        g = tw.g;
        const restricted = { displayName: 'Seeded', annotations: { team: 'a' }, restrictions: { browserKeyRestrictions: { allowedReferrers: ['seed.example.com/*'] }, apiTargets: [{ service: 'translate.googleapis.com' }] } };
        await Promise.all([
          ...['describe-me', 'del-me', 'undel-by-string'].map((id) => seed(id, restricted)),
          ...['display-name', 'annotations', 'referrers', 'ips', 'bundles', 'android', 'targets', 'clear-r', 'clear-a', 'several', 'bad-update'].map((id) => seed(`up-${id}`, restricted)),
        ]);
        // The list project: five live keys and a deleted one.
        for (let i = 1; i <= 6; i++) await seed(`listed-${i}`, { displayName: `Listed ${i}` }, LOOSE.projectId);
        await rest('DELETE', `/v2/projects/${LOOSE.projectId}/locations/global/keys/listed-6`);
      });

      after(() => tw?.close());

      // ---- create ------------------------------------------------------------------------------

      test('create --key-id --display-name --annotations --allowed-referrers: the key gcloud prints is the stored key', async () => {
        const k = finishedKey(await g.run(['services', 'api-keys', 'create', '--key-id=cr-browser', '--display-name=Browser key', '--annotations=team=web,cost-center=42', '--allowed-referrers=https://www.example.com/*,http://sub.example.com/*']));
        assert.equal(k.name, keyName('cr-browser'));
        assert.match(k.keyString, KEY_STRING);
        assert.equal(k.displayName, 'Browser key');
        assert.deepEqual(k.annotations, { team: 'web', 'cost-center': '42' });
        assert.deepEqual(k.restrictions, { browserKeyRestrictions: { allowedReferrers: ['https://www.example.com/*', 'http://sub.example.com/*'] } });
        const { keyString, '@type': _, ...stored } = k;
        assert.deepEqual(await getKey('cr-browser'), stored);
      });

      test('create --allowed-ips', async () => {
        const k = finishedKey(await g.run(['services', 'api-keys', 'create', '--key-id=cr-server', '--allowed-ips=2620:15c:2c4:203:2776:1f90:6b3b:217,104.133.8.78,10.0.0.0/8']));
        assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['2620:15c:2c4:203:2776:1f90:6b3b:217', '104.133.8.78', '10.0.0.0/8'] } });
      });

      test('create --allowed-application (twice), fingerprints with colons', async () => {
        const k = finishedKey(
          await g.run(['services', 'api-keys', 'create', '--key-id=cr-android', `--allowed-application=sha1_fingerprint=${SHA1},package_name=com.example.one`, `--allowed-application=sha1_fingerprint=${SHA1_NORMALIZED.toLowerCase()},package_name=com.example.two`]),
        );
        assert.deepEqual(k.restrictions, {
          androidKeyRestrictions: {
            allowedApplications: [
              { sha1Fingerprint: SHA1_NORMALIZED, packageName: 'com.example.one' },
              { sha1Fingerprint: SHA1_NORMALIZED, packageName: 'com.example.two' },
            ],
          },
        });
      });

      test('create --allowed-bundle-ids and --api-target=service=... (repeated)', async () => {
        const k = finishedKey(await g.run(['services', 'api-keys', 'create', '--key-id=cr-ios', '--allowed-bundle-ids=com.example.app,com.example.other', '--api-target=service=translate.googleapis.com', '--api-target=service=youtube.googleapis.com']));
        assert.deepEqual(k.restrictions, {
          iosKeyRestrictions: { allowedBundleIds: ['com.example.app', 'com.example.other'] },
          apiTargets: [{ service: 'translate.googleapis.com' }, { service: 'youtube.googleapis.com' }],
        });
      });

      test('create --flags-file with --api-target service and methods (the way gcloud takes methods)', async () => {
        const flags = '- --api-target:\n    service: "translate.googleapis.com"\n    methods:\n    - "Get*"\n    - "google.cloud.translate.v2.TranslateService.Translate"\n- --key-id: cr-methods\n';
        const k = finishedKey(await g.run(['services', 'api-keys', 'create', '--flags-file={dir}/flags.yaml'], { files: { 'flags.yaml': flags } }));
        assert.equal(k.name, keyName('cr-methods'));
        assert.deepEqual(k.restrictions, { apiTargets: [{ service: 'translate.googleapis.com', methods: ['Get*', 'google.cloud.translate.v2.TranslateService.Translate'] }] });
      });

      test('create --service-account: a key bound to a service account', async () => {
        const k = finishedKey(await g.run(['services', 'api-keys', 'create', `--project=${BOUND_OK.projectId}`, '--key-id=cr-bound', `--service-account=${BOUND_SA}`, '--allowed-ips=192.0.2.1']));
        assert.equal(k.name, keyName('cr-bound', BOUND_OK.projectNumber));
        assert.equal(k.serviceAccountEmail, BOUND_SA);
        assert.equal((await getKey('cr-bound', BOUND_OK.projectId)).serviceAccountEmail, BOUND_SA);
      });

      test('create with no flags: a key with a generated id', async () => {
        const k = finishedKey(await g.run(['services', 'api-keys', 'create']));
        assert.match(k.name, /^projects\/300000000001\/locations\/global\/keys\/[0-9a-f-]{36}$/);
        assert.equal(k.restrictions, undefined);
      });

      // ---- read --------------------------------------------------------------------------------

      test('describe (by id and by full name) prints the key', async () => {
        const [byId, byName] = await Promise.all([g.run(['services', 'api-keys', 'describe', 'describe-me']), g.run(['services', 'api-keys', 'describe', `projects/${DEMO.projectId}/locations/global/keys/describe-me`])]);
        const stored = await getKey('describe-me');
        assert.deepEqual(ok(byId), stored);
        assert.deepEqual(ok(byName), stored);
      });

      test('get-key-string and lookup', async () => {
        const ks = ok(await g.run(['services', 'api-keys', 'get-key-string', 'describe-me'])).keyString;
        assert.match(ks, KEY_STRING);
        assert.deepEqual(ok(await g.run(['services', 'api-keys', 'lookup', ks])), { name: keyName('describe-me'), parent: `projects/${DEMO.projectNumber}/locations/global` });
      });

      test('list, list --show-deleted, --page-size, --limit, --uri', async () => {
        const p = `--project=${LOOSE.projectId}`;
        const [plain, deleted, paged, limited, uris] = await Promise.all([
          g.run(['services', 'api-keys', 'list', p]),
          g.run(['services', 'api-keys', 'list', p, '--show-deleted']),
          g.run(['services', 'api-keys', 'list', p, '--page-size=2']),
          g.run(['services', 'api-keys', 'list', p, '--limit=3', '--page-size=2']),
          g.run(['services', 'api-keys', 'list', p, '--uri'], { json: false }),
        ]);
        assert.equal(uris.code, 0, uris.stderr);
        assert.deepEqual(uris.stdout.trim().split('\n').slice(0, 2), ['listed-5', 'listed-4'].map((id) => `${tw.server.url}/v2/projects/${LOOSE.projectNumber}/locations/global/keys/${id}`));
        const ids = (r: GcloudResult) => ok(r).map((k: any) => k.name.split('/').pop());
        assert.deepEqual(ids(plain), ['listed-5', 'listed-4', 'listed-3', 'listed-2', 'listed-1'], 'newest first; the deleted key hidden');
        assert.deepEqual(ids(deleted), ['listed-6', 'listed-5', 'listed-4', 'listed-3', 'listed-2', 'listed-1']);
        assert.ok(deleted.json[0].deleteTime, 'the deleted key carries deleteTime');
        assert.deepEqual(ids(paged), ids(plain), 'gcloud follows the page tokens');
        assert.deepEqual(ids(limited), ['listed-5', 'listed-4', 'listed-3']);
      });

      // ---- update ------------------------------------------------------------------------------

      const TARGET = [{ service: 'translate.googleapis.com' }];
      const update = async (id: string, flags: string[]) => finishedKey(await g.run(['services', 'api-keys', 'update', id, ...flags]));

      test('update --display-name', async () => {
        const k = await update('up-display-name', ['--display-name=Renamed']);
        assert.equal(k.displayName, 'Renamed');
        assert.deepEqual(k.restrictions, (await getKey('up-display-name')).restrictions, 'restrictions kept');
        assert.deepEqual(k.annotations, { team: 'a' });
      });

      test('update --annotations replaces the annotations', async () => {
        assert.deepEqual((await update('up-annotations', ['--annotations=foo=bar,abc=def'])).annotations, { foo: 'bar', abc: 'def' });
      });

      test('update --allowed-referrers (mask restrictions.browser_key_restrictions): api targets kept', async () => {
        const k = await update('up-referrers', ['--allowed-referrers=https://www.example.com/*,http://sub.example.com/*']);
        assert.deepEqual(k.restrictions, { browserKeyRestrictions: { allowedReferrers: ['https://www.example.com/*', 'http://sub.example.com/*'] }, apiTargets: TARGET });
      });

      test('update --allowed-ips replaces the browser restriction (one kind per key), api targets kept', async () => {
        const k = await update('up-ips', ['--allowed-ips=2620:15c:2c4:203:2776:1f90:6b3b:217,104.133.8.78']);
        assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['2620:15c:2c4:203:2776:1f90:6b3b:217', '104.133.8.78'] }, apiTargets: TARGET });
      });

      test('update --allowed-bundle-ids', async () => {
        assert.deepEqual((await update('up-bundles', ['--allowed-bundle-ids=my.app'])).restrictions, { iosKeyRestrictions: { allowedBundleIds: ['my.app'] }, apiTargets: TARGET });
      });

      test('update --allowed-application', async () => {
        const k = await update('up-android', [`--allowed-application=sha1_fingerprint=${SHA1},package_name=com.example.app`]);
        assert.deepEqual(k.restrictions, { androidKeyRestrictions: { allowedApplications: [{ sha1Fingerprint: SHA1_NORMALIZED, packageName: 'com.example.app' }] }, apiTargets: TARGET });
      });

      test('update --api-target (mask restrictions.api_targets): the application restriction kept', async () => {
        const k = await update('up-targets', ['--api-target=service=bar.googleapis.com', '--api-target=service=foo.googleapis.com']);
        assert.deepEqual(k.restrictions, { browserKeyRestrictions: { allowedReferrers: ['seed.example.com/*'] }, apiTargets: [{ service: 'bar.googleapis.com' }, { service: 'foo.googleapis.com' }] });
      });

      test('update --display-name --allowed-ips --api-target together (several masks joined by commas)', async () => {
        const k = await update('up-several', ['--display-name=Several', '--allowed-ips=10.1.2.3', '--api-target=service=youtube.googleapis.com']);
        assert.equal(k.displayName, 'Several');
        assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['10.1.2.3'] }, apiTargets: [{ service: 'youtube.googleapis.com' }] });
      });

      test('update --clear-restrictions and --clear-annotations', async () => {
        const [r, a] = await Promise.all([update('up-clear-r', ['--clear-restrictions']), update('up-clear-a', ['--clear-annotations'])]);
        assert.equal(r.restrictions, undefined);
        assert.deepEqual(r.annotations, { team: 'a' });
        assert.equal(a.annotations, undefined);
        assert.ok(a.restrictions.browserKeyRestrictions);
      });

      // ---- delete and undelete -----------------------------------------------------------------

      test('delete, then undelete by name', async () => {
        const deleted = finishedKey(await g.run(['services', 'api-keys', 'delete', 'del-me']));
        assert.ok(deleted.deleteTime);
        assert.ok((await getKey('del-me')).deleteTime);
        const back = finishedKey(await g.run(['services', 'api-keys', 'undelete', 'del-me']));
        assert.equal(back.deleteTime, undefined);
        assert.equal((await getKey('del-me')).deleteTime, undefined);
      });

      test('undelete --key-string (gcloud looks the key up first)', async () => {
        const { keyString } = await rest('GET', `/v2/projects/${DEMO.projectId}/locations/global/keys/undel-by-string/keyString`);
        await rest('DELETE', `/v2/projects/${DEMO.projectId}/locations/global/keys/undel-by-string`);
        const back = finishedKey(await g.run(['services', 'api-keys', 'undelete', `--key-string=${keyString}`]));
        assert.equal(back.name, keyName('undel-by-string'));
        assert.equal(back.deleteTime, undefined);
      });

      // ---- failures, printed through gcloud -----------------------------------------------------

      test('NOT_FOUND: describe, update, delete and get-key-string of a key that does not exist', async () => {
        const rs = await Promise.all([
          g.run(['services', 'api-keys', 'describe', 'no-such-key']),
          g.run(['services', 'api-keys', 'update', 'no-such-key', '--display-name=x']),
          g.run(['services', 'api-keys', 'delete', 'no-such-key']),
          g.run(['services', 'api-keys', 'get-key-string', 'no-such-key']),
          g.run(['services', 'api-keys', 'lookup', 'AIzaSyDoesNotExist0000000000000000000000']),
        ]);
        for (const r of rs.slice(0, 4)) fails(r, 'NOT_FOUND', /not found/i);
        assert.notEqual(rs[4].code, 0, rs[4].stdout);
        assert.match(rs[4].stderr, /ERROR: \(gcloud\.services\.api-keys\.lookup\) (NOT_FOUND|PERMISSION_DENIED): /);
      });

      test('INVALID_ARGUMENT: the server\'s message names the bad field or value', async () => {
        const before = await getKey('up-bad-update');
        const [badId, badIp, badRef, badService, boundBrowser] = await Promise.all([
          g.run(['services', 'api-keys', 'create', '--key-id=Bad_Id']),
          g.run(['services', 'api-keys', 'create', '--allowed-ips=300.1.1.1']),
          g.run(['services', 'api-keys', 'update', 'up-bad-update', '--allowed-referrers=ex*ample.com']),
          g.run(['services', 'api-keys', 'update', 'up-bad-update', '--api-target=service=Not a service']),
          g.run(['services', 'api-keys', 'create', `--project=${BOUND_OK.projectId}`, `--service-account=${BOUND_SA}`, '--allowed-referrers=a.example.com/*']),
        ]);
        fails(badId, 'INVALID_ARGUMENT', /Invalid key id 'Bad_Id'/);
        fails(badIp, 'INVALID_ARGUMENT', /'300\.1\.1\.1'/);
        fails(badRef, 'INVALID_ARGUMENT', /'ex\*ample\.com'/);
        fails(badService, 'INVALID_ARGUMENT', /'Not a service'/);
        fails(boundBrowser, 'INVALID_ARGUMENT', /bound to a service account/);
        assert.match(badIp.stderr, /field: key\.restrictions\.server_key_restrictions\.allowed_ips\[0\]/, 'gcloud prints the field violations');
        assert.deepEqual(await getKey('up-bad-update'), before, 'a refused update writes nothing');
      });

      test('PERMISSION_DENIED: the message names the permission', async () => {
        const [viewerCreate, viewerKeyString, strangerKeyString, strangerDescribe] = await Promise.all([
          g.run(['services', 'api-keys', 'create', '--key-id=by-bob'], { as: BOB }),
          g.run(['services', 'api-keys', 'get-key-string', 'describe-me'], { as: BOB }),
          g.run(['services', 'api-keys', 'get-key-string', 'describe-me'], { as: MALLORY }),
          g.run(['services', 'api-keys', 'describe', 'describe-me'], { as: MALLORY }),
        ]);
        fails(viewerCreate, 'PERMISSION_DENIED', /Permission 'apikeys\.keys\.create' denied/);
        // roles/serviceusage.apiKeysViewer grants getKeyString, as Google's role does.
        assert.match(ok(viewerKeyString).keyString, KEY_STRING);
        fails(strangerKeyString, 'PERMISSION_DENIED', /Permission 'apikeys\.keys\.getKeyString' denied/);
        fails(strangerDescribe, 'PERMISSION_DENIED', /Permission 'apikeys\.keys\.get' denied/);
      });
    });

    describe('gcloud --async and services operations (delayed operations; one clock)', { concurrency: false }, () => {
      let tw: GcloudTwin;
      let g: Gcloud;
      /** Runs gcloud commands that wait on operations, moving resource time past the operations' delay every second until they end. */
      const runAdvancing = async (...runs: Promise<GcloudResult>[]) => {
        let running = true;
        const all = Promise.all(runs).finally(() => (running = false));
        while (running) {
          await Promise.race([all, new Promise((r) => setTimeout(r, 1000))]);
          if (running) await tw.server.admin('POST', '/_twin/v1/clock:advance', { seconds: 61 });
        }
        return all;
      };

      before(async () => {
        tw = await startGcloudTwin();
        g = tw.g;
        await tw.server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 60_000 });
      });
      after(() => tw?.close());

      test('create --async, operations describe (in progress), operations wait, operations describe (done)', async () => {
        const started = await g.run(['services', 'api-keys', 'create', '--key-id=later', '--display-name=Later', '--async']);
        const op = ok(started);
        assert.match(op.name, /^operations\/akmf\.p7-300000000001-[0-9a-f-]{36}$/);
        assert.equal(op.done, undefined);
        assert.match(started.stderr, new RegExp(`gcloud services operations wait ${op.name.replaceAll('.', '\\.')}`));
        const pending = await g.run(['services', 'operations', 'describe', op.name]);
        assert.equal(pending.code, 0, pending.stderr);
        assert.match(pending.stderr, /Operation "operations\/akmf\.[^"]+" is still in progress/);
        const [waited] = await runAdvancing(g.run(['services', 'operations', 'wait', op.name]));
        const key = printedResult(waited, op.name);
        assert.equal(key.displayName, 'Later');
        assert.match(key.keyString, KEY_STRING);
        const [done, missing] = await Promise.all([
          g.run(['services', 'operations', 'describe', op.name]),
          g.run(['services', 'operations', 'describe', 'operations/akmf.p7-300000000001-00000000-0000-4000-8000-000000000000']),
        ]);
        assert.equal(printedResult(done, op.name).name, keyName('later'));
        assert.notEqual(missing.code, 0);
        assert.match(missing.stderr, /ERROR: \(gcloud\.services\.operations\.describe\).*not found/i);
      });

      test('update and delete without --async poll the operation until it is done; undelete and update --async', async () => {
        for (const id of ['waited-u', 'waited-d']) await tw.rest('POST', `/v2/projects/${DEMO.projectId}/locations/global/keys?keyId=${id}`, {});
        await tw.server.admin('POST', '/_twin/v1/clock:advance', { seconds: 61 });
        const [upd, del] = await runAdvancing(g.run(['services', 'api-keys', 'update', 'waited-u', '--allowed-ips=10.0.0.1']), g.run(['services', 'api-keys', 'delete', 'waited-d']));
        assert.deepEqual(finishedKey(upd).restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } });
        assert.ok(finishedKey(del).deleteTime);
        const [undel, upd2] = await Promise.all([g.run(['services', 'api-keys', 'undelete', 'waited-d', '--async']), g.run(['services', 'api-keys', 'update', 'waited-u', '--display-name=Async', '--async'])]);
        const [undelDone, upd2Done] = await runAdvancing(g.run(['services', 'operations', 'wait', ok(undel).name]), g.run(['services', 'operations', 'wait', ok(upd2).name]));
        assert.equal(printedResult(undelDone, undel.json.name).deleteTime, undefined);
        assert.equal(printedResult(upd2Done, upd2.json.name).displayName, 'Async');
      });
    });
  });
}
