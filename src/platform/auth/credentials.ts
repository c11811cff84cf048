/**
 * What a call carries to say who makes it, read the same way on every transport: REST's headers
 * (and its `access_token` / `key` query parameters), gRPC's metadata, and the admin API's
 * `Authorization` header. The one parser of credentials; nothing else reads those headers.
 */
export interface Credentials {
  /** The token of `Authorization: Bearer <token>` (or REST's `?access_token=`). */
  bearer?: string;
  /** An `Authorization` header that is not a bearer token (`Basic ...`, a bare word): invalid credentials, never none. */
  malformed?: boolean;
  /** An API key (`x-goog-api-key`, or REST's `?key=`, which wins). */
  apiKey?: string;
}

type Headers = Record<string, string | string[] | undefined>;

const BEARER = /^\s*Bearer\s+(\S+)\s*$/i;

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** An `Authorization` header: its bearer token, `malformed` when it is something else, neither when absent or blank. */
export function authorizationOf(header: string | string[] | undefined): Pick<Credentials, 'bearer' | 'malformed'> {
  const h = first(header);
  if (h === undefined) return {};
  const m = BEARER.exec(h);
  if (m) return { bearer: m[1] };
  return h.trim() ? { malformed: true } : {};
}

/** The credentials of a call: its headers, and the credentials REST's standard query parameters carry. */
export function credentialsOf(headers: Headers, query: { accessToken?: string; key?: string } = {}): Credentials {
  const creds: Credentials = authorizationOf(headers.authorization);
  if (creds.bearer === undefined && !creds.malformed && query.accessToken) creds.bearer = query.accessToken;
  const apiKey = query.key ?? first(headers['x-goog-api-key']);
  if (apiKey !== undefined) creds.apiKey = apiKey;
  return creds;
}

/** Whether a call carries an OAuth credential (a bearer token, or an `Authorization` header to refuse). */
export function hasOAuthCredential(creds: Credentials): boolean {
  return !!creds.bearer || creds.malformed === true;
}
