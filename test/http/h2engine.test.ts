/**
 * The port's own HTTP/2 engine for gRPC channels (src/platform/transport/h2/connection.ts): which
 * connections it takes, flow control both ways, and every protocol violation answered with the
 * code RFC 9113 gives, never a crash; the server keeps answering afterwards.
 */
import assert from 'node:assert/strict';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type ProtoTypes, loadProtoTypes } from '../../src/platform/grpc/protos.ts';
import { H2_PREFACE } from '../../src/platform/transport/h2/connection.ts';
import { HpackDecoder, encodeHeaderBlock } from '../../src/platform/transport/h2/hpack.ts';
import type { Listener } from '../../src/platform/transport/listener.ts';
import { h2frame } from '../support/h2frame.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

const V2 = 'google.api.apikeys.v2';
const PARENT = `projects/${DEMO.projectId}/locations/global`;

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

const frame = h2frame;

/** The HTTP status of a GET over an HTTP/2 session. */
function getStatus(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = session.request({ ':path': path });
    s.on('response', (h) => resolve(Number(h[':status'])));
    s.on('error', reject);
    s.resume();
    s.end();
  });
}

/** A raw connection: the frames the server sends, parsed; GOAWAY's error code once it comes. */
class RawClient {
  readonly socket: Socket;
  readonly frames: { type: number; flags: number; id: number; payload: Buffer }[] = [];
  #buf = Buffer.alloc(0);
  closed: Promise<void>;

