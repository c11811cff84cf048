/** Shared world and helpers of the Compute HTTP suites. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestTwin } from '../support/twin.ts';
import { ALICE, BOB, CI_SA, DEMO, ORG, testWorld } from '../support/world.ts';

export const CORA = 'user:cora@example.com'; // compute.instanceAdmin.v1 on demo
export const VIC = 'user:vic@example.com'; // compute.viewer on demo
export const NINA = 'user:nina@example.com'; // custom role: templates only, no network or image permissions
export const REGION = 'us-central1';
export const P = DEMO.projectId;
export const LINK = 'https://www.googleapis.com/compute/v1/';

export const templatesPath = (region = REGION, project = P) => `/compute/v1/projects/${project}/regions/${region}/instanceTemplates`;
export const templatePath = (name: string, region = REGION, project = P) => `${templatesPath(region, project)}/${name}`;
export const operationsPath = (region = REGION, project = P) => `/compute/v1/projects/${project}/regions/${region}/operations`;

/**
 * The two template collections the suites run against (parametrized, not copied): the regional
 * one (in REGION) and the global one. Everything that differs between them is here.
 */
export interface TemplateScopeCase {
  label: 'regional' | 'global';
  /** The region, undefined for the global collection. */
  region: string | undefined;
  /** `projects/P/regions/R` or `projects/P/global` (the scope part of names in messages and links). */
  scopePath(project?: string): string;
  templatesPath(project?: string): string;
  templatePath(name: string, project?: string): string;
  operationsPath(project?: string): string;
  /** `operationType` of the operations of inserts and deletes. */
  operationType(verb: 'insert' | 'delete'): string;
  /** The permission of `get` / `list` / `delete` on its operations. */
  operationPermission(verb: 'get' | 'list' | 'delete'): string;
}

function scopeCase(region: string | undefined): TemplateScopeCase {
  const scopePath = (project = P) => (region ? `projects/${project}/regions/${region}` : `projects/${project}/global`);
  return {
    label: region ? 'regional' : 'global',
    region,
    scopePath,
    templatesPath: (project = P) => `/compute/v1/${scopePath(project)}/instanceTemplates`,
    templatePath: (name, project = P) => `/compute/v1/${scopePath(project)}/instanceTemplates/${name}`,
    operationsPath: (project = P) => `/compute/v1/${scopePath(project)}/operations`,
    // As recorded from the real service: a global insert names its method, a global delete is the bare verb.
    operationType: (verb) => (region ? `compute.regionInstanceTemplates.${verb}` : verb === 'insert' ? 'compute.instanceTemplates.insert' : verb),
    operationPermission: (verb) => `compute.${region ? 'region' : 'global'}Operations.${verb}`,
  };
}

export const REGIONAL_SCOPE = scopeCase(REGION);
export const GLOBAL_SCOPE = scopeCase(undefined);
export const TEMPLATE_SCOPES: readonly TemplateScopeCase[] = [REGIONAL_SCOPE, GLOBAL_SCOPE];

const demoPolicy = testWorld.iamPolicies.find((p) => p.resource === `projects/${DEMO.projectId}`)!;

export const computeWorld = {
  ...testWorld,
  roles: [{ name: `projects/${DEMO.projectId}/roles/templatesOnly`, includedPermissions: ['compute.instanceTemplates.create', 'compute.instanceTemplates.get', 'compute.regionOperations.get'] }],
  iamPolicies: [
    ...testWorld.iamPolicies.filter((p) => p !== demoPolicy),
    {
      resource: `projects/${DEMO.projectId}`,
      bindings: [
        ...demoPolicy.bindings,
        { role: 'roles/compute.instanceAdmin.v1', members: [CORA, `serviceAccount:${CI_SA}`] },
        { role: 'roles/compute.viewer', members: [VIC] },
        { role: `projects/${DEMO.projectId}/roles/templatesOnly`, members: [NINA] },
      ],
    },
  ],
  compute: {
    networks: [
      { name: 'default', project: P, autoCreateSubnetworks: true },
      { name: 'custom-net', project: P, autoCreateSubnetworks: false, selfLink: `${LINK}projects/${P}/global/networks/custom-net`, kind: 'compute#network' },
      { name: 'legacy-net', project: P, IPv4Range: '10.240.0.0/16' },
    ],
    subnetworks: [
      {
        name: 'sub-a',
        project: P,
        region: REGION,
        network: `${LINK}projects/${P}/global/networks/custom-net`,
        ipCidrRange: '10.1.0.0/20',
        secondaryIpRanges: [{ rangeName: 'pods', ipCidrRange: '10.4.0.0/14' }],
      },
      { name: 'sub-eu', project: P, region: 'europe-west1', network: 'custom-net', ipCidrRange: '10.2.0.0/20' },
    ],
    images: [
      { name: 'my-image-v1', project: P, family: 'my-fam', creationTimestamp: '2024-01-01T00:00:00.000-08:00' },
      { name: 'my-image-v2', project: P, family: 'my-fam', creationTimestamp: '2024-02-01T00:00:00.000-08:00' },
    ],
    snapshots: [{ name: 'snap-1', project: P }],
    disks: [{ name: 'disk-1', project: P, zone: 'us-central1-a' }],
    instances: [{ name: 'vm-1', project: P, zone: 'us-central1-b' }],
    reservations: [{ name: 'res-1', project: P, zone: 'us-central1-a' }],
    addresses: [{ name: 'ip-std', project: P, region: REGION, address: '34.1.2.3', networkTier: 'STANDARD' }],
  },
};
void ALICE;
void BOB;
void ORG;

