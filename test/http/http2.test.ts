/**
 * One HTTP/2 stack for the port: node:http2 serves every HTTP/2 connection, cleartext (prior
 * knowledge) and TLS (ALPN h2), and on one session each stream goes to gRPC or to the REST
 * routes by its own content-type. What is checked on the wire: REST and gRPC interleaved on one
 * connection, the server's SETTINGS sent at once (gRPC C-core waits for them), flow control
 * both ways, the flood limits the port sets (nghttp2 enforces them), protocol violations ending
 * the connection, and the server answering afterwards.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session, type SecureClientSessionOptions } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type ProtoTypes, loadProtoTypes } from '../../src/platform/grpc/protos.ts';
import { localServerTls } from '../../src/platform/transport/localCa.ts';
import { HTTP2_LIMITS, type Listener } from '../../src/platform/transport/listener.ts';
import { FLAG, FRAME, H2_PREFACE, RawH2Client, h2frame as frame, headerBlock, settingsFrame } from '../support/h2frame.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

const V2 = 'google.api.apikeys.v2';
const PARENT = `projects/${DEMO.projectId}/locations/global`;
const SETTINGS_MAX_CONCURRENT_STREAMS = 3;
const SETTINGS_INITIAL_WINDOW_SIZE = 4;
const SETTINGS_MAX_HEADER_LIST_SIZE = 6;

let types: ProtoTypes;

function message(typeName: string, value: Record<string, unknown>): Buffer {
  const t = types.type(typeName);
  const body = Buffer.from(t.encode(t.fromObject(value)).finish());
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** One gRPC call over a node:http2 client session: grpc-status and the response bytes. */
function grpcCall(session: ClientHttp2Session, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: string; bytes: number; httpStatus: number }> {
  return new Promise((resolve, reject) => {
    const s = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    let status = '';
    let httpStatus = 0;
    let bytes = 0;
    s.on('response', (h) => {
      httpStatus = Number(h[':status']);
      if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
    });
    s.on('trailers', (t) => (status = String(t['grpc-status'])));
    s.on('data', (d: Buffer) => (bytes += d.length));
    s.on('error', reject);
    s.on('close', () => resolve({ status, bytes, httpStatus }));
    s.end(body);
  });
}

/** A GET over an HTTP/2 session: status, content-type and body. */
function get(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = session.request({ ':path': path, ...headers });
    let status = 0;
    let type = '';
    let body = '';
    s.on('response', (h) => {
      status = Number(h[':status']);
      type = String(h['content-type']);
    });
    s.setEncoding('utf8');
    s.on('data', (d: string) => (body += d));
    s.on('error', reject);
    s.on('end', () => resolve({ status, type, body }));
    s.end();
  });
}

/** A twin listening on a port of its own (with TLS when given), a token of ALICE's, and a ListKeys request message. */
function servedTwin(tls?: () => { cert: string; key: string }) {
  const s = {} as { t: TestTwin; listener: Listener; token: string; list: Buffer; auth: () => Record<string, string> };
  before(async () => {
    types ??= loadProtoTypes();
    s.t = await startTestTwin();
    s.listener = await s.t.twin.listen({ host: '127.0.0.1', port: 0, tls: tls?.() });
    s.token = await s.t.token(ALICE);
    s.list = message(`${V2}.ListKeysRequest`, { parent: PARENT });
    s.auth = () => ({ authorization: `Bearer ${s.token}` });
  });
  after(async () => {
    await s.listener?.close();
    await s.t?.close();
  });
  return s;
}

/** gRPC, then REST, then gRPC again on the one session: all three answered. */
async function interleaved(session: ClientHttp2Session, s: ReturnType<typeof servedTwin>): Promise<void> {
  assert.equal((await grpcCall(session, `/${V2}.ApiKeys/ListKeys`, s.list, s.auth())).status, '0');
  const rest = await get(session, `/v2/${PARENT}/keys`, s.auth());
  assert.equal(rest.status, 200);
  assert.match(rest.type, /^application\/json/);
  assert.ok(Array.isArray(JSON.parse(rest.body).keys ?? []));
  assert.equal((await get(session, '/_twin/v1/health')).status, 200);
  assert.equal((await grpcCall(session, `/${V2}.ApiKeys/ListKeys`, s.list, s.auth())).status, '0');
}