  constructor(port: number) {
    this.socket = netConnect(port, '127.0.0.1');
    this.socket.on('error', () => {});
    this.socket.on('data', (d: Buffer) => {
      this.#buf = Buffer.concat([this.#buf, d]);
      while (this.#buf.length >= 9) {
        const len = this.#buf.readUIntBE(0, 3);
        if (this.#buf.length < 9 + len) break;
        this.frames.push({ type: this.#buf[3], flags: this.#buf[4], id: this.#buf.readUInt32BE(5) & 0x7fffffff, payload: this.#buf.subarray(9, 9 + len) });
        this.#buf = this.#buf.subarray(9 + len);
      }
    });
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
  }

  send(...bufs: Buffer[]): void {
    this.socket.write(Buffer.concat(bufs));
  }

  /** The code of the server's GOAWAY (after the socket closed), or undefined. */
  async goaway(): Promise<number | undefined> {
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, 3000))]);
    const g = this.frames.find((f) => f.type === 7);
    return g ? g.payload.readUInt32BE(4) : undefined;
  }

  async waitFor(test: (f: RawClient['frames'][number]) => boolean, ms = 3000): Promise<RawClient['frames'][number]> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const f = this.frames.find(test);
      if (f) return f;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no such frame in ${JSON.stringify(this.frames.map((f) => [f.type, f.flags, f.id]))}`);
  }
}

describe('the HTTP/2 engine for gRPC channels', () => {
  let t: TestTwin;
  let listener: Listener;
  let token: string;
  let grpcHeaders: (id?: number) => Buffer;

  before(async () => {
    types = loadProtoTypes();
    t = await startTestTwin();
    listener = await t.twin.listen({ host: '127.0.0.1', port: 0 });
    token = await t.token(ALICE);
    await t.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
    const block = encodeHeaderBlock({ ':method': 'POST', ':scheme': 'http', ':path': `/${V2}.ApiKeys/ListKeys`, ':authority': 'localhost', 'content-type': 'application/grpc', te: 'trailers', authorization: `Bearer ${token}` });
    grpcHeaders = (id = 1) => frame(1, 0x4, id, block);
    list = message(`${V2}.ListKeysRequest`, { parent: PARENT });
  });
  after(async () => {
    await listener?.close();
    await t?.close();
  });

  let list: Buffer;
  const auth = () => ({ authorization: `Bearer ${token}` });

  it('takes a connection that opens with a gRPC call; others on it get 421, and a connection opening with REST serves both', async () => {
    const g = connect(listener.url);
    try {
      assert.equal((await grpcCall(g, `/${V2}.ApiKeys/ListKeys`, list, auth())).status, '0');
      assert.equal(await getStatus(g, '/_twin/v1/health'), 421);
      assert.equal((await grpcCall(g, `/${V2}.ApiKeys/ListKeys`, list, auth())).status, '0', 'the channel keeps working');
    } finally {
      g.close();
    }
    const r = connect(listener.url);
    try {
      assert.equal(await getStatus(r, '/_twin/v1/health'), 200);
      assert.equal((await grpcCall(r, `/${V2}.ApiKeys/ListKeys`, list, auth())).status, '0');
    } finally {
      r.close();
    }
  });

  it('sends within the peer’s windows (a large answer to a client with a 1 KiB window) and opens its own as it reads (a 3 MiB request)', async () => {
    for (let i = 0; i < 40; i++) {
      const op = await grpcCall(connectOnce(), `/${V2}.ApiKeys/CreateKey`, message(`${V2}.CreateKeyRequest`, { parent: PARENT, keyId: `flow-${i}`, key: { displayName: 'x'.repeat(60), annotations: { a: 'b'.repeat(1000) } } }), auth());
      assert.equal(op.status, '0');
    }
    const small = connect(listener.url, { settings: { initialWindowSize: 1024 } });
    try {
      const answer = await grpcCall(small, `/${V2}.ApiKeys/ListKeys`, message(`${V2}.ListKeysRequest`, { parent: PARENT, pageSize: 300 }), auth());
      assert.equal(answer.status, '0');
      assert.ok(answer.bytes > 40 * 1000, `${answer.bytes} bytes`);
      // 3 MiB: more than the stream window (1 MiB) and the client's first connection window; REST's bounds refuse it after reading it whole.
      const big = await grpcCall(small, `/${V2}.ApiKeys/CreateKey`, message(`${V2}.CreateKeyRequest`, { parent: PARENT, key: { displayName: 'd'.repeat(3 << 20) } }), auth());
      assert.equal(big.status, '3');
      assert.equal((await grpcCall(small, `/${V2}.ApiKeys/ListKeys`, list, auth())).status, '0');
    } finally {
      small.close();
    }
  });

  let shared: ClientHttp2Session | undefined;
  function connectOnce(): ClientHttp2Session {
    return (shared ??= connect(listener.url));
  }
  after(() => shared?.close());

  it('acknowledges SETTINGS and PING, answers a call over a raw connection', async () => {
    const c = new RawClient(listener.port);
    try {
      c.send(H2_PREFACE, frame(4, 0, 0), frame(6, 0, 0, Buffer.from('12345678')), grpcHeaders(1), frame(0, 1, 1, list));
      await c.waitFor((f) => f.type === 4 && f.flags === 0);
      await c.waitFor((f) => f.type === 4 && f.flags === 1);
      const ping = await c.waitFor((f) => f.type === 6);
      assert.equal(ping.flags, 1);
      assert.equal(ping.payload.toString(), '12345678');
      const trailers = await c.waitFor((f) => f.type === 1 && f.id === 1 && (f.flags & 1) === 1);
      assert.ok(trailers.payload.includes(Buffer.from('grpc-status')));
      assert.ok(c.frames.some((f) => f.type === 0 && f.id === 1 && f.payload.length > 5), 'a DATA frame with the message');
    } finally {
      c.socket.destroy();
    }
  });

  it('answers a client that waits for the server’s SETTINGS before its first request (gRPC C-core), with either engine', async () => {
    for (const first of ['grpc', 'rest'] as const) {
      const c = new RawClient(listener.port);
      try {
        c.send(H2_PREFACE, frame(4, 0, 0));
        const settings = await c.waitFor((f) => f.type === 4 && f.flags === 0, 1000);
        assert.equal(settings.payload.length, 0, 'an empty SETTINGS: the engine is not chosen yet');
        if (first === 'grpc') {
          c.send(frame(4, 1, 0), grpcHeaders(1), frame(0, 1, 1, list));
          const trailers = await c.waitFor((f) => f.type === 1 && f.id === 1 && (f.flags & 1) === 1);
          assert.ok(trailers.payload.includes(Buffer.from('grpc-status')));
        } else {
          // node:http2 takes it: it must not see the ACK of a SETTINGS it did not send (the connection would end).
          c.send(frame(4, 1, 0), frame(1, 0x4 | 0x1, 1, encodeHeaderBlock({ ':method': 'GET', ':scheme': 'http', ':path': '/_twin/v1/health', ':authority': 'localhost' })));
          const response = await c.waitFor((f) => f.type === 1 && f.id === 1);
          const fields = new HpackDecoder().decode(response.payload);
          assert.equal(fields[fields.indexOf(':status') + 1], '200');
          await new Promise((r) => setTimeout(r, 50));
          assert.ok(!c.frames.some((f) => f.type === 7), 'no GOAWAY');
        }
      } finally {
        c.socket.destroy();
      }
    }
  });

  it('holds the answer (data, then trailers) until the peer opens a window it had closed', async () => {
    const c = new RawClient(listener.port);
    try {
      // SETTINGS_INITIAL_WINDOW_SIZE = 0: no stream may send DATA until a WINDOW_UPDATE.
      c.send(H2_PREFACE, frame(4, 0, 0, Buffer.from([0, 4, 0, 0, 0, 0])), grpcHeaders(1), frame(0, 1, 1, list));
      await c.waitFor((f) => f.type === 1 && f.id === 1);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(c.frames.filter((f) => f.id === 1).map((f) => f.type), [1], 'headers only: no DATA, no trailers yet');
      c.send(frame(8, 0, 1, Buffer.from([0, 1, 0, 0])));
      await c.waitFor((f) => f.type === 1 && f.id === 1 && (f.flags & 1) === 1);
      const types = c.frames.filter((f) => f.id === 1).map((f) => f.type);
      assert.equal(types[0], 1);
      assert.equal(types.at(-1), 1);
      assert.ok(types.slice(1, -1).every((t) => t === 0) && types.length >= 3, String(types));
    } finally {
      c.socket.destroy();
    }
  });

  const violations: [string, (h: (id?: number) => Buffer) => Buffer[], number][] = [
    ['DATA on stream 0', (h) => [h(1), frame(0, 0, 0, Buffer.from('x'))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['HEADERS on an even stream', (h) => [h(1), h(2)], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a stream id going backwards', (h) => [h(5), h(3)], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a frame over 16 KiB', (h) => [h(1), frame(0, 0, 1, Buffer.alloc(20_000))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['an undecodable header block', (h) => [h(1), frame(1, 0x4, 3, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))], constants.NGHTTP2_COMPRESSION_ERROR],
    ['a frame between HEADERS and CONTINUATION', (h) => [h(1), frame(1, 0, 3, h(3).subarray(9, 20)), frame(6, 0, 0, Buffer.alloc(8))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['an endless CONTINUATION', (h) => [h(1), frame(1, 0, 3, h(3).subarray(9, 20)), ...Array.from({ length: 20 }, () => frame(9, 0, 3, Buffer.alloc(16_000, 0x40)))], constants.NGHTTP2_ENHANCE_YOUR_CALM],
    ['a PUSH_PROMISE from the client', (h) => [h(1), frame(5, 0x4, 1, Buffer.alloc(8))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a WINDOW_UPDATE of 0 on the connection', (h) => [h(1), frame(8, 0, 0, Buffer.alloc(4))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a connection window past 2^31-1', (h) => [h(1), frame(8, 0, 0, Buffer.from([0x7f, 0xff, 0xff, 0xff]))], constants.NGHTTP2_FLOW_CONTROL_ERROR],
    ['a SETTINGS frame of 5 octets', (h) => [h(1), frame(4, 0, 0, Buffer.alloc(5))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['a max frame size below 16 KiB', (h) => [h(1), frame(4, 0, 0, Buffer.from([0, 5, 0, 0, 0x10, 0]))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['a PING of 7 octets', (h) => [h(1), frame(6, 0, 0, Buffer.alloc(7))], constants.NGHTTP2_FRAME_SIZE_ERROR],
    ['RST_STREAM of an idle stream', (h) => [h(1), frame(3, 0, 9, Buffer.alloc(4))], constants.NGHTTP2_PROTOCOL_ERROR],
    ['padding longer than the frame', (h) => [h(1), frame(1, 0x4 | 0x8, 3, Buffer.concat([Buffer.from([200]), h(3).subarray(9)]))], constants.NGHTTP2_PROTOCOL_ERROR],
  ];
  for (const [name, frames, code] of violations) {
    it(`ends the connection with GOAWAY for ${name}`, async () => {
      const c = new RawClient(listener.port);
      c.send(H2_PREFACE, frame(4, 0, 0), ...frames(grpcHeaders));
      assert.equal(await c.goaway(), code);
      c.socket.destroy();
    });
  }

  it('ends a connection that resets streams without end (rapid reset)', async () => {
    const c = new RawClient(listener.port);
    const burst: Buffer[] = [H2_PREFACE, frame(4, 0, 0)];
    for (let id = 1; id < 2 * 2100; id += 2) burst.push(grpcHeaders(id), frame(3, 0, id, Buffer.from([0, 0, 0, 8])));
    c.send(...burst);
    assert.equal(await c.goaway(), constants.NGHTTP2_ENHANCE_YOUR_CALM);
    c.socket.destroy();
  });

  it('survives random frames after a gRPC call opened the connection; the server keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ type: fc.integer({ min: 0, max: 12 }), flags: fc.integer({ min: 0, max: 255 }), id: fc.integer({ min: 0, max: 9 }), payload: fc.uint8Array({ maxLength: 64 }) }), { maxLength: 12 }),
        async (frames) => {
          const c = new RawClient(listener.port);
          c.send(H2_PREFACE, frame(4, 0, 0), grpcHeaders(1), ...frames.map((f) => frame(f.type, f.flags, f.id, Buffer.from(f.payload))));
          await new Promise((r) => setTimeout(r, 20));
          c.socket.destroy();
        },
      ),
      { numRuns: 120 },
    );
    const g = connect(listener.url);
    assert.equal((await grpcCall(g, `/${V2}.ApiKeys/ListKeys`, list, auth())).status, '0');
    g.close();
  });
});
