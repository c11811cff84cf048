import { ApiError } from './errors.ts';
import { type FieldSelection, parseFieldSelection } from './fields.ts';

/** Google's standard query parameters, accepted by every method and removed from its own query. */
export interface SystemParams {
  fields?: FieldSelection;
  prettyPrint: boolean;
  key?: string;
  accessToken?: string;
  quotaUser?: string;
}

const IGNORED = new Set(['$.xgafv', 'callback', 'upload_protocol', 'uploadType', 'oauth_token', 'userIp', 'trace', '$trace', 'requestReason']);

function single(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return v === undefined ? undefined : String(v);
}

function parseBool(name: string, v: string): boolean {
  if (v === 'true' || v === '1' || v === '') return true;
  if (v === 'false' || v === '0') return false;
  throw new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid value at '${name}' (TYPE_BOOL), "${v}"` });
}

function checkAlt(v: string): void {
  // `$alt=json;enum-encoding=int` is what gax clients send; JSON is the only encoding served.
  const base = v.split(';')[0];
  if (base !== 'json') {
    throw new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid value for alt: ${v}. Only alt=json is supported.` });
  }
}

/** Extracts (and deletes) the system parameters from a parsed query object. */
export function takeSystemParams(query: Record<string, unknown>): SystemParams {
  const sys: SystemParams = { prettyPrint: true };
  for (const name of Object.keys(query)) {
    const raw = single(query[name]);
    switch (name) {
      case 'fields':
      case '$fields':
        if (raw) sys.fields = parseFieldSelection(raw);
        break;
      case 'prettyPrint':
      case '$prettyPrint':
      case 'pp':
        sys.prettyPrint = parseBool(name, raw ?? '');
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
        if (!IGNORED.has(name)) continue;
    }
    delete query[name];
  }
  return sys;
}
