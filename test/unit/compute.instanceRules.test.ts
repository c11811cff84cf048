/** The instance rules: internal IP allocation in a subnetwork's range, a template merged with a body, fingerprints, the zone's machine types, status on the clock. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/platform/http/errors.ts';
import { firstFreeAddress, unusableAddress } from '../../src/services/compute/instance/ipAllocation.ts';
import { checkFingerprint, machineTypeLink, mergeTemplate, statusAt } from '../../src/services/compute/instance/rules.ts';

describe('internal IP allocation', () => {
  test('the first free address skips the network address and the gateway', () => {
    assert.equal(firstFreeAddress('10.0.0.0/24', new Set()), '10.0.0.2');
    assert.equal(firstFreeAddress('10.0.0.0/24', new Set(['10.0.0.2', '10.0.0.3'])), '10.0.0.4');
  });
  test('a /29 gives four addresses, never the second-to-last or the broadcast one; then none', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 4; i++) taken.add(firstFreeAddress('10.1.0.0/29', taken)!);
    assert.deepEqual([...taken], ['10.1.0.2', '10.1.0.3', '10.1.0.4', '10.1.0.5']);
    assert.equal(firstFreeAddress('10.1.0.0/29', taken), undefined);
  });
  test('an asked address: outside the range, reserved or not IPv4 is refused', () => {
    assert.equal(unusableAddress('10.1.0.0/29', '10.1.0.3'), undefined);
    for (const ip of ['10.1.0.0', '10.1.0.1', '10.1.0.6', '10.1.0.7']) assert.match(unusableAddress('10.1.0.0/29', ip)!, /reserved/);
    assert.match(unusableAddress('10.1.0.0/29', '10.1.0.8')!, /outside/);
    assert.match(unusableAddress('10.1.0.0/29', '10.1.0')!, /not a valid IPv4/);
  });
});

describe('template merge', () => {
  test('each field the body sets replaces the template\'s whole; the others come from the template', () => {
    const merged = mergeTemplate({ machineType: 'e2-medium', labels: { a: '1', b: '2' }, disks: [{ boot: true }] }, { name: 'vm', labels: { c: '3' } });
    assert.deepEqual(merged, { machineType: 'e2-medium', labels: { c: '3' }, disks: [{ boot: true }], name: 'vm' });
  });
});

describe('fingerprints, machine types, status', () => {
  test('a stale fingerprint is 412 conditionNotMet', () => {
    checkFingerprint('abc=', 'abc=', 'labelFingerprint');
    assert.throws(() => checkFingerprint('abc=', 'old=', 'labelFingerprint'), (e: ApiError) => e.httpCode === 412 || (e as unknown as { status: string }).status === 'FAILED_PRECONDITION');
  });
  test('a machine type must exist in the zone', () => {
    assert.equal(machineTypeLink('e2-medium', 'p', 'us-central1-a'), 'https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/machineTypes/e2-medium');
    assert.equal(machineTypeLink('zones/us-central1-a/machineTypes/custom-2-4096', 'p', 'us-central1-a').endsWith('/custom-2-4096'), true);
    assert.throws(() => machineTypeLink('zones/us-central1-a/machineTypes/n9-mega', 'p', 'us-central1-a'), /does not exist in zone 'us-central1-a'/);
    assert.throws(() => machineTypeLink('zones/us-east1-b/machineTypes/e2-medium', 'p', 'us-central1-a'), /must be in zone/);
  });
  test('an insert reads PROVISIONING, then STAGING past half its delay; a stored status otherwise', () => {
    assert.equal(statusAt({ status: 'PROVISIONING', statusSinceMs: 1000 }, 1000, 10_000), 'PROVISIONING');
    assert.equal(statusAt({ status: 'PROVISIONING', statusSinceMs: 1000 }, 6000, 10_000), 'STAGING');
    assert.equal(statusAt({ status: 'TERMINATED' }, 6000, 10_000), 'TERMINATED');
  });
});
