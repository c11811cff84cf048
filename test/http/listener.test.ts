/**
 * One port for every transport (src/platform/transport/listener.ts): HTTP/1.1, HTTP/2 with prior
 * knowledge, TLS with ALPN h2 and http/1.1 from the local CA, a silent connection closed, and
 * close() draining in-flight requests on both HTTP versions.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localServerTls } from '../../src/platform/transport/localCa.ts';
import { type Listener, bindPort } from '../../src/platform/transport/listener.ts';
import { createCloudtwin } from '../../src/server.ts';
import { freshDatabase } from '../support/store.ts';

type TestTwin = { close(): Promise<void> };

/** GET over an HTTP/2 session: status, body, and the session's protocol. */
function h2get(session: ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let status = 0;
    let body = '';
    req.on('response', (h) => (status = Number(h[':status'])));
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
    req.end();
  });
}

function h2close(session: ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.close(() => resolve()));
}

/**
 * Sends `first` on a raw connection, and `then` once the server has answered something, and waits
 * for the server to close it: how long that took (from the last write), and what it answered.
 */
async function closedAfter(port: number, first: string, then?: string): Promise<{ ms: number; received: string }> {
  const socket = netConnect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.on('close', resolve));
  let started = Date.now();
  socket.write(first, 'latin1');
  if (then !== undefined) {
    await answered;
    started = Date.now();
    socket.write(then, 'latin1');
  }
  await closed;
  return { ms: Date.now() - started, received };
}

/** A twin with a slow route (for draining), listening with `tls` or not. */
async function serve(tls?: { cert: string; key: string }): Promise<{ t: { close(): Promise<void> }; listener: Listener; inFlight: () => number }> {
  const db = await freshDatabase();
  const twin = await createCloudtwin({ auth: 'enforce', adminToken: 'test-admin-token', databaseUrl: db.url });
  let inFlight = 0;
  twin.app.get('/slow', async () => {
    inFlight++;
    await new Promise((r) => setTimeout(r, 300));
    return { slow: true };
  });
  // Longer than the idle limit (300 ms): the server, not the client, is the one taking its time.
  twin.app.get('/slower', async () => {
    await new Promise((r) => setTimeout(r, 1000));
    return { slower: true };
  });
  const listener = await twin.listen({ host: '127.0.0.1', port: 0, tls, idleTimeoutMs: 300 });
  return {
    listener,
    inFlight: () => inFlight,
    t: {
      async close() {
        await twin.close();
        await db.drop();
      },
    },
  };
}

