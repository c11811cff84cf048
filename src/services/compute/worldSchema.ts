import { Type } from '@sinclair/typebox';

/**
 * The world document's `compute` section: per project, the resources templates refer to and
 * Compute's read methods serve. Each entry is the real Compute resource's JSON as `gcloud ...
 * --format=json` prints it plus `project` and its `region` or `zone`. This schema checks what the
 * twin needs of an entry; every field is then read as proto JSON reads the resource (world.ts,
 * against the discovery document): unknown fields, wrong types, enum values outside the schema
 * and bad timestamps are refused there, numbers and int64 strings coerced.
 */
const open = { additionalProperties: true } as const;
const Name = Type.String({ pattern: '^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$', description: 'a resource name: 1-63 characters, lowercase letters, digits and hyphens, starting with a letter' });
const Project = Type.String({ pattern: '^(?:[a-z][a-z0-9-]{4,28}[a-z0-9]|[1-9][0-9]{0,18})$', description: 'a project id or number' });
const Region = Type.String({ pattern: '^[a-z]+-[a-z]+[0-9]+$', description: 'a region name such as us-central1' });
const Zone = Type.String({ pattern: '^[a-z]+-[a-z]+[0-9]+-[a-z]$', description: 'a zone name such as us-central1-a' });
const Str = (max = 2048) => Type.String({ maxLength: max });
const list = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Optional(Type.Array(item, { maxItems: 100_000 }));

export const ComputeNetwork = Type.Object(
  { name: Name, project: Project },
  open,
);
export const ComputeSubnetwork = Type.Object(
  {
    name: Name,
    project: Project,
    region: Region,
    network: Str(),
    ipCidrRange: Str(64),
    secondaryIpRanges: Type.Optional(Type.Array(Type.Object({ rangeName: Name, ipCidrRange: Str(64) }, open), { maxItems: 170 })),
  },
  open,
);
export const ComputeImage = Type.Object({ name: Name, project: Project, family: Type.Optional(Name) }, open);
export const ComputeSnapshot = Type.Object({ name: Name, project: Project }, open);
export const ComputeDisk = Type.Object({ name: Name, project: Project, zone: Type.Optional(Zone), region: Type.Optional(Region) }, open);
export const ComputeZonal = Type.Object({ name: Name, project: Project, zone: Zone }, open);
export const ComputeAddress = Type.Object(
  { name: Name, project: Project, region: Type.Optional(Region), address: Str(64) },
  open,
);

export const ComputeWorldSchema = Type.Object(
  {
    networks: list(ComputeNetwork),
    subnetworks: list(ComputeSubnetwork),
    images: list(ComputeImage),
    snapshots: list(ComputeSnapshot),
    disks: list(ComputeDisk),
    instances: list(ComputeZonal),
    reservations: list(ComputeZonal),
    addresses: list(ComputeAddress),
    machineTypes: list(ComputeZonal),
    acceleratorTypes: list(ComputeZonal),
  },
  { additionalProperties: false },
);
