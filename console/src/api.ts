/**
 * The console is a client of cloudtwin's public REST APIs (and, with the admin token, of the admin
 * API): no private back door. Errors keep the API's own envelope so the page can show them plainly.
 */

export interface Session {
  /** Bearer token the console acts with. */
  token: string;
  /** The principal, when known (picked from the world with the admin token). */
  principal?: string;
  /** Admin token, when the user gave one (principal picker, clock, quota). */
  adminToken?: string;
  project: string;
}

const SESSION_KEY = 'cloudtwin.console.session';

export function loadSession(): Session | undefined {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return s && typeof s.token === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(s: Session | undefined): void {
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
}

export interface FieldProblem {
  /** Field path as the API names it (`key.display_name`, `resource.properties.disks[0].diskSizeGb`). */
  field: string;
  message: string;
}

/** An error answer of the API, as the API gave it. */
export class ApiProblem extends Error {
  readonly httpCode: number;
  readonly status: string;
  readonly reason?: string;
  readonly fields: FieldProblem[];
  readonly body: unknown;

  constructor(httpCode: number, body: any) {
    const e = body?.error ?? {};
    super(typeof e.message === 'string' ? e.message : `HTTP ${httpCode}`);
    this.httpCode = httpCode;
    this.status = typeof e.status === 'string' ? e.status : '';
    this.body = body;
    const details: any[] = Array.isArray(e.details) ? e.details : [];
    this.reason = details.find((d) => d?.['@type']?.endsWith('ErrorInfo'))?.reason ?? e.errors?.[0]?.reason;
    const fields: FieldProblem[] = [];
    for (const d of details) for (const v of d?.fieldViolations ?? []) fields.push({ field: String(v.field), message: String(v.description) });
    for (const x of Array.isArray(e.errors) ? e.errors : []) if (x?.location) fields.push({ field: String(x.location), message: String(x.message) });
    this.fields = fields;
  }
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Use the admin token instead of the session's bearer token. */
  admin?: boolean;
  /** An API key instead of a bearer token (search playground). */
  apiKey?: string;
  session?: Session;
}

export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const s = opts.session ?? loadSession();
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers['x-goog-api-key'] = opts.apiKey;
  else if (opts.admin) headers.authorization = `Bearer ${s?.adminToken ?? ''}`;
  else if (s?.token) headers.authorization = `Bearer ${s.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path + (qs.size ? `?${qs}` : ''), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any = undefined;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { error: { message: text.slice(0, 500) } };
  }
  if (!res.ok) throw new ApiProblem(res.status, body);
  return body as T;
}

/**
 * Signing in with a pasted token checks it first: the token must be accepted (a 401 refuses it)
 * and the project must be one the token can use through at least one of the console's APIs (API
 * Keys, Service Usage, Compute; the APIs answer an unknown project and a forbidden one alike).
 */
export async function verifySignIn(token: string, project: string): Promise<void> {
  const session: Session = { token, project };
  const p = encodeURIComponent(project);
  const probes = [
    { path: `/v2/projects/${p}/locations/global/keys`, query: { pageSize: 1 } },
    { path: `/v1/projects/${p}/services`, query: { pageSize: 1 } },
    { path: `/compute/v1/projects/${p}/regions`, query: { maxResults: 1 } },
  ];
  let first: ApiProblem | undefined;
  for (const probe of probes) {
    try {
      await call('GET', probe.path, { query: probe.query, session });
      return;
    } catch (err) {
      if (!(err instanceof ApiProblem)) throw err;
      if (err.httpCode === 401) throw new SignInProblem(`This access token was refused (expired, revoked or never issued): ${err.message}`);
      first ??= err;
    }
  }
  throw new SignInProblem(`Project ${project} does not exist, or this token may use none of its APIs (API Keys, Service Usage, Compute): ${first?.message ?? ''}`);
}

/** Why a sign-in was refused. */
export class SignInProblem extends Error {}

/** Every entry of a list method: GETs page after page (following `nextPageToken`) and gathers the `field` of each. */
export async function listAll<T>(path: string, field: string, query: CallOptions['query'] = {}): Promise<T[]> {
  const all: T[] = [];
  let pageToken: string | undefined;
  do {
    const page = await call<Record<string, unknown> & { nextPageToken?: string }>('GET', path, { query: { ...query, pageToken } });
    all.push(...((page[field] as T[] | undefined) ?? []));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls an API Keys operation until done; throws its error as an ApiProblem-like value. */
export async function waitForKeyOperation(op: any, onProgress?: (op: any) => void): Promise<any> {
  let cur = op;
  for (let i = 0; !cur.done; i++) {
    onProgress?.(cur);
    await sleep(Math.min(100 * 2 ** i, 2000));
    cur = await call('GET', `/v2/${cur.name}`);
  }
  onProgress?.(cur);
  if (cur.error) throw new ApiProblem(400, { error: { message: cur.error.message, status: `operation error ${cur.error.code}` } });
  return cur.response;
}

/** API Keys operations started from this console (API Keys has no operations.list; Compute's are listed by the API). */
const OPS_KEY = 'cloudtwin.console.operations';

export interface TrackedOperation {
  service: 'apikeys';
  name: string;
  project: string;
  what: string;
  startedAt: number;
}

export function trackedOperations(): TrackedOperation[] {
  try {
    return JSON.parse(sessionStorage.getItem(OPS_KEY) ?? '[]');
  } catch {
    return [];
  }
}

export function trackOperation(op: TrackedOperation): void {
  const all = [op, ...trackedOperations().filter((o) => o.name !== op.name)].slice(0, 200);
  sessionStorage.setItem(OPS_KEY, JSON.stringify(all));
}
