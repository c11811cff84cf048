/**
 * The contract between the InstanceTemplate rules (`instanceTemplate/`: schema, validation,
 * defaults, references — pure, no I/O) and the Compute service (`service.ts`, `methods.ts`,
 * operations, world resolution).
 *
 * Implemented in this folder:
 *   validate.ts    export function validateInsertBody(body: unknown, options?: { region?: string }): TemplateValidation
 *                  (`options.region`, the request's region, enables the rules that need it: replica zones and
 *                  regional subnetwork URLs inside the region. Added after the first version; optional.)
 *   defaults.ts    export function buildStoredTemplate(body: Record<string, unknown>, ctx: StoredTemplateContext): Record<string, unknown>
 *   references.ts  export function templateReferences(body: Record<string, unknown>): readonly TemplateReference[]
 * and in `../filter/`:
 *   filter.ts      export function parseComputeFilter(text: string): ComputeFilter   (throws ApiError 400 `invalid`)
 *                  export function matchesFilter(filter: ComputeFilter, resource: unknown): boolean
 */

/** One entry of a synchronous 400 answer's `errors[]` (domain `global`). */
export interface TemplateFieldError {
  /** Compute's legacy reason: `invalid`, `required`, `invalidParameter`, `conditionNotMet`, ... */
  reason: string;
  /** e.g. `Invalid value for field 'resource.name': 'X'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'` */
  message: string;
  /** Field path, e.g. `resource.properties.disks[0].initializeParams.diskSizeGb`. */
  location?: string;
  /**
   * Set on errors of the JSON transcoding step (unknown names, wrong JSON types, enum values, bytes):
   * the proto path, e.g. `instance_template_resource.properties`. Google's front end answers these
   * itself, with `status: INVALID_ARGUMENT` and a `google.rpc.BadRequest` detail whose one
   * fieldViolation has this `field` and the message as `description`; such entries have no `location`.
   * (Added after the first version; optional.)
   */
  badRequestField?: string;
}

/** One entry of a failed operation's `error.errors[]`. */
export interface OperationErrorEntry {
  /** e.g. `INTERNAL_ERROR`, `RESOURCE_NOT_FOUND`, `INVALID_FIELD_VALUE`, `QUOTA_EXCEEDED`. */
  code: string;
  message: string;
  location?: string;
  errorDetails?: Record<string, unknown>[];
}

export interface TemplateValidation {
  /** Non-empty: the insert is answered 400 with these entries (several bad fields, several entries). */
  errors: TemplateFieldError[];
  /** Rules the real service applies only when the operation runs (e.g. machineType given as a URL -> INTERNAL_ERROR). */
  deferred: OperationErrorEntry[];
  /**
   * When `errors` is empty: the body as the transcoder reads it (JSON field names even where the client
   * used proto names such as `machine_type`, 64-bit integers as decimal strings, 32-bit ones as numbers,
   * nulls dropped). Store and resolve this one. (Added after the first version; optional.)
   */
  resource?: Record<string, unknown>;
}

/** What the service knows when it stores a valid template. */
export interface StoredTemplateContext {
  id: string;
  creationTimestamp: string;
  /** `https://www.googleapis.com/compute/v1/projects/P/regions/R/instanceTemplates/N` */
  selfLink: string;
  /** `https://www.googleapis.com/compute/v1/projects/P/regions/R`; undefined for a global template (which has no `region` field). */
  region: string | undefined;
  /** Full URLs the service resolved for references (network, subnetwork, ...), keyed by field path. */
  resolvedLinks: ReadonlyMap<string, string>;
  /** `NUMBER-compute@developer.gserviceaccount.com`, for `serviceAccounts[].email = "default"`. */
  defaultServiceAccount: string;
}

export type ReferenceKind =
  | 'network'
  | 'subnetwork'
  | 'image'
  | 'snapshot'
  | 'disk'
  | 'instance'
  | 'reservation'
  | 'address'
  | 'machineType'
  | 'acceleratorType'
  | 'serviceAccount'
  | 'networkAttachment'
  | 'resourcePolicy';

/** A reference to another resource, as written in the body; the service resolves it against the world. */
export interface TemplateReference {
  kind: ReferenceKind;
  value: string;
  /** Field path, e.g. `resource.properties.networkInterfaces[0].network`. */
  location: string;
}

/** A parsed list `filter` (opaque outside `filter/`). */
export interface ComputeFilter {
  readonly source: string;
}
