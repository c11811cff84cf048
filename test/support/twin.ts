import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { after, before } from 'node:test';
import { createCloudtwin, type Cloudtwin, type CloudtwinOptions } from '../../src/server.ts';
import { ConformanceRecorder } from './computeConformance.ts';
import { freshDatabase } from './store.ts';
import { testWorld } from './world.ts';

export interface TestTwin {
  twin: Cloudtwin;
  /** Calls the public API as `principal` (a fresh token with the given scopes). */
  call(principal: string | null, opts: InjectOptions & { scopes?: string[] }): Promise<LightMyRequestResponse>;
  /** Calls the admin API with the admin token. */
  admin(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  token(principal: string, scopes?: string[], ttlSeconds?: number): Promise<string>;
  /** Every Compute answer `call` got, checked against the discovery document's response schemas: `close` fails on any that does not conform. */
  conformance: ConformanceRecorder;
  close(): Promise<void>;
}

/** An in-process cloudtwin on the suite's store, with the test world applied. */
export async function startTestTwin(opts: Partial<CloudtwinOptions> & { world?: unknown } = {}): Promise<TestTwin> {
  const db = await freshDatabase();
  const twin = await createCloudtwin({ auth: 'enforce', adminToken: 'test-admin-token', databaseUrl: db.url, ...opts });
  const tokens = new Map<string, string>();
  const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    twin.app.inject({ method, url, payload: payload as any, headers: { authorization: `Bearer ${twin.adminToken}` } });
  const res = await admin('POST', '/_twin/v1/world:apply', opts.world ?? testWorld);
  if (res.statusCode !== 200) throw new Error(`world:apply failed: ${res.body}`);
  const token = async (principal: string, scopes?: string[], ttlSeconds?: number) => {
    const r = await admin('POST', '/_twin/v1/tokens', { principal, scopes, ttlSeconds });
    if (r.statusCode !== 200) throw new Error(`token failed: ${r.body}`);
    return r.json().access_token as string;
  };
  const conformance = new ConformanceRecorder();
  return {
    twin,
    admin,
    token,
    conformance,
    async call(principal, o) {
      const { scopes, ...inject } = o;
      const headers: Record<string, string> = { ...(inject.headers as Record<string, string>) };
      if (principal) {
        const cacheKey = `${principal}|${scopes?.join(' ') ?? ''}`;
        let t = tokens.get(cacheKey);
        if (!t) tokens.set(cacheKey, (t = await token(principal, scopes)));
        headers.authorization = `Bearer ${t}`;
      }
      const res = await twin.app.inject({ ...inject, headers });
      conformance.record(String(inject.method ?? 'GET'), String(inject.url ?? ''), res.statusCode, res.body);
      return res;
    },
    async close() {
      await twin.close();
      await db.drop();
      conformance.check();
    },
  };
}

/**
 * Suite hooks: a twin started (`startTestTwin(opts)`) before the suite's tests and handed to
 * `set`, closed after them.
 */
export function twinHooks(set: (twin: TestTwin) => void | Promise<void>, opts: Parameters<typeof startTestTwin>[0] = {}): void {
  let twin: TestTwin | undefined;
  before(async () => {
    twin = await startTestTwin(opts);
    await set(twin);
  });
  after(() => twin?.close());
}
