import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { authorizationOf, credentialsOf, hasOAuthCredential } from '../../src/platform/auth/credentials.ts';

describe('credentials: one parser for REST, gRPC and the admin API', () => {
  test('an Authorization header: a bearer token, malformed, or none', () => {
    assert.deepEqual(authorizationOf('Bearer ya29.abc'), { bearer: 'ya29.abc' });
    assert.deepEqual(authorizationOf('  bearer   ya29.abc  '), { bearer: 'ya29.abc' });
    assert.deepEqual(authorizationOf(['Bearer first', 'Bearer second']), { bearer: 'first' });
    for (const h of ['Basic YWxpY2U6cHc=', 'ya29.abc', 'Bearer', 'Bearer a b']) assert.deepEqual(authorizationOf(h), { malformed: true }, h);
    assert.deepEqual(authorizationOf(undefined), {});
    assert.deepEqual(authorizationOf('   '), {});
  });

  test('REST query credentials: `key` wins over the header, the header bearer over `access_token`, a malformed header blocks it', () => {
    assert.deepEqual(credentialsOf({ 'x-goog-api-key': 'AIza-header' }, { key: 'AIza-query' }), { apiKey: 'AIza-query' });
    assert.deepEqual(credentialsOf({ authorization: 'Bearer header' }, { accessToken: 'query' }), { bearer: 'header' });
    assert.deepEqual(credentialsOf({}, { accessToken: 'query' }), { bearer: 'query' });
    assert.deepEqual(credentialsOf({}, { accessToken: '' }), {});
    assert.deepEqual(credentialsOf({ authorization: 'Basic x' }, { accessToken: 'query' }), { malformed: true });
  });

  test('gRPC metadata is read as REST headers are', () => {
    assert.deepEqual(credentialsOf({ authorization: 'Bearer t', 'x-goog-api-key': 'AIza-k' }), { bearer: 't', apiKey: 'AIza-k' });
  });

  test('a malformed header is an OAuth credential (to refuse), an API key alone is not', () => {
    assert.equal(hasOAuthCredential({ malformed: true }), true);
    assert.equal(hasOAuthCredential({ bearer: 't' }), true);
    assert.equal(hasOAuthCredential({ apiKey: 'AIza-k' }), false);
    assert.equal(hasOAuthCredential({ bearer: '' }), false);
  });
});
