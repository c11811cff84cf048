import { Ajv, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import { type ApiError, invalidArgument } from './errors.ts';
import { repeatedParameter } from './queryParams.ts';
import { echoText, echoValue, isSecretName } from './secrets.ts';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
  data?: unknown;
  schema?: unknown;
}

const PROTO_TYPE: ReadonlyMap<string, string> = new Map([
  ['string', 'TYPE_STRING'],
  ['integer', 'TYPE_INT32'],
  ['number', 'TYPE_DOUBLE'],
  ['boolean', 'TYPE_BOOL'],
  ['object', 'TYPE_MESSAGE'],
  ['array', 'TYPE_MESSAGE'],
]);

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

/** `/restrictions/apiTargets/0/service` -> `restrictions.api_targets[0].service` (JSON-pointer escapes undone). */
function protoPath(root: string, instancePath: string): string {
  let out = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const seg = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += (out ? '.' : '') + snake(seg);
  }
  return echoText(out);
}

/** The last field name of a JSON pointer (`/restrictions/keyString` -> `keyString`). */
function lastName(instancePath: string): string {
  const i = instancePath.lastIndexOf('/');
  return instancePath.slice(i + 1);
}

/**
 * Turns a schema-validation failure into the message Google's JSON transcoder gives
 * ("Invalid JSON payload received. Unknown name ...", "Invalid value at ..."). A bad value is
 * echoed as a short prefix, and never at all for a secret-bearing field (key strings, tokens).
 */
export function validationError(errors: AjvError[], context: string, bodyName: string): ApiError {
  const e = errors[0];
  const root = context === 'body' ? bodyName : '';
  if (e.keyword === 'additionalProperties') {
    const name = echoText(String(e.params.additionalProperty), 100).replaceAll('"', '\\"');
    if (context === 'querystring') {
      return invalidArgument(`Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`);
    }
    const at = protoPath(root, e.instancePath);
    return invalidArgument(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`, [
      { field: at, description: `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.` },
    ]);
  }
  const path = protoPath(root, e.instancePath) || root;
  if (e.keyword === 'repeated') return repeatedParameter(path);
  const secret = isSecretName(lastName(e.instancePath));
  if (e.keyword === 'protoRange') {
    const description = `Invalid value at '${path}' (${e.params.protoType})${secret ? '' : `, ${echoValue(String(e.data))}`}`;
    return invalidArgument(description, [{ field: path, description }]);
  }
  if (e.keyword === 'type') {
    const t = PROTO_TYPE.get(String(e.params.type).split(',')[0]) ?? 'TYPE_MESSAGE';
    const description = `Invalid value at '${path}' (${t})${secret ? '' : `, ${echoValue(e.data)}`}`;
    return invalidArgument(description, [{ field: path, description }]);
  }
  if (e.keyword === 'required' && context === 'querystring') {
    return invalidArgument(`Required parameter: ${echoText(String(e.params.missingProperty), 100)}`);
  }
  const description = `Invalid value at '${path}': ${echoText(e.message ?? 'invalid')}`;
  return invalidArgument(description, [{ field: path, description }]);
}

/** The Ajv options of every request validator (REST's, and `checkMessage`'s for other transports). */
export const AJV_OPTIONS: AjvOptions = { removeAdditional: false, useDefaults: true, allErrors: false, verbose: true, strict: false };

let exact: Ajv | undefined;
let coercing: Ajv | undefined;

/**
 * The request validators' two Ajv instances, each made on first use (making one adds its
 * meta-schemas: a cost at start-up for a server that validates nothing yet). `exactAjv` for JSON
 * bodies and other transports' messages (typed: no coercion), `coercingAjv` for query strings and
 * path parameters (text: `pageSize=3`, `showDeleted=true`).
 */
export const exactAjv = (): Ajv => (exact ??= new Ajv({ ...AJV_OPTIONS, coerceTypes: false }));
export const coercingAjv = (): Ajv => (coercing ??= new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' }));

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Validates a request message that did not come as a JSON body (a gRPC message, converted to
 * the JSON shape) against the schema REST validates its body with, and throws the error REST
 * answers for the same input: one definition of the bounds, for every transport.
 */
export function checkMessage(schema: object, data: unknown, bodyName: string): void {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = exactAjv().compile(schema)));
  if (!validate(data)) throw validationError(validate.errors as AjvError[], 'body', bodyName);
}
