/**
 * The Authenticator on its own, over the store of a test twin: JWT audiences for every service
 * name (compute and media included, before their routes exist), and a second Authenticator on the
 * same store standing in for another process, to show revocations reach its caches.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importPKCS8 } from 'jose';
import { AccessTokens } from '../../src/platform/auth/accessTokens.ts';
import { type ApiMethod, Authenticator, audienceService } from '../../src/platform/auth/authenticator.ts';
import { CredentialGeneration } from '../../src/platform/auth/credentialGeneration.ts';
import { ServiceAccountKeys } from '../../src/platform/auth/serviceAccountKeys.ts';
import { Clock } from '../../src/platform/clock/clock.ts';
import { Ids, systemRandom } from '../../src/platform/crypto/random.ts';
import { ApiError } from '../../src/platform/http/errors.ts';
import { IamService } from '../../src/platform/iam/iamService.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CI_SA } from '../support/world.ts';

type SigningKey = Parameters<SignJWT['sign']>[0];
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

const api = (service: string): ApiMethod => ({ service, method: `${service}.Method`, id: `${service.split('.')[0]}.things.get`, scopes: [CLOUD_PLATFORM] });
const APIKEYS = api('apikeys.googleapis.com');
const COMPUTE = api('compute.googleapis.com');
const MEDIA = api('youtube.googleapis.com');
const MEDIA_RENAMED = api('media.example.com');

/** A second Authenticator on the same store: what another process holds. */
function otherProcess(t: TestTwin, refreshMs: number) {
  const ids = new Ids(systemRandom);
  const generation = new CredentialGeneration(t.twin.store, ids, refreshMs);
  const tokens = new AccessTokens(t.twin.store, ids, generation);
  const keys = new ServiceAccountKeys(t.twin.store, ids, new Clock(), generation);
  const iam = new IamService(t.twin.store, ids);
  return new Authenticator({ mode: 'enforce', permissivePrincipal: 'user:x@example.com', tokens, keys, iam, generation });
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail('expected the credential to be refused');
}

