/** Every permission cloudtwin checks, the catalogue predefined roles are built from. */
export const API_KEYS_PERMISSIONS = [
  'apikeys.keys.create',
  'apikeys.keys.delete',
  'apikeys.keys.get',
  'apikeys.keys.getKeyString',
  'apikeys.keys.list',
  'apikeys.keys.lookup',
  'apikeys.keys.undelete',
  'apikeys.keys.update',
] as const;

export const SERVICE_USAGE_PERMISSIONS = [
  'serviceusage.services.get',
  'serviceusage.services.list',
  'serviceusage.services.use',
  'serviceusage.operations.get',
  'serviceusage.operations.list',
] as const;

export const COMPUTE_PERMISSIONS = [
  'compute.instanceTemplates.create',
  'compute.instanceTemplates.delete',
  'compute.instanceTemplates.get',
  'compute.instanceTemplates.getIamPolicy',
  'compute.instanceTemplates.list',
  'compute.instanceTemplates.setIamPolicy',
  'compute.instanceTemplates.useReadOnly',
  'compute.globalOperations.delete',
  'compute.globalOperations.get',
  'compute.globalOperations.list',
  'compute.regionOperations.delete',
  'compute.regionOperations.get',
  'compute.regionOperations.list',
  'compute.zoneOperations.delete',
  'compute.zoneOperations.get',
  'compute.zoneOperations.list',
  'compute.regions.get',
  'compute.regions.list',
  'compute.networks.create',
  'compute.networks.delete',
  'compute.networks.get',
  'compute.networks.list',
  'compute.networks.switchToCustomMode',
  'compute.networks.update',
  'compute.networks.updatePolicy',
  'compute.networks.use',
  'compute.subnetworks.create',
  'compute.subnetworks.delete',
  'compute.subnetworks.expandIpCidrRange',
  'compute.subnetworks.get',
  'compute.subnetworks.list',
  'compute.subnetworks.setPrivateIpGoogleAccess',
  'compute.subnetworks.update',
  'compute.subnetworks.use',
  'compute.firewalls.create',
  'compute.firewalls.delete',
  'compute.firewalls.get',
  'compute.firewalls.list',
  'compute.firewalls.update',
  'compute.images.get',
  'compute.images.list',
  'compute.images.useReadOnly',
  'compute.snapshots.get',
  'compute.snapshots.list',
  'compute.snapshots.useReadOnly',
  'compute.disks.get',
  'compute.disks.list',
  'compute.disks.use',
  'compute.instances.get',
  'compute.instances.list',
  'compute.reservations.get',
  'compute.reservations.list',
  'compute.machineTypes.get',
  'compute.machineTypes.list',
  'compute.zones.get',
  'compute.zones.list',
  'compute.addresses.get',
  'compute.addresses.list',
  'compute.globalAddresses.get',
  'compute.globalAddresses.list',
  'compute.acceleratorTypes.get',
  'compute.acceleratorTypes.list',
] as const;

export const OTHER_PERMISSIONS = [
  'resourcemanager.projects.get',
  'iam.serviceAccounts.actAs',
  'iam.serviceAccounts.get',
  'iam.serviceAccounts.list',
] as const;

export const ALL_PERMISSIONS: readonly string[] = [...API_KEYS_PERMISSIONS, ...SERVICE_USAGE_PERMISSIONS, ...COMPUTE_PERMISSIONS, ...OTHER_PERMISSIONS];

const isRead = (p: string) => /\.(get|list|getIamPolicy)$/.test(p);

/** Predefined roles, each as the exact set of permissions it grants. */
export const PREDEFINED_ROLES: Record<string, readonly string[]> = {
  'roles/owner': ALL_PERMISSIONS,
  'roles/editor': ALL_PERMISSIONS,
  // roles/viewer reads API keys, their strings included (Google's API Keys access-control page).
  'roles/viewer': ALL_PERMISSIONS.filter((p) => isRead(p) || p === 'apikeys.keys.getKeyString' || p === 'apikeys.keys.lookup'),
  // The API Keys roles as Google defines them (IAM roles and permissions: Service Usage).
  'roles/serviceusage.apiKeysAdmin': [...API_KEYS_PERMISSIONS, 'serviceusage.operations.get', 'resourcemanager.projects.get'],
  'roles/serviceusage.apiKeysViewer': ['apikeys.keys.get', 'apikeys.keys.getKeyString', 'apikeys.keys.list', 'apikeys.keys.lookup'],
  'roles/serviceusage.serviceUsageViewer': ['serviceusage.services.get', 'serviceusage.services.list', 'serviceusage.operations.get', 'serviceusage.operations.list', 'resourcemanager.projects.get'],
  'roles/serviceusage.serviceUsageConsumer': ['serviceusage.services.get', 'serviceusage.services.list', 'serviceusage.services.use', 'resourcemanager.projects.get'],
  'roles/compute.admin': [...COMPUTE_PERMISSIONS, 'resourcemanager.projects.get'],
  // Instances, templates and what they use; networking changes are the network and security admins'.
  'roles/compute.instanceAdmin.v1': [...COMPUTE_PERMISSIONS.filter((p) => !/^compute\.(networks|subnetworks|firewalls)\./.test(p) || isRead(p) || p === 'compute.subnetworks.use'), 'resourcemanager.projects.get'],
  'roles/compute.viewer': [...COMPUTE_PERMISSIONS.filter(isRead), 'resourcemanager.projects.get'],
  'roles/compute.networkAdmin': [
    ...COMPUTE_PERMISSIONS.filter((p) => /^compute\.(networks|subnetworks|globalOperations|regionOperations|zoneOperations|regions|zones)\./.test(p) || p === 'compute.firewalls.get' || p === 'compute.firewalls.list'),
    'resourcemanager.projects.get',
  ],
  'roles/compute.securityAdmin': [...COMPUTE_PERMISSIONS.filter((p) => /^compute\.firewalls\./.test(p) || p === 'compute.networks.updatePolicy' || /^compute\.(networks|globalOperations)\.(get|list)$/.test(p)), 'resourcemanager.projects.get'],
  'roles/compute.networkUser': ['compute.networks.get', 'compute.networks.list', 'compute.networks.use', 'compute.subnetworks.get', 'compute.subnetworks.list', 'compute.subnetworks.use'],
  'roles/compute.networkViewer': ['compute.networks.get', 'compute.networks.list', 'compute.subnetworks.get', 'compute.subnetworks.list', 'resourcemanager.projects.get'],
  'roles/compute.imageUser': ['compute.images.get', 'compute.images.list', 'compute.images.useReadOnly', 'resourcemanager.projects.get'],
  'roles/iam.serviceAccountUser': ['iam.serviceAccounts.actAs', 'iam.serviceAccounts.get', 'iam.serviceAccounts.list'],
};
