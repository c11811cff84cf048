import type { StoredKind } from '../store/reader.ts';

/** Managed instance groups in the resource store: zonal (`instanceGroupManagers`) and regional (`regionInstanceGroupManagers`) rows of one kind, told apart by their scope. */
export const INSTANCE_GROUP_MANAGERS: StoredKind = { kind: 'instanceGroupManager', collection: 'instanceGroupManagers', schema: 'InstanceGroupManager', aggregatedScopes: ['zone', 'region'] };
