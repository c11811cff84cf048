/** The world most tests run in. */
export const ORG = '100000000001';
export const DEMO = { projectId: 'demo-project', projectNumber: '300000000001' };
export const LOOSE = { projectId: 'loose-project', projectNumber: '300000000002' };
export const OTHER = { projectId: 'other-project', projectNumber: '300000000003' };
export const BOUND_OK = { projectId: 'bound-project', projectNumber: '300000000004' };
export const CI_SA = 'ci-robot@demo-project.iam.gserviceaccount.com';
export const BOUND_SA = 'bound-robot@bound-project.iam.gserviceaccount.com';
export const ALICE = 'user:alice@example.com'; // apiKeysAdmin on demo, loose and bound
export const BOB = 'user:bob@example.com'; // apiKeysViewer on demo
export const CAROL = 'user:carol@example.com'; // owner on the organization
export const MALLORY = 'user:mallory@evil.example'; // nothing anywhere

export const testWorld = {
  organizations: [{ id: ORG, domain: 'example.com' }],
  folders: [{ id: '200000000001', parent: `organizations/${ORG}` }],
  projects: [
    { ...DEMO, parent: `organizations/${ORG}` },
    { ...LOOSE },
    { ...OTHER, parent: 'folders/200000000001' },
    { ...BOUND_OK, parent: 'folders/200000000001' },
  ],
  serviceAccounts: [{ email: CI_SA }, { email: BOUND_SA }],
  iamPolicies: [
    { resource: `projects/${DEMO.projectId}`, bindings: [
      { role: 'roles/serviceusage.apiKeysAdmin', members: [ALICE, `serviceAccount:${CI_SA}`] },
      { role: 'roles/serviceusage.apiKeysViewer', members: [BOB] },
    ] },
    { resource: `projects/${LOOSE.projectId}`, bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: [ALICE, `serviceAccount:${CI_SA}`] }] },
    { resource: `projects/${BOUND_OK.projectId}`, bindings: [{ role: 'roles/serviceusage.apiKeysAdmin', members: [ALICE, `serviceAccount:${CI_SA}`] }] },
    { resource: `organizations/${ORG}`, bindings: [{ role: 'roles/owner', members: [CAROL] }] },
  ],
  orgPolicies: [{ resource: `projects/${BOUND_OK.projectId}`, constraint: 'constraints/iam.managed.disableServiceAccountApiKeyCreation', enforce: false }],
};
