/**
 * The discovery documents cloudtwin serves at the Discovery service's path
 * (`/discovery/v1/apis/{api}/{version}/rest`): Google's documents of API Keys v2 and Compute v1
 * with this server's address in `rootUrl`, `mtlsRootUrl` and `baseUrl`, without credentials; and a
 * discovery-based client (`googleapis`' `discoverAPI`, which builds its methods from a fetched
 * document) calling the server through them. The Python discovery client does the same in the
 * pytest suite of docs/operations.md (run by the README test under `cloudtwin exec`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { google } from 'googleapis';
import { serverForSuite } from '../support/server.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';

describe('discovery documents: Google\'s, pointing at this server', () => {
  const suite = serverForSuite(testWorld);

  it('serves API Keys v2 and Compute v1 without credentials, rootUrl/mtlsRootUrl/baseUrl being the address asked', async () => {
    for (const [api, version, servicePath, methods] of [['apikeys', 'v2', '', ['create', 'list', 'get', 'getKeyString', 'patch', 'delete', 'undelete']], ['compute', 'v1', 'compute/v1/', ['insert', 'list', 'get', 'delete']]] as const) {
      const res = await fetch(`${suite.server.url}/discovery/v1/apis/${api}/${version}/rest`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^application\/json/);
      const doc = (await res.json()) as Record<string, any>;
      assert.equal(doc.kind, 'discovery#restDescription');
      assert.equal(doc.name, api);
      assert.equal(doc.version, version);
      assert.equal(doc.rootUrl, `${suite.server.url}/`);
      assert.equal(doc.mtlsRootUrl, `${suite.server.url}/`);
      assert.equal(doc.servicePath, servicePath);
      assert.equal(doc.baseUrl, `${suite.server.url}/${servicePath}`);
      const resource = api === 'apikeys' ? doc.resources.projects.resources.locations.resources.keys : doc.resources.instanceTemplates;
      for (const m of methods) assert.ok(resource.methods[m], `${api}: ${m}`);
    }
    // the address as the client named it (another name of this machine)
    const asLocalhost = (await (await fetch(`${suite.server.url.replace('127.0.0.1', 'localhost')}/discovery/v1/apis/apikeys/v2/rest`)).json()) as Record<string, any>;
    assert.equal(asLocalhost.rootUrl, `${suite.server.url.replace('127.0.0.1', 'localhost')}/`);
  });

  it('an API it does not serve: 404 in Google\'s envelope', async () => {
    const res = await fetch(`${suite.server.url}/discovery/v1/apis/youtube/v3/rest`);
    assert.equal(res.status, 404);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    assert.equal(body.error.code, 404);
    assert.equal(body.error.status, 'NOT_FOUND');
    assert.match(body.error.message, /apikeys\/v2 and compute\/v1/);
  });

  it('a discovery-based client built from the served document calls this server: googleapis discoverAPI', async () => {
    const token = (await suite.server.admin('POST', '/_twin/v1/tokens', { principal: ALICE })).access_token;
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: token });
    const apikeys = (await google.discoverAPI(`${suite.server.url}/discovery/v1/apis/apikeys/v2/rest`, { auth })) as any;
    const op = (await apikeys.projects.locations.keys.create({ parent: `projects/${DEMO.projectId}/locations/global`, keyId: 'discovered', requestBody: { displayName: 'discovered' } })).data;
    assert.equal(op.done, true);
    assert.match(op.response.keyString, /^AIza[0-9A-Za-z_-]{35}$/);
    const listed = (await apikeys.projects.locations.keys.list({ parent: `projects/${DEMO.projectId}/locations/global` })).data;
    assert.deepEqual(listed.keys.map((k: { displayName: string }) => k.displayName), ['discovered']);
  });
});
