/**
 * Shared pieces of the reliability suites: a small REST client for the API Keys surface, polling,
 * direct read access to the store (SQLite file or PostgreSQL schema) to check what is really there.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { after } from 'node:test';
import { adminCall, type ServerProcess } from '../support/server.ts';
import type { TestDatabase } from '../support/store.ts';

/** A fresh master key (base64 of 32 bytes) for processes that must share one. */
export function newMasterKey(): string {
  return randomBytes(32).toString('base64');
}

export function tempDir(prefix = 'cloudtwin-rel-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export { adminCall };

/** What a crash suite starts, and its `after` hook kills (kill -9), removes and drops. */
export function crashSuiteResources(): { processes: ServerProcess[]; dirs: string[]; databases: TestDatabase[] } {
  const r = { processes: [] as ServerProcess[], dirs: [] as string[], databases: [] as TestDatabase[] };
  after(async () => {
    for (const p of r.processes) await p.kill9();
    for (const d of r.dirs) removeDir(d);
    for (const db of r.databases) await db.drop();
  });
  return r;
}

export interface HttpResult {
  status: number;
  body: any;
}

/** The public API Keys surface of one twin process, as one principal. */
export class KeysClient {
  readonly url: string;
  readonly token: string;

  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  /** The same principal against another process (tokens live in the shared store). */
  on(url: string): KeysClient {
    return new KeysClient(url, this.token);
  }

  async call(method: string, path: string, body?: unknown): Promise<HttpResult> {
    const res = await fetch(this.url + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  createKey(project: string, keyId: string, displayName = keyId): Promise<HttpResult> {
    return this.call('POST', `/v2/projects/${project}/locations/global/keys?keyId=${encodeURIComponent(keyId)}`, { displayName });
  }

  getKey(project: string, keyId: string): Promise<HttpResult> {
    return this.call('GET', `/v2/projects/${project}/locations/global/keys/${keyId}`);
  }

  getKeyString(project: string, keyId: string): Promise<HttpResult> {
    return this.call('GET', `/v2/projects/${project}/locations/global/keys/${keyId}/keyString`);
  }

  lookupKey(keyString: string): Promise<HttpResult> {
    return this.call('GET', `/v2/keys:lookupKey?keyString=${encodeURIComponent(keyString)}`);
  }

  getOperation(name: string): Promise<HttpResult> {
    return this.call('GET', `/v2/${name}`);
  }

  /** Every key of a project (all pages). */
  async listAll(project: string): Promise<any[]> {
    const keys: any[] = [];
    let pageToken = '';
    for (let i = 0; i < 100; i++) {
      const r = await this.call('GET', `/v2/projects/${project}/locations/global/keys?pageSize=300${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`);
      if (r.status !== 200) throw new Error(`list -> ${r.status}: ${JSON.stringify(r.body)}`);
      keys.push(...(r.body.keys ?? []));
      if (!r.body.nextPageToken) return keys;
      pageToken = r.body.nextPageToken;
    }
    throw new Error('list did not end');
  }

  /** Polls the operation until it is done (bounded). */
  async waitDone(name: string, timeoutMs = 15_000): Promise<any> {
    return pollUntil(`operation ${name} done`, timeoutMs, async () => {
      const r = await this.getOperation(name);
      if (r.status !== 200) throw new Error(`get ${name} -> ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body.done ? r.body : undefined;
    });
  }
}

/** A bearer token for `principal` from the admin API of the twin at `url`. */
export async function tokenFor(url: string, adminToken: string, principal: string): Promise<string> {
  return (await adminCall(url, adminToken, 'POST', '/_twin/v1/tokens', { principal })).access_token;
}

/** Calls `probe` every `intervalMs` until it returns something other than undefined; fails after `timeoutMs`. */
export async function pollUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Read access to the store a twin runs on: its SQLite file (while a twin holds it open) or its PostgreSQL schema. */
export interface StoreReader {
  query(sql: string, params?: unknown[]): Promise<any[]>;
  close(): Promise<void>;
}

export async function openStoreReader(opts: { dataDir: string; databaseUrl: string | undefined }): Promise<StoreReader> {
  if (opts.databaseUrl) {
    const client = new pg.Client({ connectionString: opts.databaseUrl });
    await client.connect();
    return {
      query: async (sql, params) => (await client.query(numberedPlaceholders(sql), params as any[])).rows,
      close: () => client.end(),
    };
  }
  const db = new DatabaseSync(join(opts.dataDir, 'cloudtwin.db'), { readOnly: true });
  return {
    query: async (sql, params) => db.prepare(sql).all(...((params ?? []) as any[])) as any[],
    close: async () => db.close(),
  };
}

/** `?` placeholders (SQLite style) as PostgreSQL's `$1, $2, ...`. */
function numberedPlaceholders(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

/** Every operation and key row, with the checks that nothing is half-written. Returns the problems found. */
export async function halfWrittenProblems(reader: StoreReader): Promise<string[]> {
  const ops = await reader.query('SELECT name, kind, done, payload, result, error FROM operations');
  const keys = await reader.query('SELECT uid, key_id, project_number FROM api_keys');
  const problems: string[] = [];
  const createsByUid = new Map<string, any>();
  for (const op of ops) if (op.kind === 'apikeys.create') createsByUid.set(JSON.parse(op.payload).uid, op);
  const keyUids = new Set(keys.map((k) => k.uid));
  for (const k of keys) {
    const op = createsByUid.get(k.uid);
    if (!op) problems.push(`key ${k.key_id} (${k.uid}) has no create operation`);
    else if (Number(op.done) !== 1) problems.push(`key ${k.key_id} exists but its operation ${op.name} is not done`);
    else if (op.error !== null) problems.push(`key ${k.key_id} exists but its operation ${op.name} carries an error ${op.error}`);
    else if (op.result === null) problems.push(`key ${k.key_id} exists but its operation ${op.name} has no result`);
  }
  for (const [uid, op] of createsByUid) {
    if (Number(op.done) !== 1) problems.push(`operation ${op.name} is not done`);
    else if (op.error === null && !keyUids.has(uid)) problems.push(`operation ${op.name} is done without error but its key ${uid} does not exist`);
    else if (op.error !== null && op.result !== null) problems.push(`operation ${op.name} has both an error and a result`);
  }
  return problems;
}