describe('one port: connections that come before the server is ready', () => {
  it('are held from the bind and answered once it serves (a health check polling from the start)', async () => {
    // bound first, as src/start.ts does; the twin is built while a client is already connected
    const bound = await bindPort('127.0.0.1', 0);
    const early = fetch(`http://127.0.0.1:${bound.port}/_twin/v1/health`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.status);
    const alsoEarly = closedAfter(bound.port, 'GET /_twin/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    const db = await freshDatabase();
    const twin = await createCloudtwin({ auth: 'enforce', adminToken: 'test-admin-token', databaseUrl: db.url });
    try {
      await twin.listen({ host: '127.0.0.1', port: bound.port, bound });
      assert.equal(await early, 200);
      assert.match((await alsoEarly).received, /^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      await twin.close();
      await db.drop();
    }
  });
});

describe('one port, cleartext: HTTP/1.1 and HTTP/2 with prior knowledge', () => {
  let t: TestTwin;
  let listener: Listener;
  before(async () => ({ t, listener } = await serve()));
  after(() => t?.close());

  it('serves REST over HTTP/1.1 and h2c alike; health says which transports are on', async () => {
    const res = await fetch(`${listener.url}/_twin/v1/health`);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).transports, ['http/1.1', 'h2c', ...listener.transports.slice(2)]);
    const session = h2connect(listener.url);
    const h2 = await h2get(session, '/v2/projects/demo-project/locations/global/keys');
    const h1 = await fetch(`${listener.url}/v2/projects/demo-project/locations/global/keys`);
    assert.equal(h2.status, 401);
    assert.equal(h2.status, h1.status);
    assert.deepEqual(JSON.parse(h2.body), await h1.json());
    // The admin API and the console's local-surface guard read the host from :authority.
    assert.equal((await h2get(session, '/_twin/v1/health')).status, 200);
    await h2close(session);
  });

  it('takes the HTTP/2 preface split over packets', async () => {
    const session = h2connect(listener.url, {
      createConnection: () => {
        const socket = netConnect(listener.port, '127.0.0.1');
        // Node's client writes the preface in one go: cut every early write into 3-byte pieces.
        const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
        let cut = 2;
        (socket as { write: unknown }).write = (chunk: Buffer | string, ...rest: unknown[]) => {
          const b = Buffer.from(chunk as Buffer);
          if (cut-- <= 0 || b.length < 4) return write(b, ...rest);
          for (let i = 0; i < b.length - 3; i += 3) write(b.subarray(i, i + 3));
          return write(b.subarray(b.length - ((b.length - 1) % 3) - 1), ...rest);
        };
        return socket;
      },
    });
    assert.equal((await h2get(session, '/_twin/v1/health')).status, 200);
    await h2close(session);
  });

  it('closes a connection that sends nothing', async () => {
    const socket = netConnect(listener.port, '127.0.0.1');
    const started = Date.now();
    await new Promise((resolve) => socket.on('close', resolve));
    assert.ok(Date.now() - started >= 250, 'closed before the timeout');
  });

  it('closes an HTTP/1.1 connection whose request head stays unfinished for the idle limit, the first or a later one', async () => {
    const partial = await closedAfter(listener.port, 'GET /_twin/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    assert.ok(partial.ms >= 250 && partial.ms < 5000, `closed after ${partial.ms} ms`);
    assert.equal(partial.received, '', 'nothing answered');
    // A whole request, answered; then the start of another on the same (keep-alive) connection, and nothing more.
    const later = await closedAfter(listener.port, 'GET /_twin/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'GET /_twin/v1/he');
    assert.match(later.received, /^HTTP\/1\.1 200 /);
    assert.ok(later.ms >= 250 && later.ms < 5000, `closed after ${later.ms} ms`);
  });

  it('answers a request on a keep-alive connection left untouched past its advertised timeout (a client late to close it)', async () => {
    const socket = netConnect(listener.port, '127.0.0.1');
    socket.setEncoding('latin1');
    let received = '';
    socket.on('data', (d: string) => (received += d));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    const answers = async (n: number) => {
      while ((received.match(/HTTP\/1\.1 200 /g) ?? []).length < n && !socket.destroyed) await new Promise((r) => setTimeout(r, 10));
    };
    socket.write('GET /_twin/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await answers(1);
    assert.match(received, /keep-alive: timeout=0/i, 'the advertised timeout is the idle limit');
    // Three idle limits (and the +1 s Node adds) without a byte, then a request on the same connection.
    await new Promise((r) => setTimeout(r, 1_600));
    assert.equal(socket.destroyed, false, 'the untouched connection is still open');
    socket.write('GET /_twin/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await closed;
    assert.equal((received.match(/HTTP\/1\.1 200 /g) ?? []).length, 2, received);
  });

  it('keeps an HTTP/1.1 connection whose request the server is still answering past the idle limit', async () => {
    const res = await fetch(`${listener.url}/slower`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { slower: true });
  });

  it('drains on close: in-flight HTTP/1.1 requests and HTTP/2 streams finish, new connections are refused', async () => {
    const { t: t2, listener: l2, inFlight } = await serve();
    const session = h2connect(l2.url);
    const h1 = fetch(`${l2.url}/slow`).then(async (r) => ({ status: r.status, body: await r.text() }));
    const h2 = h2get(session, '/slow');
    while (inFlight() < 2) await new Promise((r) => setTimeout(r, 10));
    const closed = t2.close();
    const [a, b] = await Promise.all([h1, h2]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.deepEqual(JSON.parse(b.body), { slow: true });
    await closed;
    await assert.rejects(fetch(`${l2.url}/_twin/v1/health`));
    session.destroy();
  });
});

describe('one port with TLS: ALPN h2 and http/1.1, the local CA', () => {
  let dir: string;
  let t: TestTwin;
  let listener: Listener;
  let ca: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-tls-test-'));
    const tls = localServerTls(join(dir, 'tls'), ['127.0.0.1', 'twin.example.test']);
    ca = readFileSync(tls.caFile, 'utf8');
    ({ t, listener } = await serve(tls));
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('issues a leaf for localhost, the loopback addresses and the given names, from a CA it keeps (owner-only files)', () => {
    const again = localServerTls(join(dir, 'tls'), []);
    assert.equal(readFileSync(again.caFile, 'utf8'), ca, 'the CA is kept across starts');
    const caCert = new X509Certificate(ca);
    assert.equal(caCert.ca, true);
    const leaf = new X509Certificate(localServerTls(join(dir, 'tls'), ['twin.example.test', '10.1.2.3']).cert);
    assert.equal(leaf.ca, false);
    assert.ok(leaf.verify(caCert.publicKey));
    assert.ok(leaf.checkIssued(caCert));
    for (const host of ['localhost', 'twin.example.test']) assert.equal(leaf.checkHost(host), host);
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3']) assert.equal(leaf.checkIP(ip), ip);
    assert.equal(leaf.checkHost('other.example.test'), undefined);
    for (const f of ['ca.pem', 'ca-key.pem', 'server.pem', 'server-key.pem']) assert.equal(statSync(join(dir, 'tls', f)).mode & 0o777, 0o600, f);
  });

  it('serves REST over h2 (ALPN) with the CA trusted', async () => {
    assert.match(listener.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const session = h2connect(listener.url, { ca });
    const res = await h2get(session, '/_twin/v1/health');
    assert.equal(res.status, 200);
    assert.equal(session.alpnProtocol, 'h2');
    assert.deepEqual(JSON.parse(res.body).transports.slice(0, 2), ['https/1.1', 'h2']);
    await h2close(session);
  });

  it('serves REST over https/1.1 (ALPN http/1.1) to the same routes', async () => {
    const body = await new Promise<{ status: number; text: string; alpn: string | false }>((resolve, reject) => {
      const req = httpsRequest(`${listener.url}/v2/projects/demo-project/locations/global/keys`, { ca, ALPNProtocols: ['http/1.1'] } as import('node:https').RequestOptions, (res) => {
        const alpn = (res.socket as import('node:tls').TLSSocket).alpnProtocol ?? false;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text, alpn }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(body.alpn, 'http/1.1');
    assert.equal(body.status, 401);
    assert.equal(JSON.parse(body.text).error.status, 'UNAUTHENTICATED');
  });

  it('refuses a client that does not trust the CA', async () => {
    await assert.rejects(fetch(`${listener.url}/_twin/v1/health`));
  });

  it('serves TLS only: cleartext HTTP/1.1 gets a 400 naming the https address, h2c (REST or gRPC) is closed', async () => {
    const cleartext = listener.url.replace('https:', 'http:');
    const res = await fetch(`${cleartext}/_twin/v1/health`, { headers: { authorization: 'Bearer test-admin-token' } });
    assert.equal(res.status, 400);
    assert.equal(await res.text(), `This port speaks TLS only: use ${listener.url}\n`);
    const session = h2connect(cleartext);
    session.on('error', () => {});
    const outcome = await h2get(session, '/_twin/v1/health').then((r) => r.status, () => 'refused');
    assert.ok(outcome === 'refused' || outcome === 0, `no answer over h2c: ${outcome}`);
    assert.ok(session.destroyed || session.closed, 'the connection was closed');
    session.destroy();
  });

  it('closes a connection whose TLS handshake stays unfinished for the idle limit', async () => {
    // The first 20 bytes of a ClientHello (a record header and the start of the handshake), then nothing.
    const hello = Buffer.from('16030100c8010000c40303' + '00'.repeat(9), 'hex');
    const socket = netConnect(listener.port, '127.0.0.1');
    socket.on('error', () => {});
    const started = Date.now();
    socket.write(hello);
    await new Promise((resolve) => socket.on('close', resolve));
    const ms = Date.now() - started;
    assert.ok(ms >= 250 && ms < 5000, `closed after ${ms} ms`);
  });
});
