import { Type } from '@sinclair/typebox';

/**
 * The world document's `compute` section: per project, the resources templates refer to. Each
 * entry is the real Compute resource's JSON as `gcloud ... --format=json` prints it (fields not
 * named here are accepted and ignored) plus `project` and its `region` or `zone`.
 */
const open = { additionalProperties: true } as const;
const Name = Type.String({ pattern: '^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$', description: 'a resource name: 1-63 characters, lowercase letters, digits and hyphens, starting with a letter' });
const Project = Type.String({ pattern: '^(?:[a-z][a-z0-9-]{4,28}[a-z0-9]|[1-9][0-9]{0,18})$', description: 'a project id or number' });
const Region = Type.String({ pattern: '^[a-z]+-[a-z]+[0-9]+$', description: 'a region name such as us-central1' });
const Zone = Type.String({ pattern: '^[a-z]+-[a-z]+[0-9]+-[a-z]$', description: 'a zone name such as us-central1-a' });
const Str = (max = 2048) => Type.String({ maxLength: max });
const Tier = Type.Union([Type.Literal('PREMIUM'), Type.Literal('STANDARD'), Type.Literal('FIXED_STANDARD'), Type.Literal('STANDARD_OVERRIDES_FIXED_STANDARD')]);
const list = <T extends ReturnType<typeof Type.Object>>(item: T) => Type.Optional(Type.Array(item, { maxItems: 100_000 }));

export const ComputeNetwork = Type.Object(
  { name: Name, project: Project, autoCreateSubnetworks: Type.Optional(Type.Boolean()), IPv4Range: Type.Optional(Str(64)) },
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
    stackType: Type.Optional(Type.Union([Type.Literal('IPV4_ONLY'), Type.Literal('IPV4_IPV6'), Type.Literal('IPV6_ONLY')])),
    ipv6AccessType: Type.Optional(Type.Union([Type.Literal('EXTERNAL'), Type.Literal('INTERNAL')])),
  },
  open,
);
export const ComputeImage = Type.Object({ name: Name, project: Project, family: Type.Optional(Name), status: Type.Optional(Str(32)), diskSizeGb: Type.Optional(Str(20)) }, open);
export const ComputeSnapshot = Type.Object({ name: Name, project: Project }, open);
export const ComputeDisk = Type.Object({ name: Name, project: Project, zone: Type.Optional(Zone), region: Type.Optional(Region) }, open);
export const ComputeZonal = Type.Object({ name: Name, project: Project, zone: Zone }, open);
export const ComputeAddress = Type.Object(
  { name: Name, project: Project, region: Type.Optional(Region), address: Str(64), networkTier: Type.Optional(Tier), addressType: Type.Optional(Str(32)) },
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
