import assert from 'node:assert/strict';

/** Asserts a rejected gax call carries the canonical gRPC code (and optionally a message fragment); returns the error. */
export async function rejectsWithCode(p: Promise<unknown>, code: number, message?: RegExp): Promise<any> {
  try {
    await p;
  } catch (err: any) {
    assert.equal(err.code, code, `expected code ${code}, got ${err.code}: ${err.message}`);
    if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected a rejection with code ${code}`);
}
