import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importPKCS8 } from 'jose';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, BOUND_SA, CAROL, CI_SA, DEMO, MALLORY, OTHER } from '../support/world.ts';
import { assertError, errorInfo, keysPath } from './helpers.ts';

type SigningKey = Parameters<SignJWT['sign']>[0];

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const READ_ONLY = 'https://www.googleapis.com/auth/cloud-platform.read-only';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const INVALID_CREDENTIALS =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const LIST_METHOD = { method: 'google.api.apikeys.v2.ApiKeys.ListKeys', service: 'apikeys.googleapis.com' };

const withBearer = (t: TestTwin, token: string, opts: { method?: 'GET' | 'POST'; url?: string } = {}) =>
  t.twin.app.inject({
    method: opts.method ?? 'GET',
    url: opts.url ?? keysPath(),
    headers: { authorization: `Bearer ${token}` },
    ...(opts.method === 'POST' ? { payload: {} } : {}),
  });

function assertUnauthenticated(res: Awaited<ReturnType<typeof withBearer>>, reason: string, message = INVALID_CREDENTIALS) {
  const err = assertError(res, 401, 'UNAUTHENTICATED', message);
  const info = errorInfo(err);
  assert.equal(info.reason, reason);
  assert.deepEqual(info.metadata, LIST_METHOD);
}

