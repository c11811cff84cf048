/** Shared helpers of the HTTP suites (in-process twin through fastify.inject). */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

export const KEY_TYPE = 'type.googleapis.com/google.api.apikeys.v2.Key';
export const CREATE_OP = /^operations\/akmf\.p7-300000000001-[0-9a-f-]{36}$/;
export const KEY_STRING = /^AIza[0-9A-Za-z_-]{35}$/;
export const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ETAG = /^W\/"[A-Za-z0-9+/]{22}=="$/;
export const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
export const DAY_S = 24 * 3600;

/** `/v2/projects/{project}/locations/{location}/keys` */
export const keysPath = (project: string = DEMO.projectId, location = 'global') => `/v2/projects/${project}/locations/${location}/keys`;
export const keyPath = (keyId: string, project: string = DEMO.projectId, location = 'global') => `${keysPath(project, location)}/${keyId}`;
export const keyNameOf = (keyId: string, projectNumber: string = DEMO.projectNumber) => `projects/${projectNumber}/locations/global/keys/${keyId}`;

/** Asserts a Google error envelope and returns its `error` object. */
export function assertError(res: LightMyRequestResponse, httpCode: number, status: string, message?: string | RegExp): Record<string, any> {
  assert.equal(res.statusCode, httpCode, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], res.body);
  assert.equal(body.error.code, httpCode);
  assert.equal(body.error.status, status);
  if (typeof message === 'string') assert.equal(body.error.message, message);
  else if (message) assert.match(body.error.message, message);
  return body.error;
}

/** The ErrorInfo detail of an error envelope. */
export function errorInfo(error: Record<string, any>): Record<string, any> {
  const info = (error.details ?? []).find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  assert.ok(info, `no ErrorInfo in ${JSON.stringify(error)}`);
  return info;
}

/** The BadRequest field violations of an error envelope. */
export function fieldViolations(error: Record<string, any>): { field: string; description: string }[] {
  const br = (error.details ?? []).find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  assert.ok(br, `no BadRequest in ${JSON.stringify(error)}`);
  return br.fieldViolations;
}

/** Creates a key (instant mode) and returns the finished operation's Key. */
export async function createKey(
  t: TestTwin,
  opts: { keyId?: string; body?: Record<string, unknown>; project?: string; principal?: string } = {},
): Promise<Record<string, any>> {
  const url = keysPath(opts.project) + (opts.keyId ? `?keyId=${opts.keyId}` : '');
  const res = await t.call(opts.principal ?? ALICE, { method: 'POST', url, payload: opts.body ?? {} });
  assert.equal(res.statusCode, 200, res.body);
  const op = res.json();
  assert.equal(op.done, true, res.body);
  assert.equal(op.error, undefined, res.body);
  return op.response;
}

/** Polls nothing: reads the operation once. */
export async function getOperation(t: TestTwin, name: string, principal = ALICE): Promise<Record<string, any>> {
  const res = await t.call(principal, { method: 'GET', url: `/v2/${name}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Every key of a project (following page tokens). */
export async function listAll(t: TestTwin, opts: { project?: string; showDeleted?: boolean; pageSize?: number } = {}): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let token = '';
  for (let i = 0; i < 1000; i++) {
    const q = new URLSearchParams();
    if (opts.showDeleted) q.set('showDeleted', 'true');
    if (opts.pageSize) q.set('pageSize', String(opts.pageSize));
    if (token) q.set('pageToken', token);
    const res = await t.call(ALICE, { method: 'GET', url: `${keysPath(opts.project)}?${q}` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    out.push(...(body.keys ?? []));
    token = body.nextPageToken ?? '';
    if (!token) return out;
  }
  throw new Error('list did not end');
}

export async function advanceClock(t: TestTwin, seconds: number): Promise<void> {
  const res = await t.admin('POST', '/_twin/v1/clock:advance', { seconds });
  assert.equal(res.statusCode, 200, res.body);
}

export async function setOperationsMode(t: TestTwin, mode: 'instant' | 'delayed', delayMs?: number): Promise<void> {
  const res = await t.admin('PUT', '/_twin/v1/operations/config', { mode, ...(delayMs !== undefined ? { delayMs } : {}) });
  assert.equal(res.statusCode, 200, res.body);
}
