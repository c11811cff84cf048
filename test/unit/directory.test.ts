import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Directory, type DirectoryData } from '../../src/platform/iam/directory.ts';
import { PREDEFINED_ROLES } from '../../src/platform/iam/permissions.ts';

const CONSTRAINT = 'constraints/iam.managed.disableServiceAccountApiKeyCreation';

function directory(extra: Partial<DirectoryData> = {}): Directory {
  return new Directory({
    organizations: [{ id: '1', domain: 'example.com' }],
    folders: [{ id: '10', parent: 'organizations/1' }, { id: '11', parent: 'folders/10' }],
    projects: [
      { projectNumber: '100', projectId: 'in-org', parent: 'organizations/1' },
      { projectNumber: '101', projectId: 'deep', parent: 'folders/11' },
      { projectNumber: '102', projectId: 'loose', parent: null },
    ],
    serviceAccounts: [{ email: 'sa@in-org.iam.gserviceaccount.com', projectId: 'in-org', uniqueId: '1', disabled: false }],
    policies: [],
    customRoles: [],
    orgPolicies: [],
    ...extra,
  });
}

describe('resource hierarchy', () => {
  test('projects resolve by id and by number', () => {
    const d = directory();
    assert.equal(d.project('in-org')?.projectNumber, '100');
    assert.equal(d.project('100')?.projectId, 'in-org');
    assert.equal(d.project('nope'), undefined);
  });
  test('ancestry walks folders up to the organization', () => {
    assert.deepEqual(directory().ancestry('projects/101'), ['projects/101', 'folders/11', 'folders/10', 'organizations/1']);
    assert.equal(directory().organizationOf('101'), 'organizations/1');
    assert.equal(directory().organizationOf('102'), undefined);
  });
});

describe('IAM policies', () => {
  test('a binding on an ancestor is inherited downward, not upward', () => {
    const d = directory({ policies: [{ resource: 'folders/10', bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: ['user:a@example.com'] }] }] });
    assert.equal(d.hasPermission('user:a@example.com', 'projects/101', 'apikeys.keys.create'), true);
    assert.equal(d.hasPermission('user:a@example.com', 'projects/100', 'apikeys.keys.create'), false);
    assert.equal(d.hasPermission('user:a@example.com', 'projects/102', 'apikeys.keys.create'), false);
  });
  test('a role grants only its permissions', () => {
    const d = directory({ policies: [{ resource: 'projects/100', bindings: [{ role: 'roles/serviceusage.apiKeysViewer', members: ['user:v@example.com'] }] }] });
    assert.equal(d.hasPermission('user:v@example.com', 'projects/100', 'apikeys.keys.list'), true);
    assert.equal(d.hasPermission('user:v@example.com', 'projects/100', 'apikeys.keys.create'), false);
    assert.equal(d.hasPermission('user:v@example.com', 'projects/100', 'apikeys.keys.update'), false);
    assert.equal(d.hasPermission('user:v@example.com', 'projects/100', 'serviceusage.operations.get'), false);
  });
  test('domain:, allAuthenticatedUsers and custom roles', () => {
    const d = directory({
      customRoles: [{ name: 'organizations/1/roles/keyReader', permissions: ['apikeys.keys.getKeyString'] }],
      policies: [
        { resource: 'organizations/1', bindings: [{ role: 'organizations/1/roles/keyReader', members: ['domain:example.com'] }] },
        { resource: 'projects/102', bindings: [{ role: 'roles/viewer', members: ['allAuthenticatedUsers'] }] },
      ],
    });
    assert.equal(d.hasPermission('user:x@example.com', 'projects/100', 'apikeys.keys.getKeyString'), true);
    assert.equal(d.hasPermission('user:x@other.com', 'projects/100', 'apikeys.keys.getKeyString'), false);
    assert.equal(d.hasPermission('user:anyone@other.com', 'projects/102', 'apikeys.keys.list'), true);
  });
  test('predefined roles: owner has all API Keys permissions; viewers read keys and their strings but change nothing (as Google defines them)', () => {
    for (const p of ['apikeys.keys.create', 'apikeys.keys.getKeyString', 'apikeys.keys.lookup']) assert.ok(PREDEFINED_ROLES['roles/owner'].includes(p));
    for (const role of ['roles/viewer', 'roles/serviceusage.apiKeysViewer']) {
      for (const p of ['apikeys.keys.get', 'apikeys.keys.list', 'apikeys.keys.getKeyString', 'apikeys.keys.lookup']) assert.ok(PREDEFINED_ROLES[role].includes(p), `${role} ${p}`);
      for (const p of ['apikeys.keys.create', 'apikeys.keys.update', 'apikeys.keys.delete', 'apikeys.keys.undelete']) assert.ok(!PREDEFINED_ROLES[role].includes(p), `${role} ${p}`);
    }
    assert.ok(PREDEFINED_ROLES['roles/serviceusage.apiKeysAdmin'].includes('serviceusage.operations.get'));
    assert.ok(PREDEFINED_ROLES['roles/compute.admin'].includes('compute.instanceTemplates.create'));
  });
});

describe('org-policy constraints', () => {
  test('disableServiceAccountApiKeyCreation is enforced by default', () => {
    assert.equal(directory().isConstraintEnforced(CONSTRAINT, '100'), true);
    assert.equal(directory().isConstraintEnforced('constraints/some.other', '100'), false);
  });
  test('the nearest explicit setting wins: project > folder > organization', () => {
    const d = directory({
      orgPolicies: [
        { resource: 'organizations/1', constraint: CONSTRAINT, enforce: false },
        { resource: 'folders/11', constraint: CONSTRAINT, enforce: true },
      ],
    });
    assert.equal(d.isConstraintEnforced(CONSTRAINT, '100'), false);
    assert.equal(d.isConstraintEnforced(CONSTRAINT, '101'), true);
    const d2 = directory({
      orgPolicies: [
        { resource: 'folders/11', constraint: CONSTRAINT, enforce: true },
        { resource: 'projects/101', constraint: CONSTRAINT, enforce: false },
      ],
    });
    assert.equal(d2.isConstraintEnforced(CONSTRAINT, '101'), false);
  });
});
