import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, invalidArgument } from '../../src/platform/http/errors.ts';
import { errorEnvelope } from '../../src/platform/http/envelope.ts';

const denied = new ApiError({ status: 'PERMISSION_DENIED', message: 'no', reason: 'IAM_PERMISSION_DENIED', domain: 'apikeys.googleapis.com', metadata: { permission: 'p' } });

describe('error envelopes', () => {
  test('modern: code, message, status and ErrorInfo first in details; no errors[]', () => {
    assert.deepEqual(errorEnvelope(denied, 'modern'), {
      error: {
        code: 403,
        message: 'no',
        status: 'PERMISSION_DENIED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'IAM_PERMISSION_DENIED', domain: 'apikeys.googleapis.com', metadata: { permission: 'p' } }],
      },
    });
  });
  test('legacy adds errors[] from reason and domain', () => {
    const e = errorEnvelope(denied, 'legacy').error;
    assert.deepEqual(e.errors, [{ message: 'no', domain: 'apikeys.googleapis.com', reason: 'IAM_PERMISSION_DENIED' }]);
    assert.equal(e.status, 'PERMISSION_DENIED');
  });
  test('compute: errors[] with domain global, no status, no details', () => {
    const e = errorEnvelope(new ApiError({ status: 'NOT_FOUND', message: 'gone' }), 'compute').error;
    assert.deepEqual(e, { code: 404, message: 'gone', errors: [{ message: 'gone', domain: 'global', reason: 'notFound' }] });
  });
  test('BadRequest field violations ride along; no ErrorInfo without a reason', () => {
    const e = errorEnvelope(invalidArgument('bad', [{ field: 'key.display_name', description: 'too long' }]), 'modern').error;
    assert.deepEqual(e.details, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'key.display_name', description: 'too long' }] }]);
  });
  test('canonical status maps to HTTP and gRPC codes; an explicit HTTP code wins', () => {
    assert.equal(new ApiError({ status: 'ALREADY_EXISTS', message: '' }).grpcCode, 6);
    assert.equal(new ApiError({ status: 'FAILED_PRECONDITION', message: '' }).httpCode, 400);
    assert.equal(new ApiError({ status: 'RESOURCE_EXHAUSTED', message: '' }).httpCode, 429);
    assert.equal(new ApiError({ status: 'INVALID_ARGUMENT', message: '', httpCode: 413 }).httpCode, 413);
  });
});
