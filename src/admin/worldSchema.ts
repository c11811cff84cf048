import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { ComputeWorldSchema } from '../services/compute/worldSchema.ts';
import { echoText, echoValue } from '../platform/http/secrets.ts';

/** The world document (JSON or YAML): the one way to describe the world a test runs in. */
const closed = { additionalProperties: false } as const;
const Id = (pattern: string, description: string) => Type.String({ pattern, description });

const Organization = Type.Object({ id: Id('^[0-9]{1,20}$', 'a decimal id'), domain: Type.Optional(Type.String({ maxLength: 253 })), displayName: Type.Optional(Type.String({ maxLength: 200 })) }, closed);
const Folder = Type.Object(
  { id: Id('^[0-9]{1,20}$', 'a decimal id'), parent: Id('^(organizations|folders)/[0-9]{1,20}$', 'organizations/N or folders/N'), displayName: Type.Optional(Type.String({ maxLength: 200 })) },
  closed,
);
const Project = Type.Object(
  {
    projectId: Id('^[a-z][a-z0-9-]{4,28}[a-z0-9]$', 'a project id: 6-30 characters, lowercase letters, digits and hyphens, starting with a letter'),
    projectNumber: Id('^[1-9][0-9]{0,18}$', 'a decimal project number'),
    parent: Type.Optional(Id('^(organizations|folders)/[0-9]{1,20}$', 'organizations/N or folders/N')),
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
  },
  closed,
);
const ServiceAccountEmail = Id(
  '^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\\.iam\\.gserviceaccount\\.com$',
  'a service-account email ACCOUNT@PROJECT.iam.gserviceaccount.com, where ACCOUNT (the account id) is 6-30 characters: lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen; PROJECT is a project id',
);
const ServiceAccount = Type.Object(
  {
    email: ServiceAccountEmail,
    displayName: Type.Optional(Type.String({ maxLength: 100 })),
    uniqueId: Type.Optional(Id('^[0-9]{21}$', 'a 21-digit id')),
    disabled: Type.Optional(Type.Boolean()),
  },
  closed,
);
/** A key of a service account: an existing key (made by the admin API) to disable or enable, or an uploaded public key. */
const ServiceAccountKey = Type.Object(
  {
    serviceAccount: ServiceAccountEmail,
    keyId: Id('^[0-9a-f]{40}$', 'a key id: 40 lowercase hexadecimal digits (the private_key_id of the key file)'),
    disabled: Type.Optional(Type.Boolean()),
    publicKeyPem: Type.Optional(Type.String({ maxLength: 16384, description: 'an RSA public key (PEM)' })),
  },
  closed,
);
const Member = Id('^(allUsers|allAuthenticatedUsers|(user|serviceAccount|group|domain):[^\\s:]+)$', 'user:EMAIL, serviceAccount:EMAIL, group:EMAIL, domain:DOMAIN, allUsers or allAuthenticatedUsers');
const Binding = Type.Object({ role: Type.String({ pattern: '^(roles/|projects/[^/]+/roles/|organizations/[0-9]+/roles/)[A-Za-z0-9_.]+$' }), members: Type.Array(Member, { maxItems: 1500 }) }, closed);
const Resource = Id('^(organizations|folders|projects)/[A-Za-z0-9-]+$', 'organizations/N, folders/N or projects/ID');
const IamPolicy = Type.Object({ resource: Resource, bindings: Type.Array(Binding, { maxItems: 1500 }) }, closed);
const CustomRole = Type.Object(
  {
    name: Type.String({ pattern: '^(projects/[^/]+|organizations/[0-9]+)/roles/[A-Za-z0-9_.]{3,64}$', description: 'projects/ID/roles/NAME or organizations/N/roles/NAME' }),
    title: Type.Optional(Type.String({ maxLength: 100 })),
    includedPermissions: Type.Array(Type.String({ pattern: '^[a-z0-9]+\\.[A-Za-z0-9]+\\.[A-Za-z0-9]+$' }), { maxItems: 3000 }),
  },
  closed,
);
const OrgPolicy = Type.Object({ resource: Resource, constraint: Type.String({ pattern: '^constraints/[A-Za-z0-9_.]+$' }), enforce: Type.Boolean() }, closed);
const Section = (max: number) => Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: max });

/** A project's daily quota for one service (units; default 10,000): `{project: ID or number, service, dailyLimit}`. */
const QuotaLimit = Type.Object(
  {
    project: Id('^([a-z][a-z0-9-]{4,28}[a-z0-9]|[1-9][0-9]{0,18})$', 'a project id or number'),
    service: Id('^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$', 'a service name such as youtube.googleapis.com'),
    dailyLimit: Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 }),
  },
  closed,
);

export const WorldSchema = Type.Object(
  {
    organizations: Type.Optional(Type.Array(Organization, { maxItems: 1000 })),
    folders: Type.Optional(Type.Array(Folder, { maxItems: 10000 })),
    projects: Type.Optional(Type.Array(Project, { maxItems: 10000 })),
    serviceAccounts: Type.Optional(Type.Array(ServiceAccount, { maxItems: 10000 })),
    serviceAccountKeys: Type.Optional(Type.Array(ServiceAccountKey, { maxItems: 10000 })),
    iamPolicies: Type.Optional(Type.Array(IamPolicy, { maxItems: 10000 })),
    roles: Type.Optional(Type.Array(CustomRole, { maxItems: 1000 })),
    orgPolicies: Type.Optional(Type.Array(OrgPolicy, { maxItems: 10000 })),
    quotas: Type.Optional(Type.Array(QuotaLimit, { maxItems: 10000 })),
    compute: Type.Optional(ComputeWorldSchema),
    // Catalogue entries: Data API resource JSON + the `cloudtwin` extension (README "Media catalogue"); checked by services/media/catalog.
    media: Type.Optional(
      Type.Object({ contentOwners: Type.Optional(Section(100_000)), channels: Type.Optional(Section(1_000_000)), videos: Type.Optional(Section(1_000_000)), playlists: Type.Optional(Section(1_000_000)) }, closed),
    ),
  },
  closed,
);
export type World = Static<typeof WorldSchema>;

/** `/projects/1/projectNumber` -> `projects[1].projectNumber` */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const seg of pointer.split('/').slice(1)) out += /^\d+$/.test(seg) ? `[${seg}]` : (out ? '.' : '') + seg;
  return out || '(document)';
}

/** Schema errors as messages naming the bad field, e.g. `projects[1].projectNumber: must be a decimal project number`. */
export function schemaErrors(schema: TSchema, value: unknown, max = 10): string[] {
  const out: string[] = [];
  for (const e of Value.Errors(schema, value)) {
    const described = (e.schema as { description?: string }).description;
    let msg = e.message;
    if (described && /pattern|match/i.test(msg)) msg = `must be ${described}`;
    if (e.type === ValueErrorType.ObjectAdditionalProperties) msg = 'is not a known field';
    out.push(`${echoText(fieldPath(e.path))}: ${msg}${e.value !== undefined && typeof e.value !== 'object' ? ` (got ${echoValue(e.value)})` : ''}`);
    if (out.length >= max) break;
  }
  return out;
}