describe('one HTTP/2 connection carries REST and gRPC (h2c)', () => {
  const s = servedTwin();

  it('serves a gRPC call, then a REST call, then a gRPC call on one session', async () => {
    const session = connect(s.listener.url);
    try {
      await interleaved(session, s);
    } finally {
      session.close();
    }
  });
});

describe('one HTTP/2 connection carries REST and gRPC (TLS, ALPN h2)', () => {
  let dir: string;
  let ca: string;
  const s = servedTwin(() => {
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-h2-tls-'));
    const tls = localServerTls(join(dir, 'tls'), []);
    ca = readFileSync(tls.caFile, 'utf8');
    return tls;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves a gRPC call, then a REST call, then a gRPC call on one session', async () => {
    const session = connect(s.listener.url, { ca } as SecureClientSessionOptions);
    try {
      await interleaved(session, s);
      assert.equal(session.alpnProtocol, 'h2');
    } finally {
      session.close();
    }
  });
});

describe('HTTP/2 on the wire (node:http2)', () => {
  const s = servedTwin();
  const grpcHeaders = (id = 1) =>
    frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock({ ':method': 'POST', ':scheme': 'http', ':path': `/${V2}.ApiKeys/ListKeys`, ':authority': 'localhost', 'content-type': 'application/grpc', te: 'trailers', authorization: `Bearer ${s.token}` }));
  const healthHeaders = (id = 1, extra: Record<string, string> = {}) =>
    frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, headerBlock({ ':method': 'GET', ':scheme': 'http', ':path': '/_twin/v1/health', ':authority': 'localhost', ...extra }));
  const endOf = (c: RawH2Client, id: number) => c.waitFor((f) => (f.type === FRAME.HEADERS || f.type === FRAME.DATA) && f.id === id && (f.flags & FLAG.END_STREAM) === FLAG.END_STREAM);

  it('sends its SETTINGS at once to a client that waits for them before its first request (as gRPC C-core does)', async () => {
    const c = new RawH2Client(s.listener.port);
    try {
      // Only the preface and the client's SETTINGS: nothing else is sent until the server's SETTINGS came.
      c.send(H2_PREFACE, settingsFrame());
      const settings = RawH2Client.settings(await c.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === 0, 5000));
      assert.equal(settings.get(SETTINGS_MAX_CONCURRENT_STREAMS), HTTP2_LIMITS.maxConcurrentStreams);
      assert.equal(settings.get(SETTINGS_MAX_HEADER_LIST_SIZE), HTTP2_LIMITS.maxHeaderListSize);
      c.send(frame(FRAME.SETTINGS, FLAG.ACK, 0), grpcHeaders(1), frame(FRAME.DATA, FLAG.END_STREAM, 1, s.list), healthHeaders(3));
      const trailers = await endOf(c, 1);
      assert.equal(trailers.type, FRAME.HEADERS, 'the call ends with trailers');
      assert.ok(c.frames.some((f) => f.type === FRAME.DATA && f.id === 1 && f.payload.length > 5), 'a DATA frame with the response message');
      const health = await c.waitFor((f) => f.type === FRAME.HEADERS && f.id === 3);
      assert.equal(health.payload[0], 0x88, ':status 200 (static table index 8)');
      assert.ok(!c.frames.some((f) => f.type === FRAME.GOAWAY), 'no GOAWAY');
    } finally {
      c.close();
    }
  });

  it('acknowledges SETTINGS and PING', async () => {
    const c = new RawH2Client(s.listener.port);
    try {
      c.send(H2_PREFACE, settingsFrame([SETTINGS_INITIAL_WINDOW_SIZE, 100_000]), frame(FRAME.PING, 0, 0, Buffer.from('12345678')));
      await c.waitFor((f) => f.type === FRAME.SETTINGS && f.flags === FLAG.ACK);
      const ping = await c.waitFor((f) => f.type === FRAME.PING);
      assert.equal(ping.flags, FLAG.ACK);
      assert.equal(ping.payload.toString(), '12345678');
    } finally {
      c.close();
    }
  });

  it('sends within the peer’s windows (a large answer to a client with a 1 KiB window) and opens its own as it reads (a 3 MiB request)', async () => {
    const setup = connect(s.listener.url);
    try {
      for (let i = 0; i < 40; i++) {
        const op = await grpcCall(setup, `/${V2}.ApiKeys/CreateKey`, message(`${V2}.CreateKeyRequest`, { parent: PARENT, keyId: `flow-${i}`, key: { displayName: 'x'.repeat(60), annotations: { a: 'b'.repeat(1000) } } }), s.auth());
        assert.equal(op.status, '0');
      }
    } finally {
      setup.close();
    }
    const small = connect(s.listener.url, { settings: { initialWindowSize: 1024 } });
    try {
      const answer = await grpcCall(small, `/${V2}.ApiKeys/ListKeys`, message(`${V2}.ListKeysRequest`, { parent: PARENT, pageSize: 300 }), s.auth());
      assert.equal(answer.status, '0');
      assert.ok(answer.bytes > 40 * 1000, `${answer.bytes} bytes`);
      // 3 MiB: more than a stream's and the connection's first windows; REST's bounds refuse it after reading it whole.
      const big = await grpcCall(small, `/${V2}.ApiKeys/CreateKey`, message(`${V2}.CreateKeyRequest`, { parent: PARENT, key: { displayName: 'd'.repeat(3 << 20) } }), s.auth());
      assert.equal(big.status, '3');
      assert.equal((await grpcCall(small, `/${V2}.ApiKeys/ListKeys`, s.list, s.auth())).status, '0');
    } finally {
      small.close();
    }
  });

  it('holds the answer (data, then trailers) until the peer opens a window it had closed', async () => {
    const c = new RawH2Client(s.listener.port);
    try {
      // SETTINGS_INITIAL_WINDOW_SIZE = 0: no stream may carry DATA until a WINDOW_UPDATE.
      c.send(H2_PREFACE, settingsFrame([SETTINGS_INITIAL_WINDOW_SIZE, 0]), grpcHeaders(1), frame(FRAME.DATA, FLAG.END_STREAM, 1, s.list));
      await c.waitFor((f) => f.type === FRAME.HEADERS && f.id === 1);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(c.frames.filter((f) => f.id === 1).map((f) => f.type), [FRAME.HEADERS], 'headers only: no DATA, no trailers yet');
      c.send(frame(FRAME.WINDOW_UPDATE, 0, 1, Buffer.from([0, 1, 0, 0])));
      await endOf(c, 1);
      const sent = c.frames.filter((f) => f.id === 1).map((f) => f.type);
      assert.equal(sent[0], FRAME.HEADERS);
      assert.equal(sent.at(-1), FRAME.HEADERS);
      assert.ok(sent.slice(1, -1).every((t) => t === FRAME.DATA) && sent.length >= 3, String(sent));
    } finally {
      c.close();
    }
  });

  describe('flood limits (set by the port, enforced by nghttp2)', () => {
    it(`refuses a request with more than ${HTTP2_LIMITS.maxHeaderListPairs} header fields; the connection goes on`, async () => {
      const c = new RawH2Client(s.listener.port);
      try {
        const many = Object.fromEntries(Array.from({ length: HTTP2_LIMITS.maxHeaderListPairs + 2 }, (_, i) => [`x-h${i}`, 'v']));
        c.send(H2_PREFACE, settingsFrame(), healthHeaders(1, many), healthHeaders(3));
        const reset = await c.waitFor((f) => f.type === FRAME.RST_STREAM && f.id === 1);
        assert.equal(reset.payload.readUInt32BE(0), constants.NGHTTP2_ENHANCE_YOUR_CALM);
        assert.equal((await c.waitFor((f) => f.type === FRAME.HEADERS && f.id === 3)).payload[0], 0x88);
      } finally {
        c.close();
      }
    });

    it(`ends a session after more than ${HTTP2_LIMITS.maxSessionInvalidFrames} invalid frames, not before`, async () => {
      // A request without :path is malformed (RFC 9113 §8.3.1): the stream is reset, and it counts as an invalid frame.
      const malformed = (id: number) => frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, headerBlock({ ':method': 'GET', ':scheme': 'http', ':authority': 'localhost' }));
      const under = new RawH2Client(s.listener.port);
      const over = new RawH2Client(s.listener.port);
      try {
        const n = HTTP2_LIMITS.maxSessionInvalidFrames;
        under.send(H2_PREFACE, settingsFrame(), ...Array.from({ length: n - 10 }, (_, i) => malformed(1 + 2 * i)), healthHeaders(2 * n + 1));
        assert.equal((await under.waitFor((f) => f.type === FRAME.HEADERS && f.id === 2 * n + 1)).payload[0], 0x88, 'still served');
        assert.equal(under.frames.filter((f) => f.type === FRAME.RST_STREAM).length, n - 10);
        over.send(H2_PREFACE, settingsFrame(), ...Array.from({ length: n + 10 }, (_, i) => malformed(1 + 2 * i)));
        assert.notEqual(await over.goaway(), undefined, 'GOAWAY');
      } finally {
        under.close();
        over.close();
      }
    });

    it(`refuses streams past ${HTTP2_LIMITS.maxConcurrentStreams} open at once, and ends a client that keeps opening them (each refusal is an invalid frame)`, async () => {
      const open = (id: number) => frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock({ ':method': 'POST', ':scheme': 'http', ':path': `/${V2}.ApiKeys/ListKeys`, ':authority': 'localhost', 'content-type': 'application/grpc' }));
      const refused = (c: RawH2Client) => c.frames.filter((f) => f.type === FRAME.RST_STREAM && f.payload.readUInt32BE(0) === constants.NGHTTP2_REFUSED_STREAM).length;
      const a = new RawH2Client(s.listener.port);
      const b = new RawH2Client(s.listener.port);
      try {
        const few = HTTP2_LIMITS.maxSessionInvalidFrames / 2;
        a.send(H2_PREFACE, settingsFrame(), ...Array.from({ length: HTTP2_LIMITS.maxConcurrentStreams + few }, (_, i) => open(1 + 2 * i)));
        await a.waitFor(() => refused(a) === few);
        assert.equal(await a.goaway(300), undefined, 'the session goes on');
        b.send(H2_PREFACE, settingsFrame(), ...Array.from({ length: HTTP2_LIMITS.maxConcurrentStreams + 3 * HTTP2_LIMITS.maxSessionInvalidFrames }, (_, i) => open(1 + 2 * i)));
        assert.notEqual(await b.goaway(), undefined, 'GOAWAY');
        assert.ok(refused(b) <= HTTP2_LIMITS.maxSessionInvalidFrames + 2, `${refused(b)} streams refused before the session ended`);
      } finally {
        a.close();
        b.close();
      }
    });

    it('ends a session that resets streams without end (rapid reset)', async () => {
      const c = new RawH2Client(s.listener.port);
      try {
        const burst: Buffer[] = [H2_PREFACE, settingsFrame()];
        for (let id = 1; id < 4 * HTTP2_LIMITS.streamResetBurst; id += 2) burst.push(grpcHeaders(id), frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, 8])));
        c.send(...burst);
        assert.notEqual(await c.goaway(), undefined, 'GOAWAY');
      } finally {
        c.close();
      }
    });

    it(`ends a session whose SETTINGS frame has more than ${HTTP2_LIMITS.maxSettings} entries`, async () => {
      const c = new RawH2Client(s.listener.port);
      try {
        c.send(H2_PREFACE, settingsFrame(...Array.from({ length: HTTP2_LIMITS.maxSettings + 1 }, () => [1, 4096] as [number, number])));
        assert.equal(await c.goaway(), constants.NGHTTP2_ENHANCE_YOUR_CALM);
      } finally {
        c.close();
      }
    });
  });

  const violations: [string, (h: (id?: number) => Buffer) => Buffer[], number?][] = [
    ['DATA on stream 0', (h) => [h(1), frame(FRAME.DATA, 0, 0, Buffer.from('x'))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['HEADERS on an even stream', (h) => [h(1), h(2)], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a frame over 16 KiB', (h) => [h(1), frame(FRAME.DATA, 0, 1, Buffer.alloc(20_000))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['an undecodable header block', (h) => [h(1), frame(FRAME.HEADERS, FLAG.END_HEADERS, 3, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))], constants.NGHTTP2_COMPRESSION_ERROR],
    ['a frame between HEADERS and CONTINUATION', (h) => [h(1), frame(FRAME.HEADERS, 0, 3, h(3).subarray(9, 20)), frame(FRAME.PING, 0, 0, Buffer.alloc(8))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['an endless CONTINUATION', (h) => [h(1), frame(FRAME.HEADERS, 0, 3, h(3).subarray(9, 20)), ...Array.from({ length: 20 }, () => frame(FRAME.CONTINUATION, 0, 3, Buffer.alloc(16_000, 0x40)))]],
    ['a PUSH_PROMISE from the client', (h) => [h(1), frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.alloc(8))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a WINDOW_UPDATE of 0 on the connection', (h) => [h(1), frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.alloc(4))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a connection window past 2^31-1', (h) => [h(1), frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.from([0x7f, 0xff, 0xff, 0xff]))], constants.NGHTTP2_FLOW_CONTROL_ERROR],
    ['a SETTINGS frame of 5 octets', (h) => [h(1), frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(5))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['a max frame size below 16 KiB', (h) => [h(1), frame(FRAME.SETTINGS, 0, 0, Buffer.from([0, 5, 0, 0, 0x10, 0]))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a PING of 7 octets', (h) => [h(1), frame(FRAME.PING, 0, 0, Buffer.alloc(7))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['RST_STREAM of an idle stream', (h) => [h(1), frame(FRAME.RST_STREAM, 0, 9, Buffer.alloc(4))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['padding longer than the frame', (h) => [h(1), frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.PADDED, 3, Buffer.concat([Buffer.from([200]), h(3).subarray(9)]))]],
  ];
  for (const [name, frames, code] of violations) {
    it(`ends the connection with GOAWAY for ${name}`, async () => {
      const c = new RawH2Client(s.listener.port);
      c.send(H2_PREFACE, settingsFrame(), ...frames(grpcHeaders));
      const got = await c.goaway();
      c.close();
      if (code === undefined) assert.ok(got !== undefined && got !== constants.NGHTTP2_NO_ERROR, `an error code: ${got}`);
      else assert.equal(got, code);
    });
  }

  it('survives random frames after a gRPC call opened the connection; the server keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ type: fc.integer({ min: 0, max: 12 }), flags: fc.integer({ min: 0, max: 255 }), id: fc.integer({ min: 0, max: 9 }), payload: fc.uint8Array({ maxLength: 64 }) }), { maxLength: 12 }),
        async (frames) => {
          const c = new RawH2Client(s.listener.port);
          c.send(H2_PREFACE, settingsFrame(), grpcHeaders(1), ...frames.map((f) => frame(f.type, f.flags, f.id, Buffer.from(f.payload))));
          await new Promise((r) => setTimeout(r, 20));
          c.close();
        },
      ),
      { numRuns: 120 },
    );
    const g = connect(s.listener.url);
    try {
      assert.equal((await grpcCall(g, `/${V2}.ApiKeys/ListKeys`, s.list, s.auth())).status, '0');
    } finally {
      g.close();
    }
  });
});
