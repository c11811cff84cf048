import { ApiError } from './errors.ts';
import { type FieldSelection, parseFieldSelection } from './fields.ts';
import { parseQueryBool, repeatedParameter } from './queryParams.ts';
import { echoText } from './secrets.ts';

/** Google's standard query parameters, accepted by every method and removed from its own query. */
export interface SystemParams {
  fields?: FieldSelection;
  prettyPrint: boolean;
  key?: string;
  accessToken?: string;
  quotaUser?: string;
}

const IGNORED = ['$.xgafv', 'callback', 'upload_protocol', 'uploadType', 'oauth_token', 'userIp', 'trace', '$trace', 'requestReason'];
const HANDLED = ['fields', '$fields', 'prettyPrint', '$prettyPrint', 'pp', 'alt', '$alt', 'key', '$key', 'access_token', 'quotaUser', '$quotaUser'];
/** Every name taken out of a query; looked up in a Set, so `constructor` or `__proto__` is never one. */
const IS_SYSTEM: ReadonlySet<string> = new Set([...IGNORED, ...HANDLED]);

/** The one value of a system parameter; one given twice is refused by name, quoting nothing. */
function single(name: string, v: unknown): string | undefined {
  if (Array.isArray(v)) throw repeatedParameter(name);
  return v === undefined ? undefined : String(v);
}

/** `?prettyPrint` alone means true; otherwise the booleans every query parameter accepts. */
function parseBool(v: string): boolean {
  const b = v === '' ? true : parseQueryBool(v);
  if (b === undefined) throw new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid value at 'pretty_print' (TYPE_BOOL), ${JSON.stringify(echoText(v, 64))}` });
  return b;
}

function checkAlt(v: string): void {
  // `$alt=json;enum-encoding=int` is what gax clients send; JSON is the only encoding served.
  const base = v.split(';')[0];
  if (base !== 'json') {
    throw new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid value for alt: ${echoText(v, 64)}. Only alt=json is supported.` });
  }
}

/** Extracts (and deletes) the system parameters from a parsed query object. */
export function takeSystemParams(query: Record<string, unknown>): SystemParams {
  const sys: SystemParams = { prettyPrint: true };
  for (const name of Object.keys(query)) {
    if (!IS_SYSTEM.has(name)) continue;
    const raw = single(name, query[name]);
    switch (name) {
      case 'fields':
      case '$fields':
        if (raw) sys.fields = parseFieldSelection(raw);
        break;
      case 'prettyPrint':
      case '$prettyPrint':
      case 'pp':
        sys.prettyPrint = parseBool(raw ?? '');
        break;
      case 'alt':
      case '$alt':
        if (raw) checkAlt(raw);
        break;
      case 'key':
      case '$key':
        sys.key = raw;
        break;
      case 'access_token':
        sys.accessToken = raw;
        break;
      case 'quotaUser':
      case '$quotaUser':
        sys.quotaUser = raw;
        break;
      default:
        break;
    }
    delete query[name];
  }
  return sys;
}
