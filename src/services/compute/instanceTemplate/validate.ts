/**
 * Validation of a regionInstanceTemplates.insert body, in the order the real service applies it:
 * first the JSON transcoding (unknown names, wrong JSON types: one error, the transcoder's
 * message), then every field rule (all errors, one `errors[]` entry each, Compute's messages).
 * Rules that need the world (existence of referenced resources, network modes, image sizes) are
 * the service's; see `references.ts`.
 */
import { BODY_FIELD, transcodeInsertBody } from './schema/transcode.ts';
import { Findings, isObj, listField, objField, strField } from './rules/common.ts';
import { checkDisks } from './rules/disks.ts';
import { checkMetadata } from './rules/metadata.ts';
import { checkNetworkInterfaces } from './rules/networkInterfaces.ts';
import { checkProperties, checkTemplate } from './rules/properties.ts';
import { checkScheduling } from './rules/scheduling.ts';
import type { TemplateValidation } from './types.ts';

export interface ValidateOptions {
  /** The request's region: replica zones and regional subnetwork URLs must be in it. */
  region?: string;
}

/** Validates an insert body (the InstanceTemplate resource). Never throws, whatever the input. */
export function validateInsertBody(body: unknown, options: ValidateOptions = {}): TemplateValidation {
  try {
    if (body === undefined || body === null || body === '' || (isObj(body) && Object.keys(body).length === 0)) {
      return { errors: [{ reason: 'required', message: "Required field 'resource' not specified", location: 'resource' }], deferred: [] };
    }
    const read = transcodeInsertBody(body);
    if (!read.ok) return { errors: [{ reason: 'invalid', message: read.message, badRequestField: read.field }], deferred: [] };
    const t = read.value;
    const f = new Findings(options.region);
    checkTemplate(f, t);
    const p = objField(t, 'properties');
    if (p) {
      const fromInstance = strField(t, 'sourceInstance') !== undefined && strField(t, 'sourceInstance') !== '';
      checkProperties(f, p, fromInstance);
      checkMetadata(f, objField(p, 'metadata'));
      checkScheduling(f, objField(p, 'scheduling'), listField(p, 'guestAccelerators').length > 0);
      checkNetworkInterfaces(f, listField(p, 'networkInterfaces'));
      checkDisks(f, listField(p, 'disks'), !fromInstance);
    }
    return f.errors.length ? { errors: f.errors, deferred: [] } : { errors: [], deferred: f.deferred, resource: t };
  } catch {
    // Unreachable by design (every rule reads canonical values); an invalid body, never a crash.
    return { errors: [{ reason: 'invalid', message: 'Invalid JSON payload received.', badRequestField: BODY_FIELD }], deferred: [] };
  }
}
