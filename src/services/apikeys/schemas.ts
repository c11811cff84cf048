import { type Static, Type } from '@sinclair/typebox';

/** Request schemas of the API Keys service (TypeBox: one declaration, type and validator). */
const Strings = (maxItems: number) => Type.Array(Type.String({ maxLength: 4096 }), { maxItems });
const closed = { additionalProperties: false } as const;

/** Generous schema bounds; the exact limits (1200 restrictions, 63-char names) are rules with their own messages. */
const MAX_LIST = 5000;

export const RestrictionsSchema = Type.Object(
  {
    browserKeyRestrictions: Type.Optional(Type.Object({ allowedReferrers: Type.Optional(Strings(MAX_LIST)) }, closed)),
    serverKeyRestrictions: Type.Optional(Type.Object({ allowedIps: Type.Optional(Strings(MAX_LIST)) }, closed)),
    androidKeyRestrictions: Type.Optional(
      Type.Object(
        {
          allowedApplications: Type.Optional(
            Type.Array(Type.Object({ sha1Fingerprint: Type.Optional(Type.String({ maxLength: 200 })), packageName: Type.Optional(Type.String({ maxLength: 1000 })) }, closed), { maxItems: MAX_LIST }),
          ),
        },
        closed,
      ),
    ),
    iosKeyRestrictions: Type.Optional(Type.Object({ allowedBundleIds: Type.Optional(Strings(MAX_LIST)) }, closed)),
    apiTargets: Type.Optional(Type.Array(Type.Object({ service: Type.Optional(Type.String({ maxLength: 1000 })), methods: Type.Optional(Strings(1000)) }, closed), { maxItems: 1000 })),
  },
  closed,
);

/** The Key message as a request body; output-only fields are accepted and ignored. */
export const KeySchema = Type.Object(
  {
    name: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    displayName: Type.Optional(Type.String({ maxLength: 10_000 })),
    keyString: Type.Optional(Type.String()),
    createTime: Type.Optional(Type.String()),
    updateTime: Type.Optional(Type.String()),
    deleteTime: Type.Optional(Type.String()),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 100_000 }))),
    restrictions: Type.Optional(RestrictionsSchema),
    etag: Type.Optional(Type.String()),
    serviceAccountEmail: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  closed,
);
export type KeyBody = Static<typeof KeySchema>;

export const KeyParams = Type.Object({ project: Type.String(), location: Type.String(), key: Type.String() });
export type KeyParams = Static<typeof KeyParams>;
export const ParentParams = Type.Object({ project: Type.String(), location: Type.String() });
export type ParentParams = Static<typeof ParentParams>;

export const NoQuery = Type.Object({}, closed);

/** The query parameters of each method: REST validates its query with them, gRPC the same fields of its request message. */
export const CreateKeyQuery = Type.Object({ keyId: Type.Optional(Type.String({ maxLength: 1000 })) }, closed);
export const ListKeysQuery = Type.Object(
  { pageSize: Type.Optional(Type.Integer()), pageToken: Type.Optional(Type.String({ maxLength: 2000 })), showDeleted: Type.Optional(Type.Boolean()) },
  closed,
);
export const UpdateKeyQuery = Type.Object({ updateMask: Type.Optional(Type.String({ maxLength: 1000 })) }, closed);
export const DeleteKeyQuery = Type.Object({ etag: Type.Optional(Type.String({ maxLength: 200 })) }, closed);
export const LookupKeyQuery = Type.Object({ keyString: Type.String({ maxLength: 1000 }) }, closed);
/** An operation's id (the part after `operations/`). */
export const OperationParams = Type.Object({ operation: Type.String({ maxLength: 500 }) });
export const MAP_FIELDS: ReadonlySet<string> = new Set(['annotations']);
