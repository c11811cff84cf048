/** Resource names of the API Keys service. */
export const SERVICE = 'apikeys.googleapis.com';
export const KEY_TYPE = 'type.googleapis.com/google.api.apikeys.v2.Key';
export const RPC = 'google.api.apikeys.v2.ApiKeys';

export const keyName = (projectNumber: string, keyId: string) => `projects/${projectNumber}/locations/global/keys/${keyId}`;
export const parentName = (projectNumber: string) => `projects/${projectNumber}/locations/global`;

/** Per-method operation name prefixes, as the real service issues them (`akmf.p7-` for create). */
export const OPERATION_PREFIX = { create: 'p7', update: 'p10', delete: 'p12', undelete: 'p13' } as const;
export type KeyOperation = keyof typeof OPERATION_PREFIX;

export const operationName = (op: KeyOperation, projectNumber: string, uuid: string) => `operations/akmf.${OPERATION_PREFIX[op]}-${projectNumber}-${uuid}`;
