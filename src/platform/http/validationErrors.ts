import { ApiError, invalidArgument } from './errors.ts';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
  data?: unknown;
  schema?: unknown;
}

const PROTO_TYPE: Record<string, string> = {
  string: 'TYPE_STRING',
  integer: 'TYPE_INT32',
  number: 'TYPE_DOUBLE',
  boolean: 'TYPE_BOOL',
  object: 'TYPE_MESSAGE',
  array: 'TYPE_MESSAGE',
};

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

/** `/restrictions/apiTargets/0/service` -> `restrictions.api_targets[0].service` */
function protoPath(root: string, instancePath: string): string {
  let out = root;
  for (const seg of instancePath.split('/').slice(1)) {
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += (out ? '.' : '') + snake(seg);
  }
  return out;
}

/**
 * Turns a schema-validation failure into the message Google's JSON transcoder gives
 * ("Invalid JSON payload received. Unknown name ...", "Invalid value at ...").
 */
export function validationError(errors: AjvError[], context: string, bodyName: string): ApiError {
  const e = errors[0];
  const root = context === 'body' ? bodyName : '';
  if (e.keyword === 'additionalProperties') {
    const name = e.params.additionalProperty as string;
    if (context === 'querystring') {
      return invalidArgument(`Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`);
    }
    const at = protoPath(root, e.instancePath);
    return invalidArgument(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`, [
      { field: at, description: `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.` },
    ]);
  }
  const path = protoPath(root, e.instancePath) || root;
  if (e.keyword === 'type') {
    const t = PROTO_TYPE[String(e.params.type).split(',')[0]] ?? 'TYPE_MESSAGE';
    const shown = typeof e.data === 'string' ? JSON.stringify(e.data) : JSON.stringify(e.data) ?? String(e.data);
    return invalidArgument(`Invalid value at '${path}' (${t}), ${shown}`, [{ field: path, description: `Invalid value at '${path}' (${t}), ${shown}` }]);
  }
  if (e.keyword === 'required' && context === 'querystring') {
    return invalidArgument(`Required parameter: ${e.params.missingProperty}`);
  }
  const description = `Invalid value at '${path}': ${e.message ?? 'invalid'}`;
  return invalidArgument(description, [{ field: path, description }]);
}
