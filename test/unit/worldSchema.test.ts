import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorldSchema, fieldPath, schemaErrors } from '../../src/admin/worldSchema.ts';
import { testWorld } from '../support/world.ts';

describe('world document schema', () => {
  test('the test world and an empty document are valid', () => {
    assert.deepEqual(schemaErrors(WorldSchema, testWorld), []);
    assert.deepEqual(schemaErrors(WorldSchema, {}), []);
  });
  test('errors name the bad field with its index', () => {
    const errs = schemaErrors(WorldSchema, { projects: [{ projectId: 'good-project', projectNumber: '1' }, { projectId: 'good-project2', projectNumber: 'x12' }] });
    assert.equal(errs.length, 1);
    assert.match(errs[0], /^projects\[1\]\.projectNumber: must be a decimal project number \(got "x12"\)$/);
  });
  test('unknown fields and unknown sections are rejected', () => {
    assert.match(schemaErrors(WorldSchema, { projects: [{ projectId: 'good-project', projectNumber: '1', colour: 'red' }] })[0], /^projects\[0\]/);
    assert.match(schemaErrors(WorldSchema, { galaxies: [] })[0], /galaxies|document/);
  });
  test('members, roles and constraints are checked', () => {
    assert.match(schemaErrors(WorldSchema, { iamPolicies: [{ resource: 'projects/p', bindings: [{ role: 'roles/owner', members: ['alice@example.com'] }] }] })[0], /^iamPolicies\[0\]\.bindings\[0\]\.members\[0\]: must be user:EMAIL/);
    assert.match(schemaErrors(WorldSchema, { orgPolicies: [{ resource: 'projects/p', constraint: 'iam.x', enforce: true }] })[0], /^orgPolicies\[0\]\.constraint/);
    assert.match(schemaErrors(WorldSchema, { orgPolicies: [{ resource: 'projects/p', constraint: 'constraints/x', enforce: 'yes' }] })[0], /^orgPolicies\[0\]\.enforce/);
  });
  test('a service-account id must be 6-30 characters, and the error says so', () => {
    for (const email of ['ci@demo-project.iam.gserviceaccount.com', 'robot@demo-project.iam.gserviceaccount.com', `${'a'.repeat(31)}@demo-project.iam.gserviceaccount.com`, 'robot-@demo-project.iam.gserviceaccount.com']) {
      const errs = schemaErrors(WorldSchema, { serviceAccounts: [{ email }] });
      assert.equal(errs.length, 1, email);
      assert.match(errs[0], /^serviceAccounts\[0\]\.email: must be a service-account email ACCOUNT@PROJECT\.iam\.gserviceaccount\.com, where ACCOUNT \(the account id\) is 6-30 characters/);
    }
    for (const email of ['ci-bot@demo-project.iam.gserviceaccount.com', `a${'b'.repeat(29)}@demo-project.iam.gserviceaccount.com`]) {
      assert.deepEqual(schemaErrors(WorldSchema, { serviceAccounts: [{ email }] }), [], email);
    }
  });
  test('fieldPath turns JSON pointers into readable paths', () => {
    assert.equal(fieldPath('/projects/1/projectNumber'), 'projects[1].projectNumber');
    assert.equal(fieldPath(''), '(document)');
  });
});
