import { createServer } from 'node:net';

/** A JSON call: the status and the parsed body (undefined when empty), with a bearer token and a JSON body when given. */
export async function callJson(url: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: init.method ?? 'GET',
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A port of 127.0.0.1 free a moment ago (bound and released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
