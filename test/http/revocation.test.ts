import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importPKCS8 } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, CI_SA } from '../support/world.ts';
import { assertError, errorInfo, keysPath } from './helpers.ts';

type SigningKey = Parameters<SignJWT['sign']>[0];

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const keysOf = (email: string) => `/_twin/v1/serviceAccounts/${email}/keys`;

interface Key {
  file: Record<string, string>;
  privateKey: SigningKey;
}

describe('revocation: service-account keys and access tokens', () => {
  let t: TestTwin;
  const now = () => Math.floor(Date.now() / 1000);
  const newKey = async (body: Record<string, unknown> = {}): Promise<Key> => {
    const res = await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA, ...body });
    assert.equal(res.statusCode, 200, res.body);
    const file = res.json();
    return { file, privateKey: await importPKCS8(file.private_key, 'RS256') };
  };
  /** A self-signed JWT as gax clients send it (scope), or for the token endpoint (aud = token_uri). */
  const sign = (k: Key, aud?: string, withKid = true) => {
    const jwt = new SignJWT({ scope: CLOUD_PLATFORM })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(withKid ? { kid: k.file.private_key_id } : {}) })
      .setIssuer(CI_SA)
      .setSubject(CI_SA)
      .setIssuedAt(now())
      .setExpirationTime(now() + 3600);
    if (aud) jwt.setAudience(aud);
    return jwt.sign(k.privateKey);
  };
  const exchange = async (k: Key): Promise<LightMyRequestResponse> =>
    t.twin.app.inject({
      method: 'POST',
      url: '/token',
      payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await sign(k, k.file.token_uri) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const tokenFrom = async (k: Key): Promise<string> => {
    const res = await exchange(k);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().access_token;
  };
  const list = (bearer: string) => t.twin.app.inject({ method: 'GET', url: keysPath(), headers: { authorization: `Bearer ${bearer}` } });
  const assertWorks = async (bearer: string) => assert.equal((await list(bearer)).statusCode, 200);
  const assertRefused = async (bearer: string) => {
    const err = assertError(await list(bearer), 401, 'UNAUTHENTICATED');
    assert.equal(errorInfo(err).reason, 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
  };
  const revokeForm = (token: string) =>
    t.twin.app.inject({ method: 'POST', url: '/revoke', payload: new URLSearchParams({ token }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  test('admin lists an account\'s keys: ids, creation and expiry times, never key material', async () => {
    const a = await newKey();
    const b = await newKey({ ttlSeconds: 3600 });
    const res = await t.admin('GET', keysOf(CI_SA));
    assert.equal(res.statusCode, 200, res.body);
    const keys = res.json().keys as Record<string, unknown>[];
    const byId = new Map(keys.map((k) => [k.keyId, k]));
    const ka = byId.get(a.file.private_key_id)!;
    assert.deepEqual(Object.keys(ka), ['name', 'keyId', 'validAfterTime', 'validBeforeTime', 'keyType', 'disabled']);
    assert.equal(ka.name, `projects/demo-project/serviceAccounts/${CI_SA}/keys/${a.file.private_key_id}`);
    assert.equal(ka.validBeforeTime, '9999-12-31T23:59:59Z');
    assert.equal(ka.disabled, false);
    assert.ok(Math.abs(Date.parse(String(ka.validAfterTime)) - Date.now()) < 60_000);
    const expiry = Date.parse(String(byId.get(b.file.private_key_id)!.validBeforeTime));
    assert.ok(Math.abs(expiry - (Date.now() + 3600_000)) < 60_000, 'the expiry is the requested lifetime');
    assert.ok(!res.body.includes('PRIVATE KEY') && !res.body.includes('PUBLIC KEY'));
    assertError(await t.admin('GET', keysOf('ghost-robot@demo-project.iam.gserviceaccount.com')), 404, 'NOT_FOUND');
    assertError(await t.admin('GET', keysOf('not-an-email')), 400, 'INVALID_ARGUMENT');
  });

  test('disabling a key stops its JWTs and the tokens obtained with it at once (cached ones too); enabling restores them', async () => {
    const k = await newKey();
    const jwt = await sign(k);
    const token = await tokenFrom(k);
    const unrelated = await tokenFrom(await newKey());
    // Verified once, so both now sit in the caches.
    await assertWorks(jwt);
    await assertWorks(token);
    const res = await t.admin('POST', `${keysOf(CI_SA)}/${k.file.private_key_id}:disable`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().disabled, true);
    await assertRefused(jwt);
    await assertRefused(token);
    await assertRefused(await sign(k)); // a fresh JWT, never cached
    await assertRefused(await sign(k, undefined, false)); // without kid: matched against the account's usable keys only
    assert.deepEqual((await exchange(k)).json(), { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    await assertWorks(unrelated);
    const listed = (await t.admin('GET', keysOf(CI_SA))).json().keys.find((x: any) => x.keyId === k.file.private_key_id);
    assert.equal(listed.disabled, true);

    assert.equal((await t.admin('POST', `${keysOf(CI_SA)}/${k.file.private_key_id}:enable`)).json().disabled, false);
    await assertWorks(jwt);
    await assertWorks(token);
    await assertWorks(await sign(k, undefined, false));
  });

  test('deleting a key stops its JWTs and tokens for good; it is no longer listed', async () => {
    const k = await newKey();
    const jwt = await sign(k);
    const token = await tokenFrom(k);
    await assertWorks(jwt);
    await assertWorks(token);
    const del = await t.admin('DELETE' as any, `${keysOf(CI_SA)}/${k.file.private_key_id}`);
    assert.equal(del.statusCode, 200, del.body);
    assert.deepEqual(del.json(), {});
    await assertRefused(jwt);
    await assertRefused(token);
    assert.equal((await exchange(k)).json().error, 'invalid_grant');
    assert.ok(!(await t.admin('GET', keysOf(CI_SA))).json().keys.some((x: any) => x.keyId === k.file.private_key_id));
    assertError(await t.admin('DELETE' as any, `${keysOf(CI_SA)}/${k.file.private_key_id}`), 404, 'NOT_FOUND');
    assertError(await t.admin('POST', `${keysOf(CI_SA)}/${k.file.private_key_id}:enable`), 404, 'NOT_FOUND');
  });

  test('a key of another account cannot be disabled or deleted through this one', async () => {
    const k = await newKey();
    const other = 'bound-robot@bound-project.iam.gserviceaccount.com';
    assertError(await t.admin('POST', `${keysOf(other)}/${k.file.private_key_id}:disable`), 404, 'NOT_FOUND');
    assertError(await t.admin('DELETE' as any, `${keysOf(other)}/${k.file.private_key_id}`), 404, 'NOT_FOUND');
    await assertWorks(await sign(k));
  });

  test('an expired key signs nothing', async () => {
    const k = await newKey({ ttlSeconds: 3600 });
    await t.twin.store.db.updateTable('service_account_keys').set({ expires_at: Date.now() - 1 }).where('key_id', '=', k.file.private_key_id).execute();
    await assertRefused(await sign(k));
  });

  test('a cached verification ends when its key expires', async () => {
    const k = await newKey({ ttlSeconds: 3600 });
    // The key expires 300 ms from now (set in the store before any verification, as a short ttlSeconds would).
    await t.twin.store.db.updateTable('service_account_keys').set({ expires_at: Date.now() + 300 }).where('key_id', '=', k.file.private_key_id).execute();
    const jwt = await sign(k);
    await assertWorks(jwt);
    await new Promise((r) => setTimeout(r, 350));
    await assertRefused(jwt);
  });

  test('admin revokes an access token: it stops at once; others keep working; revoking again is 404', async () => {
    const token = await t.token(ALICE);
    const other = await t.token(ALICE);
    await assertWorks(token);
    const res = await t.admin('POST', '/_twin/v1/tokens:revoke', { token });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {});
    await assertRefused(token);
    await assertWorks(other);
    assertError(await t.admin('POST', '/_twin/v1/tokens:revoke', { token }), 404, 'NOT_FOUND');
    assertError(await t.admin('POST', '/_twin/v1/tokens:revoke', {}), 400, 'INVALID_ARGUMENT');
  });

  test('POST /revoke (OAuth): token in the query or a form body, 200 {}; unknown or revoked is 400 invalid_token', async () => {
    const fromEndpoint = await tokenFrom(await newKey());
    const minted = await t.token(ALICE);
    await assertWorks(fromEndpoint);
    await assertWorks(minted);

    const viaQuery = await t.twin.app.inject({ method: 'POST', url: `/revoke?token=${encodeURIComponent(fromEndpoint)}` });
    assert.equal(viaQuery.statusCode, 200, viaQuery.body);
    assert.deepEqual(viaQuery.json(), {});
    await assertRefused(fromEndpoint);

    const viaForm = await revokeForm(minted);
    assert.equal(viaForm.statusCode, 200, viaForm.body);
    await assertRefused(minted);

    for (const again of [await revokeForm(minted), await revokeForm('ya29.never-issued'), await revokeForm(await sign(await newKey()))]) {
      assert.equal(again.statusCode, 400, again.body);
      assert.deepEqual(again.json(), { error: 'invalid_token', error_description: 'Token expired or revoked' });
    }
    const missing = await t.twin.app.inject({ method: 'POST', url: '/revoke' });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');
  });

  test('the world document disables and enables a key; every process sees it', async () => {
    const k = await newKey();
    const jwt = await sign(k);
    const token = await tokenFrom(k);
    await assertWorks(jwt);
    await assertWorks(token);
    const entry = { serviceAccount: CI_SA, keyId: k.file.private_key_id };
    assert.equal((await t.admin('POST', '/_twin/v1/world:apply', { serviceAccountKeys: [{ ...entry, disabled: true }] })).statusCode, 200);
    await assertRefused(jwt);
    await assertRefused(token);
    assert.equal((await t.admin('POST', '/_twin/v1/world:apply', { serviceAccountKeys: [{ ...entry, disabled: false }] })).statusCode, 200);
    await assertWorks(jwt);
    await assertWorks(token);
  });

  test('the world document adds an uploaded public key, whose private half then signs', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyId = 'ab'.repeat(20);
    const res = await t.admin('POST', '/_twin/v1/world:apply', {
      serviceAccountKeys: [{ serviceAccount: CI_SA, keyId, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }],
    });
    assert.equal(res.statusCode, 200, res.body);
    const k: Key = { file: { private_key_id: keyId, token_uri: 'http://localhost/token' }, privateKey };
    await assertWorks(await sign(k));
    assert.ok((await t.admin('GET', keysOf(CI_SA))).json().keys.some((x: any) => x.keyId === keyId));
  });

  test('world key entries that cannot apply are 400 and change nothing', async () => {
    const k = await newKey();
    const stranger = 'bound-robot@bound-project.iam.gserviceaccount.com';
    const cases: [unknown, RegExp][] = [
      [[{ serviceAccount: CI_SA, keyId: 'cd'.repeat(20), disabled: true }], /does not exist; give publicKeyPem/],
      [[{ serviceAccount: stranger, keyId: k.file.private_key_id, disabled: true }], /belongs to another service account/],
      [[{ serviceAccount: 'ghost-robot@demo-project.iam.gserviceaccount.com', keyId: k.file.private_key_id }], /is not a service account of the world/],
      [[{ serviceAccount: CI_SA, keyId: 'ef'.repeat(20), publicKeyPem: 'not a key' }], /not a PEM public key/],
      [[{ serviceAccount: CI_SA, keyId: 'nope' }], /40 lowercase hexadecimal/],
      [[{ serviceAccount: CI_SA, keyId: k.file.private_key_id, ...JSON.parse('{"__proto__": {"disabled": false}}') }], /serviceAccountKeys\[1\]\.__proto__: is not a known field/],
    ];
    for (const [serviceAccountKeys, message] of cases) {
      // The first entry is valid: the whole document must roll back.
      const doc = { serviceAccountKeys: [{ serviceAccount: CI_SA, keyId: k.file.private_key_id, disabled: true }, ...(serviceAccountKeys as unknown[])] };
      assertError(await t.admin('POST', '/_twin/v1/world:apply', doc), 400, 'INVALID_ARGUMENT', message);
    }
    await assertWorks(await sign(k));
  });

  test('snapshot and restore keep a key disabled', async () => {
    const k = await newKey();
    await t.admin('POST', `${keysOf(CI_SA)}/${k.file.private_key_id}:disable`);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.equal((await t.admin('PUT', '/_twin/v1/snapshot', snap)).statusCode, 200);
    await assertRefused(await sign(k));
  });
});
