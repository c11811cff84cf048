import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { CatalogTarget } from './bulk.ts';

/** The server said no, or could not be reached: one clear line for the CLI. */
export class RemoteError extends Error {}

/** Ids per reference check (the server takes up to 10,000). */
const REFS_PER_REQUEST = 5000;

/**
 * The admin token for `--url`: `--admin-token`, else `CLOUDTWIN_ADMIN_TOKEN` (commander reads
 * both into `given`), else the data directory's `admin-token` file (where `serve` keeps the one
 * it generated).
 */
export function resolveAdminToken(given: string | undefined, dataDir: string): string {
  if (given) return given;
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new RemoteError(`no admin token: pass --admin-token, set CLOUDTWIN_ADMIN_TOKEN, or run where the server's data directory is (${file} does not exist; --data-dir names another)`);
}

/** Checks `--url`: an http(s) URL of a server, e.g. http://127.0.0.1:8080. */
export function parseServerUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RemoteError(`--url '${url}' is not a URL: give the server's address, e.g. http://127.0.0.1:8080`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RemoteError(`--url '${url}': use an http:// or https:// address`);
  return u;
}

/** A running server's catalogue, through its admin API (`/_twin/v1/media/catalog...`). */
export function remoteTarget(base: URL, adminToken: string): CatalogTarget {
  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const url = new URL(path, base);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new RemoteError(`cannot reach the server at ${base.origin} (${cause?.code ?? cause?.message ?? (err as Error).message}): is it running there?`);
    }
    if (!res.ok) {
      const text = await res.text();
      let message = text.slice(0, 2000);
      try {
        message = JSON.parse(text).error?.message ?? message;
      } catch {
        // not JSON: the text as it came
      }
      if (res.status === 401) throw new RemoteError(`the server at ${base.origin} refused the admin token (401: ${message}): is that the server's admin token?`);
      throw new RemoteError(`the server at ${base.origin} answered ${res.status} to ${method} ${url.pathname}: ${message}`);
    }
    return res;
  };
  const json = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).json() as Promise<any>;
  return {
    async notStored(ids) {
      const out = { channels: new Set<string>(), contentOwners: new Set<string>() };
      for (const [kind, list] of [['channels', ids.channels], ['contentOwners', ids.contentOwners]] as const) {
        for (let i = 0; i < list.length; i += REFS_PER_REQUEST) {
          const r = await json('POST', '/_twin/v1/media/catalog:missingReferences', { [kind]: list.slice(i, i + REFS_PER_REQUEST) });
          for (const id of r[kind] as string[]) out[kind].add(id);
        }
      }
      return out;
    },
    async resumePoint(id) {
      return Number((await json('GET', `/_twin/v1/media/catalog/imports/${id}`)).afterLine ?? 0);
    },
    writesJson: true,
    async write(batch, mark) {
      await json('POST', '/_twin/v1/media/catalog:write', { entries: batch.map((b) => b.json), ...(mark && { import: mark }) });
    },
    async finishImport(id) {
      await call('DELETE', `/_twin/v1/media/catalog/imports/${id}`);
    },
    async *exportLines() {
      const res = await call('GET', '/_twin/v1/media/catalog:export');
      if (!res.body) return;
      const rl = createInterface({ input: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), crlfDelay: Infinity });
      for await (const line of rl) if (line) yield line;
    },
  };
}