describe('Authenticator', () => {
  let t: TestTwin;
  let keyFile: Record<string, string>;
  let privateKey: SigningKey;
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>, aud?: string, key: { kid: string; pk: SigningKey } = { kid: keyFile.private_key_id, pk: privateKey }) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuer(CI_SA).setSubject(CI_SA).setIssuedAt(now()).setExpirationTime(now() + 3600);
    if (aud) jwt.setAudience(aud);
    return jwt.sign(key.pk);
  };
  const newKey = async () => {
    const file = (await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA })).json();
    return { kid: file.private_key_id as string, pk: await importPKCS8(file.private_key, 'RS256'), file };
  };

  before(async () => {
    t = await startTestTwin();
    const k = await newKey();
    keyFile = k.file;
    privateKey = k.pk;
  });
  after(() => t.close());

  test('audienceService: https://<host>/ with or without the slash, nothing else', () => {
    assert.equal(audienceService('https://compute.googleapis.com/'), 'compute.googleapis.com');
    assert.equal(audienceService('https://compute.googleapis.com'), 'compute.googleapis.com');
    for (const bad of ['http://compute.googleapis.com/', 'https://compute.googleapis.com/v1/', 'https://compute.googleapis.com//', 'compute.googleapis.com', 'https://localhost/', '', 42, ['https://compute.googleapis.com/'], undefined]) {
      assert.equal(audienceService(bad), undefined, JSON.stringify(bad));
    }
  });

  for (const [target, others] of [
    [APIKEYS, [COMPUTE, MEDIA]],
    [COMPUTE, [APIKEYS, MEDIA]],
    [MEDIA, [APIKEYS, COMPUTE, MEDIA_RENAMED]],
    [MEDIA_RENAMED, [MEDIA]],
  ] as const) {
    test(`a JWT without scope and aud https://${target.service}/ is valid for ${target.service} only (cached or not)`, async () => {
      const auth = otherProcess(t, 100);
      for (const aud of [`https://${target.service}/`, `https://${target.service}`]) {
        const jwt = await sign({}, aud);
        // First for another API (uncached), then the right one, then another API again (cached).
        for (const other of others) assert.equal((await refusal(auth.authenticate({ bearer: jwt }, other))).status, 'UNAUTHENTICATED');
        const p = await auth.authenticate({ bearer: jwt }, target);
        assert.equal(p.member, `serviceAccount:${CI_SA}`);
        assert.equal(p.scopes, 'all');
        for (const other of others) {
          const err = await refusal(auth.authenticate({ bearer: jwt }, other));
          assert.equal(err.reason, 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
          assert.match(err.message, /^Request had invalid authentication credentials\./);
        }
      }
    });
  }

  test('a JWT with a scope is valid for every API whatever its audience', async () => {
    const auth = otherProcess(t, 100);
    for (const aud of [undefined, 'https://compute.googleapis.com/', 'https://example.com/']) {
      const jwt = await sign({ scope: CLOUD_PLATFORM }, aud);
      for (const a of [APIKEYS, COMPUTE, MEDIA]) assert.equal((await auth.authenticate({ bearer: jwt }, a)).member, `serviceAccount:${CI_SA}`);
    }
  });

  test('a wrong audience is refused exactly like any other invalid credential', async () => {
    const auth = otherProcess(t, 100);
    const wrong = await refusal(auth.authenticate({ bearer: await sign({}, 'https://compute.googleapis.com/') }, APIKEYS));
    const garbage = await refusal(auth.authenticate({ bearer: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' }, APIKEYS));
    assert.deepEqual({ ...wrong, stack: undefined }, { ...garbage, stack: undefined });
  });

  test('another process drops its cached JWTs and tokens within its refresh interval of a revocation', async () => {
    const refreshMs = 150;
    const b = otherProcess(t, refreshMs);
    const k = await newKey();
    const jwt = await sign({ scope: CLOUD_PLATFORM }, undefined, k);
    const minted = (await t.admin('POST', '/_twin/v1/tokens', { principal: 'user:alice@example.com' })).json().access_token;
    await b.authenticate({ bearer: jwt }, APIKEYS);
    await b.authenticate({ bearer: minted }, APIKEYS);
    // Revoked through the twin ("process A").
    assert.equal((await t.admin('POST', `/_twin/v1/serviceAccounts/${CI_SA}/keys/${k.kid}:disable`)).statusCode, 200);
    assert.equal((await t.admin('POST', '/_twin/v1/tokens:revoke', { token: minted })).statusCode, 200);
    const revokedAt = Date.now();
    // B notices at its next read of the shared generation: never later than refreshMs after the revocation.
    let jwtRefusedAt = 0;
    let tokenRefusedAt = 0;
    while ((!jwtRefusedAt || !tokenRefusedAt) && Date.now() - revokedAt < 5_000) {
      if (!jwtRefusedAt) await b.authenticate({ bearer: jwt }, APIKEYS).catch(() => (jwtRefusedAt = Date.now()));
      if (!tokenRefusedAt) await b.authenticate({ bearer: minted }, APIKEYS).catch(() => (tokenRefusedAt = Date.now()));
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(jwtRefusedAt && jwtRefusedAt - revokedAt <= refreshMs + 50, `JWT refused ${jwtRefusedAt - revokedAt} ms after`);
    assert.ok(tokenRefusedAt && tokenRefusedAt - revokedAt <= refreshMs + 50, `token refused ${tokenRefusedAt - revokedAt} ms after`);
  });

  test('a cache fill racing a revocation does not keep the revoked credential', async () => {
    // Process B reads the token grant, the revocation lands while the read is in flight, and B
    // then stores what it read: the epoch guard must drop it.
    const ids = new Ids(systemRandom);
    const generation = new CredentialGeneration(t.twin.store, ids, 60_000);
    const tokens = new AccessTokens(t.twin.store, ids, generation);
    const minted = (await t.admin('POST', '/_twin/v1/tokens', { principal: 'user:alice@example.com' })).json().access_token;
    await generation.refresh();
    const reading = tokens.resolve(minted); // its query is now in flight
    generation.changed(); // the caches are dropped while it runs
    assert.ok(await reading, 'the read itself saw the token');
    assert.equal((await t.admin('POST', '/_twin/v1/tokens:revoke', { token: minted })).statusCode, 200);
    assert.equal(await tokens.resolve(minted), undefined, 'nothing stale was cached by the racing read');
  });
});