/** A minimal valid template body. */
export function templateBody(name: string, properties: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    properties: {
      machineType: 'e2-medium',
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
      networkInterfaces: [{ network: 'global/networks/default' }],
      ...properties,
    },
  };
}

/** Asserts a Compute error envelope (errors[] with domain global, no status) and returns `error`. */
/** A write that must end DONE without error (instant mode): its operation. */
export function assertDone(res: LightMyRequestResponse): Record<string, any> {
  assert.equal(res.statusCode, 200, res.body);
  const op = res.json();
  assert.equal(op.status, 'DONE', res.body);
  assert.equal(op.error, undefined, res.body);
  return op;
}

export function assertComputeError(res: LightMyRequestResponse, code: number, reason: string, message?: string | RegExp): Record<string, any> {
  assert.equal(res.statusCode, code, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(body.error.status, undefined);
  assert.equal(body.error.errors[0].domain, 'global');
  assert.equal(body.error.errors[0].reason, reason, res.body);
  if (typeof message === 'string') assert.equal(body.error.message, message);
  else if (message) assert.match(body.error.message, message);
  return body.error;
}

/** Inserts a template (instant mode) and returns the finished operation. */
export async function insertTemplate(
  t: TestTwin,
  body: Record<string, unknown>,
  opts: { principal?: string; region?: string; scope?: TemplateScopeCase; requestId?: string } = {},
): Promise<Record<string, any>> {
  const res = await t.call(opts.principal ?? CORA, {
    method: 'POST',
    url: (opts.scope ? opts.scope.templatesPath() : templatesPath(opts.region)) + (opts.requestId ? `?requestId=${opts.requestId}` : ''),
    payload: body,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The zone of the source instance (`web-vm`) of the templates-from-instances suites. */
export const SOURCE_ZONE = 'us-central1-b';
const ZONE = SOURCE_ZONE;
const zonal = (what: string) => `${LINK}projects/${P}/zones/${ZONE}/${what}`;

/** A running VM as `gcloud compute instances describe --format=json` prints it, and its disks. */
export const sourceInstanceWorld = {
  ...computeWorld,
  compute: {
    ...computeWorld.compute,
    disks: [
      ...computeWorld.compute.disks,
      { name: 'web-boot', project: P, zone: ZONE, sizeGb: '20', type: zonal('diskTypes/pd-balanced'), sourceImage: `${LINK}projects/${P}/global/images/my-image-v1` },
      { name: 'web-data', project: P, zone: ZONE, sizeGb: '100', type: zonal('diskTypes/pd-ssd') },
      { name: 'shared-ro', project: P, zone: ZONE, sizeGb: '10', type: zonal('diskTypes/pd-standard'), sourceImage: 'projects/debian-cloud/global/images/family/debian-12' },
    ],
    instances: [
      ...computeWorld.compute.instances,
      {
        kind: 'compute#instance',
        id: '7700000000000000001',
        name: 'web-vm',
        project: P,
        zone: ZONE,
        description: 'the web server',
        status: 'RUNNING',
        machineType: zonal('machineTypes/e2-standard-4'),
        canIpForward: false,
        disks: [
          { kind: 'compute#attachedDisk', deviceName: 'boot', boot: true, autoDelete: true, mode: 'READ_WRITE', type: 'PERSISTENT', interface: 'SCSI', index: 0, source: zonal('disks/web-boot'), diskSizeGb: '20' },
          { kind: 'compute#attachedDisk', deviceName: 'data', boot: false, autoDelete: false, mode: 'READ_WRITE', type: 'PERSISTENT', interface: 'SCSI', index: 1, source: zonal('disks/web-data') },
          { kind: 'compute#attachedDisk', deviceName: 'ro', boot: false, autoDelete: false, mode: 'READ_ONLY', type: 'PERSISTENT', interface: 'SCSI', index: 2, source: zonal('disks/shared-ro') },
          { kind: 'compute#attachedDisk', deviceName: 'local-ssd-0', boot: false, autoDelete: true, mode: 'READ_WRITE', type: 'SCRATCH', interface: 'NVME', index: 3, diskSizeGb: '375' },
        ],
        networkInterfaces: [
          {
            kind: 'compute#networkInterface',
            name: 'nic0',
            network: `${LINK}projects/${P}/global/networks/default`,
            networkIP: '10.128.0.5',
            fingerprint: 'abc=',
            stackType: 'IPV4_ONLY',
            accessConfigs: [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', natIP: '35.1.1.1', networkTier: 'PREMIUM' }],
          },
        ],
        metadata: { kind: 'compute#metadata', fingerprint: 'xyz=', items: [{ key: 'startup-script', value: 'echo hi' }] },
        tags: { items: ['http-server'], fingerprint: 'tag=' },
        labels: { app: 'web' },
        scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD' },
        serviceAccounts: [{ email: `${DEMO.projectNumber}-compute@developer.gserviceaccount.com`, scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
        shieldedInstanceConfig: { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true },
        selfLink: zonal('instances/web-vm'),
      },
    ],
  },
};
