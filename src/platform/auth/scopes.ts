export const SCOPE_PREFIX = 'https://www.googleapis.com/auth/';
export const CLOUD_PLATFORM = SCOPE_PREFIX + 'cloud-platform';
export const CLOUD_PLATFORM_READ_ONLY = SCOPE_PREFIX + 'cloud-platform.read-only';
export const COMPUTE = SCOPE_PREFIX + 'compute';
export const COMPUTE_READ_ONLY = SCOPE_PREFIX + 'compute.readonly';

/** Scopes that let a caller change cloud resources; reads accept the read-only scope too. */
export const WRITE_SCOPES = [CLOUD_PLATFORM] as const;
export const READ_SCOPES = [CLOUD_PLATFORM, CLOUD_PLATFORM_READ_ONLY] as const;

/** Accepts both full scope URLs and the short forms (`cloud-platform`). */
export function normalizeScope(s: string): string {
  return s.includes('://') ? s : SCOPE_PREFIX + s;
}
