// Wire types of google.api.apikeys.v2.Restrictions in the REST (proto3 JSON,
// lowerCamelCase) form.

export interface AndroidApplication {
  sha1Fingerprint?: string;
  packageName?: string;
}

export interface ApiTarget {
  service?: string;
  methods?: string[];
}

export interface Restrictions {
  browserKeyRestrictions?: { allowedReferrers?: string[] };
  serverKeyRestrictions?: { allowedIps?: string[] };
  androidKeyRestrictions?: { allowedApplications?: AndroidApplication[] };
  iosKeyRestrictions?: { allowedBundleIds?: string[] };
  apiTargets?: ApiTarget[];
}

/**
 * One entry of a google.rpc.BadRequest. `field` is a proto snake_case path,
 * e.g. "restrictions.browser_key_restrictions.allowed_referrers[2]".
 */
export interface FieldViolation {
  field: string;
  description: string;
}
