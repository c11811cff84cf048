/**
 * A request body as Google's JSON transcoding reads a Compute resource, for the kinds whose bodies
 * are read through the discovery document's schema (networks, subnetworks, firewalls, ...): an
 * unknown name, a value of the wrong JSON type or an enum value the schema does not have is the
 * front end's 400 (status and a BadRequest field violation beside errors[]); numbers and int64
 * strings come back in proto JSON's canonical form and `null` means "not set".
 */
import { COMPUTE_SCHEMAS } from './discovery/schema.ts';
import { fieldErrors } from './errors.ts';

/** `routingConfig` -> `routing_config`: the proto names the transcoder's messages use. */
const protoPath = (path: string) => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

/** The body as the `schema` resource (`Network`), or the transcoding error of its first problem; `bodyField`: `network_resource`. */
export function readResourceBody(schema: string, bodyField: string, body: unknown): Record<string, any> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const message = `Invalid JSON payload received. Expected an object for '${bodyField}'.`;
    throw fieldErrors([{ reason: 'invalid', message, badRequestField: bodyField }]);
  }
  const { value, problems } = COMPUTE_SCHEMAS.normalize(schema, withoutNulls(body), bodyField);
  if (problems.length) {
    const [, at, why] = /^(.*?): (.*)$/.exec(problems[0]) ?? ['', bodyField, problems[0]];
    const field = protoPath(at);
    const unknown = /^is not a field/.test(why);
    const name = field.slice(field.search(/[^.[\]]+$/));
    const parent = field.slice(0, Math.max(0, field.length - name.length - 1));
    const message = unknown ? `Invalid JSON payload received. Unknown name "${name}" at '${parent}': Cannot find field.` : `Invalid value at '${field}': ${why}`;
    throw fieldErrors([{ reason: 'invalid', message, badRequestField: unknown ? parent : field }]);
  }
  return value;
}
