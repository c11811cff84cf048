/**
 * Issue 13: a self-signed service-account JWT without `scope` is valid only for the API its `aud`
 * names, on every service of the server (API Keys, Compute, media under its configured name); a
 * JWT with `scope` is judged by its scopes, whatever its audience.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importPKCS8 } from 'jose';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CI_SA, DEMO } from '../support/world.ts';
import { computeWorld } from './compute.helpers.ts';

type SigningKey = Parameters<SignJWT['sign']>[0];
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const YOUTUBE = 'https://www.googleapis.com/auth/youtube.readonly';

/** One read call per service, as a service account with rights on the demo project. */
const CALLS = {
  'apikeys.googleapis.com': `/v2/projects/${DEMO.projectId}/locations/global/keys`,
  'compute.googleapis.com': `/compute/v1/projects/${DEMO.projectId}/regions/us-central1/instanceTemplates`,
  media: '/youtube/v3/search?part=id&q=anything',
};

for (const mediaService of ['youtube.googleapis.com', 'media.example.com']) {
  describe(`JWT audiences (media service named ${mediaService})`, () => {
    let t: TestTwin;
    let kid: string;
    let key: SigningKey;
    const services = { 'apikeys.googleapis.com': CALLS['apikeys.googleapis.com'], 'compute.googleapis.com': CALLS['compute.googleapis.com'], [mediaService]: CALLS.media };
    const sign = (claims: Record<string, unknown>, aud?: string) => {
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(CI_SA).setSubject(CI_SA).setIssuedAt(now).setExpirationTime(now + 3600);
      return (aud ? jwt.setAudience(aud) : jwt).sign(key);
    };
    const get = (url: string, bearer: string) => t.twin.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` } });

    before(async () => {
      t = await startTestTwin({ world: computeWorld, mediaServiceName: mediaService });
      const file = (await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA })).json();
      kid = file.private_key_id;
      key = await importPKCS8(file.private_key, 'RS256');
    });
    after(() => t.close());

    for (const target of Object.keys(services)) {
      test(`aud https://${target}/ (slash optional) works for ${target} and is 401 everywhere else`, async () => {
        for (const aud of [`https://${target}/`, `https://${target}`]) {
          const jwt = await sign({}, aud);
          for (const [service, url] of Object.entries(services)) {
            const res = await get(url, jwt);
            if (service === target) assert.equal(res.statusCode, 200, `${service}: ${res.body}`);
            else {
              assert.equal(res.statusCode, 401, `${service} accepted aud ${aud}: ${res.body}`);
              assert.match(res.json().error.message, /^Request had invalid authentication credentials\./);
            }
          }
        }
      });
    }

    test('the media routes answer to their configured service name only', async () => {
      const other = mediaService === 'youtube.googleapis.com' ? 'media.example.com' : 'youtube.googleapis.com';
      assert.equal((await get(CALLS.media, await sign({}, `https://${other}/`))).statusCode, 401);
    });

    test('a JWT with a scope is judged by its scopes, whatever its audience', async () => {
      for (const aud of [undefined, 'https://compute.googleapis.com/', 'https://elsewhere.example.com/']) {
        const jwt = await sign({ scope: `${CLOUD_PLATFORM} ${YOUTUBE}` }, aud);
        for (const [service, url] of Object.entries(services)) assert.equal((await get(url, jwt)).statusCode, 200, `${service} with aud ${aud}`);
      }
    });
  });
}
