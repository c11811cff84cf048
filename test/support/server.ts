import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type TestDatabase, freshDatabase } from './store.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudtwin.js', import.meta.url));

export interface ServerProcess {
  url: string;
  port: number;
  adminToken: string;
  dataDir: string;
  proc: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Calls the admin API. */
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** SIGTERM and wait; resolves to the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill9(): Promise<void>;
  /** Removes the data directory (after stop). */
  cleanup(): void;
}

export interface ServeOptions {
  dataDir?: string;
  databaseUrl?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** The admin token to pass; `null` passes none, so the server generates one into the data directory (read once it is ready). */
  adminToken?: string | null;
  /** Keep the data directory on cleanup (another process will reuse it). */
  keepDataDir?: boolean;
}

/** Calls the admin API of a twin at `url`; throws on a non-2xx answer. */
export async function adminCall(url: string, adminToken: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path} -> ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Calls the admin API of a twin started with `--tls`, trusting `ca` (fetch has no per-call CA option); throws on a non-2xx answer. */
export async function adminOverTls(server: Pick<ServerProcess, 'url' | 'adminToken'>, ca: Buffer, method: string, path: string, body?: unknown): Promise<any> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(server.url + path, { method, ca, headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode! < 300 ? resolve(text ? JSON.parse(text) : undefined) : reject(new Error(`admin ${method} ${path} -> ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Starts `cloudtwin serve --port 0` as a separate process and waits for its ready line. */
export async function startServer(opts: ServeOptions = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'cloudtwin-srv-'));
  const given = opts.adminToken === undefined ? 'test-admin-token' : opts.adminToken;
  const args = [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...(given === null ? [] : ['--admin-token', given]), '--log-level', 'warn', ...(opts.args ?? [])];
  if (opts.databaseUrl) args.push('--database-url', opts.databaseUrl);
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cloudtwin did not become ready in 30 s:\n${out}`)), 30_000);
    const onData = () => {
      const m = /cloudtwin listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`cloudtwin exited with ${code} before it was ready:\n${out}`));
    });
  });
  const adminToken = given ?? readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const admin = (method: string, path: string, body?: unknown) => adminCall(url, adminToken, method, path, body);
  return {
    url,
    port: Number(new URL(url).port),
    adminToken,
    dataDir,
    proc,
    output: () => out,
    admin,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
    async kill9() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
    cleanup() {
      if (!opts.keepDataDir && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A `cloudtwin serve` process for the suite this is called in: on a fresh database, with `world`
 * applied, started before the suite's tests and stopped after them (its data directory and its
 * database removed). Its `server` is there once the suite's `before` has run.
 */
export function serverForSuite(world: unknown, opts: Omit<ServeOptions, 'databaseUrl'> = {}): { readonly server: ServerProcess } {
  let db: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  before(async () => {
    db = await freshDatabase();
    server = await startServer({ ...opts, databaseUrl: db.url });
    await server.admin('POST', '/_twin/v1/world:apply', world);
  });
  after(async () => {
    await server?.stop();
    server?.cleanup();
    await db?.drop();
  });
  return {
    get server() {
      if (!server) throw new Error('the suite server is started by the suite\'s before hook');
      return server;
    },
  };
}