describe('auth: bearer tokens', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  test('no credentials: 401 CREDENTIALS_MISSING naming service and method', async () => {
    const err = assertError(
      await t.call(null, { method: 'GET', url: keysPath() }),
      401,
      'UNAUTHENTICATED',
      'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    );
    assert.deepEqual(err.details, [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com', metadata: LIST_METHOD },
    ]);
    const create = errorInfo(assertError(await t.call(null, { method: 'POST', url: keysPath(), payload: {} }), 401, 'UNAUTHENTICATED'));
    assert.equal(create.metadata.method, 'google.api.apikeys.v2.ApiKeys.CreateKey');
  });

  test('HEAD of an API method (the automatic HEAD route) is authenticated like its GET', async () => {
    for (const url of [keysPath(), '/compute/v1/projects/demo-project/regions/us-central1']) {
      assert.equal((await t.twin.app.inject({ method: 'HEAD', url })).statusCode, 401, url);
      assert.equal((await t.twin.app.inject({ method: 'HEAD', url, headers: { authorization: 'Bearer ya29.not-a-real-token' } })).statusCode, 401, url);
    }
    assert.equal((await t.twin.app.inject({ method: 'HEAD', url: keysPath(), headers: { authorization: `Bearer ${await t.token(ALICE)}` } })).statusCode, 200);
  });

  test('a token this process has cached (verified) keeps passing, and a new token of another caller is checked on its own', async () => {
    const alice = await t.token(ALICE);
    for (let i = 0; i < 3; i++) assert.equal((await withBearer(t, alice)).statusCode, 200);
    assertUnauthenticated(await withBearer(t, alice + 'x'), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    const readOnly = await t.token(ALICE, [READ_ONLY]);
    assert.equal((await withBearer(t, readOnly)).statusCode, 200);
    // Cached, but without a scope the create method needs: refused with the scope error every time.
    for (let i = 0; i < 2; i++) assert.equal((await withBearer(t, readOnly, { method: 'POST' })).statusCode, 403);
  });

  test('credentials are checked before the body is validated', async () => {
    const res = await t.call(null, { method: 'POST', url: keysPath(), payload: { bogus: true } });
    assert.equal(res.statusCode, 401);
  });

  test('an unknown or malformed token: 401', async () => {
    assertUnauthenticated(await withBearer(t, 'ya29.not-a-real-token'), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    assertUnauthenticated(await withBearer(t, 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln'), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    assertUnauthenticated(await t.twin.app.inject({ method: 'GET', url: keysPath(), headers: { authorization: 'Basic YWxpY2U6cHc=' } }), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });

  test('an expired token: 401 ACCESS_TOKEN_EXPIRED', async () => {
    const token = await t.token(ALICE, undefined, -10);
    assertUnauthenticated(await withBearer(t, token), 'ACCESS_TOKEN_EXPIRED');
  });

  test('advancing the twin clock does not expire tokens', async () => {
    const token = await t.token(ALICE, undefined, 600);
    const res = await t.admin('POST', '/_twin/v1/clock:advance', { seconds: 7200 });
    assert.equal(res.statusCode, 200);
    assert.equal((await withBearer(t, token)).statusCode, 200);
  });

  test('?access_token= works like the header', async () => {
    const token = await t.token(ALICE);
    const res = await t.twin.app.inject({ method: 'GET', url: `${keysPath()}?access_token=${token}` });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('an API key alone: 401 "API keys are not supported by this API"', async () => {
    const message =
      'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication';
    for (const req of [
      { method: 'GET' as const, url: `${keysPath()}?key=AIzaSyA0000000000000000000000000000000` },
      { method: 'GET' as const, url: keysPath(), headers: { 'x-goog-api-key': 'AIzaSyA0000000000000000000000000000000' } },
    ]) {
      const err = assertError(await t.twin.app.inject(req), 401, 'UNAUTHENTICATED', message);
      assert.equal(errorInfo(err).reason, 'CREDENTIALS_MISSING');
      assert.deepEqual(errorInfo(err).metadata, LIST_METHOD);
    }
  });

  test('another project: 403 IAM_PERMISSION_DENIED naming permission and resource', async () => {
    const err = assertError(
      await t.call(ALICE, { method: 'GET', url: keysPath(OTHER.projectId) }),
      403,
      'PERMISSION_DENIED',
      `Permission 'apikeys.keys.list' denied on resource '//apikeys.googleapis.com/projects/other-project/locations/global' (or it may not exist).`,
    );
    assert.deepEqual(err.details, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'IAM_PERMISSION_DENIED',
        domain: 'apikeys.googleapis.com',
        metadata: { permission: 'apikeys.keys.list', resource: 'projects/other-project/locations/global' },
      },
    ]);
  });

  test('an unknown project answers exactly like a denied one', async () => {
    const denied = (await t.call(ALICE, { method: 'GET', url: keysPath(OTHER.projectId) })).json();
    const unknown = await t.call(ALICE, { method: 'GET', url: keysPath('no-such-project') });
    assert.equal(unknown.statusCode, 403);
    assert.equal(unknown.body.replaceAll('no-such-project', 'other-project'), JSON.stringify(denied, null, 2) + '\n');
    assertError(await t.call(ALICE, { method: 'GET', url: keysPath('999999999999') }), 403, 'PERMISSION_DENIED');
  });

  test('a viewer may list but not create: 403 names apikeys.keys.create', async () => {
    assert.equal((await t.call(BOB, { method: 'GET', url: keysPath() })).statusCode, 200);
    const err = assertError(
      await t.call(BOB, { method: 'POST', url: keysPath(), payload: {} }),
      403,
      'PERMISSION_DENIED',
      `Permission 'apikeys.keys.create' denied on resource '//apikeys.googleapis.com/projects/demo-project/locations/global' (or it may not exist).`,
    );
    assert.equal(errorInfo(err).metadata.permission, 'apikeys.keys.create');
  });

  test('a principal with no role anywhere: 403', async () => {
    assertError(await t.call(MALLORY, { method: 'GET', url: keysPath() }), 403, 'PERMISSION_DENIED');
  });

  test('the read-only scope can list but not create: 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT', async () => {
    assert.equal((await t.call(ALICE, { method: 'GET', url: keysPath(), scopes: [READ_ONLY] })).statusCode, 200);
    const err = assertError(await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {}, scopes: [READ_ONLY] }), 403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.');
    assert.deepEqual(err.details, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
        domain: 'googleapis.com',
        metadata: { method: 'google.api.apikeys.v2.ApiKeys.CreateKey', service: 'apikeys.googleapis.com' },
      },
    ]);
  });

  test('an unrelated scope cannot even list', async () => {
    const err = assertError(await t.call(ALICE, { method: 'GET', url: keysPath(), scopes: ['https://www.googleapis.com/auth/userinfo.email'] }), 403, 'PERMISSION_DENIED');
    assert.equal(errorInfo(err).reason, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT');
  });

  test('an owner of the organization may create in its projects, also under a folder', async () => {
    for (const project of [DEMO.projectId, OTHER.projectId]) {
      const res = await t.call(CAROL, { method: 'POST', url: keysPath(project), payload: {} });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().response.name);
    }
  });

  test('custom roles from the world document grant exactly their permissions', async () => {
    const res = await t.admin('POST', '/_twin/v1/world:apply', {
      roles: [{ name: `organizations/100000000001/roles/keyLister`, includedPermissions: ['apikeys.keys.list'] }],
      iamPolicies: [{ resource: 'folders/200000000001', bindings: [{ role: 'organizations/100000000001/roles/keyLister', members: ['user:dave@example.com'] }] }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await t.call('user:dave@example.com', { method: 'GET', url: keysPath(OTHER.projectId) })).statusCode, 200);
    assertError(await t.call('user:dave@example.com', { method: 'GET', url: keysPath(DEMO.projectId) }), 403, 'PERMISSION_DENIED');
    const err = assertError(await t.call('user:dave@example.com', { method: 'POST', url: keysPath(OTHER.projectId), payload: {} }), 403, 'PERMISSION_DENIED');
    assert.equal(errorInfo(err).metadata.permission, 'apikeys.keys.create');
  });
});

describe('auth: service-account keys', () => {
  let t: TestTwin;
  let keyFile: Record<string, string>;
  let privateKey: SigningKey;
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (opts: { claims?: Record<string, unknown>; kid?: string; key?: SigningKey; iat?: number; exp?: number; aud?: string; iss?: string } = {}) => {
    const iat = opts.iat ?? now();
    const jwt = new SignJWT(opts.claims ?? { scope: CLOUD_PLATFORM })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: opts.kid ?? keyFile.private_key_id })
      .setIssuer(opts.iss ?? keyFile.client_email)
      .setSubject(opts.iss ?? keyFile.client_email)
      .setIssuedAt(iat)
      .setExpirationTime(opts.exp ?? iat + 3600);
    if (opts.aud) jwt.setAudience(opts.aud);
    return jwt.sign(opts.key ?? privateKey);
  };
  const tokenRequest = (form: Record<string, string>) =>
    t.twin.app.inject({ method: 'POST', url: '/token', payload: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  before(async () => {
    t = await startTestTwin();
    const res = await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: CI_SA });
    assert.equal(res.statusCode, 200, res.body);
    keyFile = res.json();
    privateKey = (await importPKCS8(keyFile.private_key, 'RS256'));
  });
  after(() => t.close());

  test('the key file is in Google\'s format', () => {
    assert.equal(keyFile.type, 'service_account');
    assert.equal(keyFile.client_email, CI_SA);
    assert.equal(keyFile.project_id, DEMO.projectId);
    assert.match(keyFile.private_key_id, /^[0-9a-f]{40}$/);
    assert.match(keyFile.private_key, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(keyFile.token_uri, /\/token$/);
  });

  test('an unknown service account gets no key', async () => {
    assertError(await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: 'ghost-robot@demo-project.iam.gserviceaccount.com' }), 400, 'INVALID_ARGUMENT');
  });

  test('a self-signed JWT with a scope is accepted and acts as the service account', async () => {
    const jwt = await sign();
    assert.equal((await withBearer(t, jwt)).statusCode, 200);
    const created = await withBearer(t, jwt, { method: 'POST' });
    assert.equal(created.statusCode, 200, created.body);
    assertError(await withBearer(t, jwt, { url: keysPath(OTHER.projectId) }), 403, 'PERMISSION_DENIED');
  });

  test('a self-signed JWT with the API Keys audience instead of a scope is accepted (with or without the slash)', async () => {
    for (const aud of ['https://apikeys.googleapis.com/', 'https://apikeys.googleapis.com']) {
      const jwt = await sign({ claims: {}, aud });
      assert.equal((await withBearer(t, jwt)).statusCode, 200);
      assert.equal((await withBearer(t, jwt, { method: 'POST' })).statusCode, 200, 'full access to that API');
    }
  });

  test('a JWT without scope whose audience names another API (or no API) is 401 like any invalid credential', async () => {
    for (const aud of ['https://compute.googleapis.com/', 'https://youtube.googleapis.com/', 'https://apikeys.googleapis.com/v2/', 'http://apikeys.googleapis.com/', keyFile.token_uri, 'apikeys.googleapis.com']) {
      const jwt = await sign({ claims: {}, aud });
      assertUnauthenticated(await withBearer(t, jwt), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
      assertUnauthenticated(await withBearer(t, jwt), 'ACCESS_TOKEN_TYPE_UNSUPPORTED'); // the cached verification too
    }
  });

  test('a JWT with a scope is accepted whatever its audience', async () => {
    assert.equal((await withBearer(t, await sign({ aud: 'https://compute.googleapis.com/' }))).statusCode, 200);
  });

  test('a JWT with a read-only scope may not create', async () => {
    const jwt = await sign({ claims: { scope: READ_ONLY } });
    assert.equal((await withBearer(t, jwt)).statusCode, 200);
    assert.equal(errorInfo(assertError(await withBearer(t, jwt, { method: 'POST' }), 403, 'PERMISSION_DENIED')).reason, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT');
  });

  test('a JWT signed with another key, an unknown kid or a tampered signature is rejected', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    assertUnauthenticated(await withBearer(t, await sign({ key: other })), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    assertUnauthenticated(await withBearer(t, await sign({ kid: 'f'.repeat(40) })), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    const good = await sign();
    const [h, p, s] = good.split('.');
    const flipped = s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    assertUnauthenticated(await withBearer(t, `${h}.${p}.${flipped}`), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    // claims changed after signing
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), iss: BOUND_SA, sub: BOUND_SA })).toString('base64url');
    assertUnauthenticated(await withBearer(t, `${h}.${forged}.${s}`), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });

  test('an expired JWT: 401 ACCESS_TOKEN_EXPIRED', async () => {
    assertUnauthenticated(await withBearer(t, await sign({ iat: now() - 7200, exp: now() - 3600 })), 'ACCESS_TOKEN_EXPIRED');
  });

  test('a JWT living longer than an hour is rejected', async () => {
    const iat = now();
    assertUnauthenticated(await withBearer(t, await sign({ iat, exp: iat + 2 * 3600 })), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });

  test('a JWT with neither scope nor audience is rejected', async () => {
    assertUnauthenticated(await withBearer(t, await sign({ claims: {} })), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
  });

  describe('POST /token (JWT-bearer grant)', () => {
    test('exchanges a signed assertion for an access token that works', async () => {
      const res = await tokenRequest({ grant_type: JWT_BEARER, assertion: await sign({ aud: keyFile.token_uri }) });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3599);
      assert.match(body.access_token, /^ya29\./);
      assert.equal((await withBearer(t, body.access_token, { method: 'POST' })).statusCode, 200);
      assertError(await withBearer(t, body.access_token, { url: keysPath(OTHER.projectId) }), 403, 'PERMISSION_DENIED');
    });

    test('errors are OAuth errors', async () => {
      const expectError = async (form: Record<string, string>, error: string, description: string) => {
        const res = await tokenRequest(form);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error, error_description: description });
      };
      const aud = keyFile.token_uri;
      await expectError({ grant_type: 'client_credentials', assertion: 'x' }, 'unsupported_grant_type', 'Invalid grant_type: client_credentials');
      await expectError({ grant_type: JWT_BEARER }, 'invalid_request', 'Missing required parameter: assertion');
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      await expectError({ grant_type: JWT_BEARER, assertion: await sign({ aud, key: other }) }, 'invalid_grant', 'Invalid JWT Signature.');
      await expectError({ grant_type: JWT_BEARER, assertion: await sign({ aud, kid: '0'.repeat(40) }) }, 'invalid_grant', 'Invalid JWT Signature.');
      const longLived = 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';
      await expectError({ grant_type: JWT_BEARER, assertion: await sign({ aud, exp: now() + 2 * 3600 }) }, 'invalid_grant', longLived);
      await expectError({ grant_type: JWT_BEARER, assertion: await sign({ aud, iat: now() - 7200, exp: now() - 3600 }) }, 'invalid_grant', longLived);
      await expectError({ grant_type: JWT_BEARER, assertion: await sign({ aud, claims: {} }) }, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
      const wrongAud = await tokenRequest({ grant_type: JWT_BEARER, assertion: await sign({ aud: 'https://example.com/' }) });
      assert.equal(wrongAud.statusCode, 400);
      assert.equal(wrongAud.json().error, 'invalid_grant');
    });

    test('a disabled service account: invalid_grant account not found, and its JWTs stop working', async () => {
      const res = await t.admin('POST', '/_twin/v1/serviceAccountKeys', { serviceAccount: BOUND_SA });
      const kf = res.json();
      const key = (await importPKCS8(kf.private_key, 'RS256'));
      const assertion = await sign({ aud: kf.token_uri, kid: kf.private_key_id, key, iss: BOUND_SA });
      assert.equal((await tokenRequest({ grant_type: JWT_BEARER, assertion })).statusCode, 200);
      assert.equal((await t.admin('POST', '/_twin/v1/world:apply', { serviceAccounts: [{ email: BOUND_SA, disabled: true }] })).statusCode, 200);
      const denied = await tokenRequest({ grant_type: JWT_BEARER, assertion });
      assert.deepEqual(denied.json(), { error: 'invalid_grant', error_description: 'Invalid grant: account not found' });
      const selfSigned = await sign({ kid: kf.private_key_id, key, iss: BOUND_SA });
      assertUnauthenticated(await withBearer(t, selfSigned), 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    });
  });
});

describe('auth: permissive mode', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ auth: 'permissive' });
  });
  after(() => t.close());

  test('any bearer token is owner everywhere', async () => {
    for (const project of [DEMO.projectId, OTHER.projectId, 'loose-project']) {
      const res = await withBearer(t, 'anything-at-all', { method: 'POST', url: keysPath(project) });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().response.keyString);
    }
  });

  test('an undeclared project comes into being on first use; a name that cannot be a project is still denied', async () => {
    const res = await withBearer(t, 'anything', { url: keysPath('no-such-project') });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {});
    assertError(await withBearer(t, 'anything', { url: keysPath('No_Such_Project') }), 403, 'PERMISSION_DENIED');
  });

  test('no token is still 401', async () => {
    const err = assertError(await t.twin.app.inject({ method: 'GET', url: keysPath() }), 401, 'UNAUTHENTICATED');
    assert.equal(errorInfo(err).reason, 'CREDENTIALS_MISSING');
  });
});
