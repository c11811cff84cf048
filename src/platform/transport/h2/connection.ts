import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { HpackDecoder, HpackError, encodeHeaderBlock } from './hpack.ts';

/**
 * A lean HTTP/2 server connection (RFC 9113) for gRPC channels. node:http2 costs about 20 us of
 * CPU per unary call on this project's machines (a bare fastify route over HTTP/1.1: about 11),
 * most of it in making and collecting a native stream object per call; gRPC's unary calls are
 * small and many, so the port hands a connection whose first request is a gRPC call to this
 * engine instead (src/platform/transport/listener.ts). It speaks what a gRPC channel needs and
 * no more: HPACK-decoded request headers, DATA in both directions with flow control, trailers,
 * RST_STREAM, SETTINGS, PING, GOAWAY (graceful shutdown drains open streams). No server push,
 * no priorities (ignored, as RFC 9113 allows). Every protocol violation ends the stream or the
 * connection with the code RFC 9113 gives; nothing a peer sends can throw.
 *
 * Its streams (`H2Stream`) offer the subset of node:http2's `ServerHttp2Stream` the gRPC server
 * uses (respond, write, end, sendTrailers, close; 'data', 'end', 'wantTrailers', 'close'), so one
 * gRPC server serves streams of both.
 */

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
export const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

const DATA = 0x0;
const HEADERS = 0x1;
const PRIORITY = 0x2;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

export const H2_ERROR = { NO_ERROR: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2, FLOW_CONTROL_ERROR: 3, STREAM_CLOSED: 5, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, CANCEL: 8, COMPRESSION_ERROR: 9, ENHANCE_YOUR_CALM: 11 } as const;

const MAX_WINDOW = 0x7fffffff;
/** What this side announces: streams at once, each stream's receive window, the largest header list. */
const MAX_CONCURRENT_STREAMS = 1000;
const STREAM_WINDOW = 1 << 20;
const CONNECTION_WINDOW = 16 << 20;
const MAX_HEADER_LIST_SIZE = 65536;
/** Frames this side takes (the RFC's default; it is not raised). */
const MAX_FRAME_SIZE = 16384;
/** A header block (HEADERS + CONTINUATION) larger than this ends the connection (CONTINUATION floods). */
const MAX_HEADER_BLOCK = 256 * 1024;
/** Streams a peer may reset within RESET_WINDOW_MS before the connection ends (the rapid-reset attack). */
const MAX_RESETS = 2000;
const RESET_WINDOW_MS = 10_000;
/** PINGs (and SETTINGS) to acknowledge that may queue before the connection ends (a flood). */
const MAX_PENDING_ACKS = 10_000;

const EMPTY = Buffer.alloc(0);

/** A frame's 9-octet header, in a buffer with room for `extra` octets after it. */
function frameHeader(length: number, type: number, flags: number, id: number, extra = 0): Buffer {
  const h = Buffer.allocUnsafe(9 + extra);
  h[0] = (length >>> 16) & 0xff;
  h[1] = (length >>> 8) & 0xff;
  h[2] = length & 0xff;
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id, 5);
  return h;
}

function frame(type: number, flags: number, id: number, payload: Uint8Array = EMPTY): Buffer {
  const out = frameHeader(payload.length, type, flags, id, payload.length);
  out.set(payload, 9);
  return out;
}

/** A HEADERS or DATA payload without its padding (and, for HEADERS, its priority fields), or undefined when the padding is impossible. */
function unpad(flags: number, payload: Buffer, priority: boolean): Buffer | undefined {
  let start = 0;
  let end = payload.length;
  if (flags & PADDED) {
    if (payload.length < 1) return undefined;
    end -= payload[0];
    start = 1;
  }
  if (priority && flags & PRIORITY_FLAG) start += 5;
  return end < start ? undefined : payload.subarray(start, end);
}

function u32(value: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(value >>> 0, 0);
  return b;
}

const SERVER_SETTINGS = (() => {
  const s = Buffer.alloc(18);
  s.writeUInt16BE(3, 0);
  s.writeUInt32BE(MAX_CONCURRENT_STREAMS, 2);
  s.writeUInt16BE(4, 6);
  s.writeUInt32BE(STREAM_WINDOW, 8);
  s.writeUInt16BE(6, 12);
  s.writeUInt32BE(MAX_HEADER_LIST_SIZE, 14);
  return Buffer.concat([frame(SETTINGS, 0, 0, s), frame(WINDOW_UPDATE, 0, 0, u32(CONNECTION_WINDOW - 65535))]);
})();
const SETTINGS_ACK = frame(SETTINGS, ACK, 0);

/** Header blocks of header objects the server reuses (frozen constants): encoded once. */
const encodedBlocks = new WeakMap<object, Buffer>();
function headerBlock(headers: Record<string, string | number | readonly string[]>): Buffer {
  let block = encodedBlocks.get(headers);
  if (!block) {
    block = encodeHeaderBlock(headers);
    if (Object.isFrozen(headers)) encodedBlocks.set(headers, block);
  }
  return block;
}

/** Request headers as node:http2 gives them: lower-case names, a repeated name as an array. */
export type H2Headers = Record<string, string | string[] | undefined>;

/** One thing to send on a stream, in order: data (maybe ending the stream) or trailers. */
type Outgoing = { data: Buffer; end: boolean } | { trailers: Buffer };

/** One request stream: the `ServerHttp2Stream` subset the gRPC server uses. */
export class H2Stream extends EventEmitter {
  readonly id: number;
  readonly session: { socket: Socket };
  #conn: H2Connection;
  /** Data received before anyone reads ('data' listener or resume): delivered in order then. */
  #inbox: Buffer[] = [];
  #flowing = false;
  #flushQueued = false;
  #remoteEnded = false;
  #endDelivered = false;
  #localEnded = false;
  #headersSent = false;
  #closed = false;
  #waitForTrailers = false;
  #endRequested = false;
  #wantTrailersEmitted = false;
  /** Send-side flow control: what the peer lets this stream send; what waits for a window. */
  sendWindow: number;
  #pending: Outgoing[] = [];
  /** Receive side: DATA octets taken since the last WINDOW_UPDATE of this stream. */
  recvWindow = STREAM_WINDOW;
  recvConsumed = 0;

  constructor(conn: H2Connection, id: number, sendWindow: number) {
    super();
    this.#conn = conn;
    this.id = id;
    this.sendWindow = sendWindow;
    this.session = { socket: conn.socket };
  }

  get destroyed(): boolean {
    return this.#closed;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get headersSent(): boolean {
    return this.#headersSent;
  }

  get remoteEnded(): boolean {
    return this.#remoteEnded;
  }

  // ---- receiving ---------------------------------------------------------------------------------

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'data') this.resume();
    return this;
  }

  /** Flowing from now on: what arrived so far is delivered on the next tick (as node's streams do). */
  resume(): this {
    if (!this.#flowing) {
      this.#flowing = true;
      this.#scheduleFlush();
    }
    return this;
  }

  /** @internal DATA payload from the peer. */
  push(chunk: Buffer): void {
    if (this.#flowing && this.#inbox.length === 0 && !this.#flushQueued) this.emit('data', chunk);
    else this.#inbox.push(chunk);
  }

  /** @internal The peer ended its side (END_STREAM). */
  remoteEnd(): void {
    this.#remoteEnded = true;
    if (this.#flowing && this.#inbox.length === 0 && !this.#flushQueued) this.#deliverEnd();
    this.#maybeClose();
  }

  #scheduleFlush(): void {
    if (this.#flushQueued || (this.#inbox.length === 0 && !this.#remoteEnded)) return;
    this.#flushQueued = true;
    process.nextTick(() => {
      this.#flushQueued = false;
      const inbox = this.#inbox;
      this.#inbox = [];
      for (const chunk of inbox) this.emit('data', chunk);
      if (this.#remoteEnded) this.#deliverEnd();
    });
  }

  #deliverEnd(): void {
    if (this.#endDelivered) return;
    this.#endDelivered = true;
    this.emit('end');
  }

  // ---- sending -----------------------------------------------------------------------------------

  respond(headers: Record<string, string | number | readonly string[]>, options?: { endStream?: boolean; waitForTrailers?: boolean }): void {
    if (this.#closed || this.#headersSent) return;
    this.#headersSent = true;
    this.#waitForTrailers = options?.waitForTrailers === true;
    const endStream = options?.endStream === true;
    this.#conn.sendHeaders(this.id, headerBlock(headers), endStream);
    if (endStream) this.#localEnd();
  }

  write(data: Uint8Array): boolean {
    if (!this.#closed && !this.#endRequested && data.length > 0) {
      this.#pending.push({ data: Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length), end: false });
      this.pump();
    }
    return true;
  }

  end(data?: Uint8Array): this {
    if (this.#closed || this.#endRequested) return this;
    if (!this.#headersSent) this.respond({ ':status': 200 });
    if (this.#localEnded) return this;
    if (data && data.length) this.write(data);
    this.#endRequested = true;
    if (!this.#waitForTrailers) this.#pending.push({ data: EMPTY, end: true });
    this.pump();
    return this;
  }

  sendTrailers(trailers: Record<string, string | number | readonly string[]>): void {
    if (this.#closed || this.#localEnded) return;
    this.#pending.push({ trailers: headerBlock(trailers) });
    this.pump();
  }

  /** Ends the stream with RST_STREAM (`code`, default NO_ERROR). */
  close(code: number = H2_ERROR.NO_ERROR): void {
    if (this.#closed) return;
    this.#conn.sendReset(this.id, code);
    this.destroy();
  }

  /** @internal Sends what the windows allow, in order; asks for trailers once the data is out. */
  pump(): void {
    const conn = this.#conn;
    while (this.#pending.length && !this.#closed) {
      const item = this.#pending[0];
      if ('trailers' in item) {
        this.#pending.shift();
        conn.sendHeaders(this.id, item.trailers, true);
        this.#localEnd();
        return;
      }
      // (A window may be negative: a smaller SETTINGS_INITIAL_WINDOW_SIZE applies to open streams.)
      const n = item.data.length === 0 ? 0 : Math.min(item.data.length, this.sendWindow, conn.sendWindow, conn.peerMaxFrameSize);
      if (n <= 0 && item.data.length > 0) {
        conn.blocked.add(this);
        return;
      }
      const last = n === item.data.length;
      conn.sendData(this.id, last ? item.data : item.data.subarray(0, n), last && item.end);
      this.sendWindow -= n;
      if (!last) {
        item.data = item.data.subarray(n);
        continue;
      }
      this.#pending.shift();
      if (item.end) return this.#localEnd();
    }
    if (this.#endRequested && this.#waitForTrailers && !this.#wantTrailersEmitted && !this.#closed) {
      this.#wantTrailersEmitted = true;
      this.emit('wantTrailers');
    }
  }

  #localEnd(): void {
    this.#localEnded = true;
    this.#pending.length = 0;
    // A complete answer before the whole request: the peer may stop sending (RFC 9113 §8.1).
    if (!this.#remoteEnded) this.#conn.sendReset(this.id, H2_ERROR.NO_ERROR);
    this.destroy();
  }

  #maybeClose(): void {
    if (this.#localEnded && this.#remoteEnded) this.destroy();
  }

  /** @internal Closed (both sides done, reset, or the connection gone): 'close' once, on the next tick. */
  destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending.length = 0;
    this.#conn.forget(this);
    process.nextTick(() => this.emit('close'));
  }
}

export interface H2ConnectionOptions {
  /** Every request stream, once its headers are whole. */
  onStream(stream: H2Stream, headers: H2Headers): void;
  /** A connection with no open stream for this long is closed (as an idle HTTP/1.1 keep-alive connection). */
  idleTimeoutMs?: number;
}

/** One HTTP/2 connection on a socket whose bytes (from the client preface on) are `head` and what follows. */
export class H2Connection extends EventEmitter {
  readonly socket: Socket;
  readonly #opts: H2ConnectionOptions;
  readonly #decoder = new HpackDecoder({ maxTableSize: 4096, maxHeaderListSize: MAX_HEADER_LIST_SIZE });
  readonly #streams = new Map<number, H2Stream>();
  /** Streams waiting for a send window. */
  readonly blocked = new Set<H2Stream>();
  #in: Buffer = EMPTY;
  #prefaceSeen = false;
  #out: Buffer[] = [];
  #flushQueued = false;
  #lastStreamId = 0;
  /** A header block in pieces (HEADERS without END_HEADERS, then CONTINUATION). */
  #continuation: { id: number; endStream: boolean; fragments: Buffer[]; size: number } | undefined;
  /** Send side: the connection window, the peer's settings. */
  sendWindow = 65535;
  peerMaxFrameSize = 16384;
  #peerInitialWindow = 65535;
  /** Receive side: octets taken since the last connection WINDOW_UPDATE. */
  #recvConsumed = 0;
  #resets: number[] = [];
  #pendingAcks = 0;
  #goingAway = false;
  #dead = false;

  constructor(socket: Socket, head: Buffer, opts: H2ConnectionOptions) {
    super();
    this.socket = socket;
    this.#opts = opts;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#gone());
    socket.setTimeout(opts.idleTimeoutMs ?? 120_000, () => (this.#streams.size ? undefined : this.close()));
    this.#queue(SERVER_SETTINGS);
    this.#receive(head);
    socket.resume();
  }

  /** Open streams. */
  get streamCount(): number {
    return this.#streams.size;
  }

  /** Graceful end: GOAWAY now (no new streams); the socket ends when the open streams have. */
  close(): void {
    if (this.#dead) return;
    if (!this.#goingAway) {
      this.#goingAway = true;
      this.#queue(frame(GOAWAY, 0, 0, Buffer.concat([u32(this.#lastStreamId), u32(H2_ERROR.NO_ERROR)])));
    }
    if (this.#streams.size === 0) this.#end();
  }

  /** Ends at once: open streams are cancelled. */
  destroy(): void {
    this.#dead = true;
    this.socket.destroy();
  }

  // ---- output ------------------------------------------------------------------------------------

  #queue(buf: Buffer): void {
    if (this.#dead) return;
    this.#out.push(buf);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      // After this turn of I/O callbacks and their microtasks: the answers of every call they
      // finished go out in one write.
      setImmediate(this.#flush);
    }
  }

  readonly #flush = () => {
    this.#flushQueued = false;
    this.#pendingAcks = 0;
    if (this.#dead || this.#out.length === 0) return;
    const out = this.#out;
    this.#out = [];
    this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
  };

  /** @internal */
  sendHeaders(id: number, block: Buffer, endStream: boolean): void {
    const flags = endStream ? END_STREAM : 0;
    if (block.length <= this.peerMaxFrameSize) return this.#queue(frame(HEADERS, flags | END_HEADERS, id, block));
    this.#queue(frame(HEADERS, flags, id, block.subarray(0, this.peerMaxFrameSize)));
    for (let off = this.peerMaxFrameSize; off < block.length; off += this.peerMaxFrameSize) {
      const end = Math.min(block.length, off + this.peerMaxFrameSize);
      this.#queue(frame(CONTINUATION, end === block.length ? END_HEADERS : 0, id, block.subarray(off, end)));
    }
  }

  /** @internal Within the windows (the stream checked them). */
  sendData(id: number, data: Buffer, endStream: boolean): void {
    this.sendWindow -= data.length;
    if (data.length === 0) return this.#queue(frameHeader(0, DATA, endStream ? END_STREAM : 0, id));
    this.#queue(frameHeader(data.length, DATA, endStream ? END_STREAM : 0, id));
    this.#queue(data);
  }

  /** @internal */
  sendReset(id: number, code: number): void {
    this.#queue(frame(RST_STREAM, 0, id, u32(code)));
  }

  /** @internal A stream closed. */
  forget(stream: H2Stream): void {
    this.#streams.delete(stream.id);
    this.blocked.delete(stream);
    if (this.#goingAway && this.#streams.size === 0) this.#end();
  }

  #end(): void {
    if (this.#dead) return;
    this.#dead = true;
    const out = this.#out;
    this.#out = [];
    if (out.length) this.socket.end(Buffer.concat(out));
    else this.socket.end();
  }

  /** The connection ends with an error: GOAWAY with its code, open streams cancelled. */
  #fail(code: number): void {
    if (this.#dead) return;
    this.#queue(frame(GOAWAY, 0, 0, Buffer.concat([u32(this.#lastStreamId), u32(code)])));
    for (const s of [...this.#streams.values()]) s.destroy();
    this.#end();
  }

  #gone(): void {
    this.#dead = true;
    for (const s of [...this.#streams.values()]) s.destroy();
    this.emit('close');
  }

  // ---- input -------------------------------------------------------------------------------------

  #receive(chunk: Buffer): void {
    if (this.#dead) return;
    const buf = this.#in.length ? Buffer.concat([this.#in, chunk]) : chunk;
    let off = 0;
    if (!this.#prefaceSeen) {
      if (buf.length < H2_PREFACE.length) {
        this.#in = buf;
        return;
      }
      if (!buf.subarray(0, H2_PREFACE.length).equals(H2_PREFACE)) return this.destroy();
      this.#prefaceSeen = true;
      off = H2_PREFACE.length;
    }
    while (buf.length - off >= 9 && !this.#dead) {
      const length = (buf[off] << 16) | (buf[off + 1] << 8) | buf[off + 2];
      if (length > MAX_FRAME_SIZE) return this.#fail(H2_ERROR.FRAME_SIZE_ERROR);
      if (buf.length - off - 9 < length) break;
      const type = buf[off + 3];
      const flags = buf[off + 4];
      const id = buf.readUInt32BE(off + 5) & MAX_WINDOW;
      const payload = buf.subarray(off + 9, off + 9 + length);
      off += 9 + length;
      this.#frame(type, flags, id, payload);
    }
    this.#in = off >= buf.length ? EMPTY : buf.subarray(off);
  }

  #frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.#continuation && type !== CONTINUATION) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    switch (type) {
      case DATA:
        return this.#data(flags, id, payload);
      case HEADERS:
        return this.#headers(flags, id, payload);
      case CONTINUATION:
        return this.#continue(flags, id, payload);
      case RST_STREAM:
        return this.#reset(id, payload);
      case SETTINGS:
        return this.#settings(flags, id, payload);
      case PING:
        if (id !== 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
        if (payload.length !== 8) return this.#fail(H2_ERROR.FRAME_SIZE_ERROR);
        if (flags & ACK) return;
        if (++this.#pendingAcks > MAX_PENDING_ACKS) return this.#fail(H2_ERROR.ENHANCE_YOUR_CALM);
        return this.#queue(frame(PING, ACK, 0, payload));
      case GOAWAY:
        if (id !== 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
        // The peer ends the connection: nothing new comes; the open streams may finish.
        this.#goingAway = true;
        if (this.#streams.size === 0) this.#end();
        return;
      case WINDOW_UPDATE:
        return this.#windowUpdate(id, payload);
      case PRIORITY:
        if (id === 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
        if (payload.length !== 5) return this.sendReset(id, H2_ERROR.FRAME_SIZE_ERROR);
        return;
      case PUSH_PROMISE:
        return this.#fail(H2_ERROR.PROTOCOL_ERROR);
      default:
        return; // unknown frame types are ignored (RFC 9113 §4.1)
    }
  }

  #headers(flags: number, id: number, payload: Buffer): void {
    if (id === 0 || id % 2 === 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    const fragment = unpad(flags, payload, true);
    if (!fragment) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    const endStream = (flags & END_STREAM) !== 0;
    if (flags & END_HEADERS) return this.#headerBlock(id, fragment, endStream);
    this.#continuation = { id, endStream, fragments: [fragment], size: fragment.length };
  }

  #continue(flags: number, id: number, payload: Buffer): void {
    const c = this.#continuation;
    if (!c || c.id !== id) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    c.fragments.push(payload);
    c.size += payload.length;
    if (c.size > MAX_HEADER_BLOCK) return this.#fail(H2_ERROR.ENHANCE_YOUR_CALM);
    if (!(flags & END_HEADERS)) return;
    this.#continuation = undefined;
    this.#headerBlock(id, Buffer.concat(c.fragments), c.endStream);
  }

  #headerBlock(id: number, block: Buffer, endStream: boolean): void {
    let fields: string[];
    let tooLarge = false;
    try {
      fields = this.#decoder.decode(block);
    } catch (err) {
      if (!(err instanceof HpackError) || !err.tooLarge) return this.#fail(H2_ERROR.COMPRESSION_ERROR);
      // The block was decoded whole (the table is right): only this stream is refused.
      tooLarge = true;
      fields = [];
    }
    const existing = this.#streams.get(id);
    if (existing) {
      // Trailers: they must end the stream.
      if (!endStream) return existing.close(H2_ERROR.PROTOCOL_ERROR);
      return existing.remoteEnd();
    }
    if (id <= this.#lastStreamId) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    this.#lastStreamId = id;
    if (this.#goingAway) return; // after GOAWAY: not processed (the peer retries elsewhere)
    if (tooLarge) return this.sendReset(id, H2_ERROR.ENHANCE_YOUR_CALM);
    if (this.#streams.size >= MAX_CONCURRENT_STREAMS) return this.sendReset(id, H2_ERROR.REFUSED_STREAM);
    const headers = requestHeaders(fields);
    if (!headers) return this.sendReset(id, H2_ERROR.PROTOCOL_ERROR);
    const stream = new H2Stream(this, id, this.#peerInitialWindow);
    this.#streams.set(id, stream);
    if (endStream) stream.remoteEnd();
    this.#opts.onStream(stream, headers);
  }

  #data(flags: number, id: number, payload: Buffer): void {
    if (id === 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    // Flow control counts the whole payload, padding included, whatever becomes of the stream.
    this.#recvConsumed += payload.length;
    if (this.#recvConsumed > CONNECTION_WINDOW) return this.#fail(H2_ERROR.FLOW_CONTROL_ERROR);
    if (this.#recvConsumed >= CONNECTION_WINDOW / 2) {
      this.#queue(frame(WINDOW_UPDATE, 0, 0, u32(this.#recvConsumed)));
      this.#recvConsumed = 0;
    }
    const stream = this.#streams.get(id);
    if (!stream) {
      if (id > this.#lastStreamId) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
      return; // a stream this side closed already (answered early, or reset): dropped
    }
    if (stream.remoteEnded) return stream.close(H2_ERROR.STREAM_CLOSED);
    stream.recvConsumed += payload.length;
    if (stream.recvConsumed > stream.recvWindow) return stream.close(H2_ERROR.FLOW_CONTROL_ERROR);
    const data = unpad(flags, payload, false);
    if (!data) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    if (data.length) stream.push(data);
    if (flags & END_STREAM) return stream.remoteEnd();
    if (stream.recvConsumed >= STREAM_WINDOW / 2) {
      this.#queue(frame(WINDOW_UPDATE, 0, id, u32(stream.recvConsumed)));
      stream.recvConsumed = 0;
    }
  }

  #reset(id: number, payload: Buffer): void {
    if (id === 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    if (payload.length !== 4) return this.#fail(H2_ERROR.FRAME_SIZE_ERROR);
    if (id > this.#lastStreamId) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    const now = Date.now();
    this.#resets.push(now);
    while (this.#resets.length && this.#resets[0] < now - RESET_WINDOW_MS) this.#resets.shift();
    if (this.#resets.length > MAX_RESETS) return this.#fail(H2_ERROR.ENHANCE_YOUR_CALM);
    this.#streams.get(id)?.destroy();
  }

  #settings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
    if (flags & ACK) return payload.length ? this.#fail(H2_ERROR.FRAME_SIZE_ERROR) : undefined;
    if (payload.length % 6) return this.#fail(H2_ERROR.FRAME_SIZE_ERROR);
    for (let off = 0; off < payload.length; off += 6) {
      const key = payload.readUInt16BE(off);
      const value = payload.readUInt32BE(off + 2);
      if (key === 2 && value > 1) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
      if (key === 4) {
        if (value > MAX_WINDOW) return this.#fail(H2_ERROR.FLOW_CONTROL_ERROR);
        const delta = value - this.#peerInitialWindow;
        this.#peerInitialWindow = value;
        for (const s of this.#streams.values()) {
          s.sendWindow += delta;
          if (s.sendWindow > MAX_WINDOW) return this.#fail(H2_ERROR.FLOW_CONTROL_ERROR);
        }
      }
      if (key === 5) {
        if (value < 16384 || value > 16777215) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
        this.peerMaxFrameSize = value;
      }
      // 1 (HPACK table size: this side's encoder keeps no table), 3 (pushes), 6: nothing to do.
    }
    if (++this.#pendingAcks > MAX_PENDING_ACKS) return this.#fail(H2_ERROR.ENHANCE_YOUR_CALM);
    this.#queue(SETTINGS_ACK);
    this.#unblock();
  }

  #windowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) return this.#fail(H2_ERROR.FRAME_SIZE_ERROR);
    const increment = payload.readUInt32BE(0) & MAX_WINDOW;
    if (id === 0) {
      if (increment === 0) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) return this.#fail(H2_ERROR.FLOW_CONTROL_ERROR);
      return this.#unblock();
    }
    const stream = this.#streams.get(id);
    if (!stream) {
      if (id > this.#lastStreamId) return this.#fail(H2_ERROR.PROTOCOL_ERROR);
      return;
    }
    if (increment === 0) return stream.close(H2_ERROR.PROTOCOL_ERROR);
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) return stream.close(H2_ERROR.FLOW_CONTROL_ERROR);
    this.#unblock();
  }

  /** Streams that waited for a window send what they now may. */
  #unblock(): void {
    if (this.blocked.size === 0) return;
    const waiting = [...this.blocked];
    this.blocked.clear();
    for (const s of waiting) s.pump();
  }
}

/**
 * Request header fields as a headers object, or undefined when they are malformed (RFC 9113
 * §8.2-8.3): an upper-case name, a pseudo-header after a regular one or unknown, a connection-
 * specific field, or :method / :scheme / :path missing.
 */
function requestHeaders(fields: string[]): H2Headers | undefined {
  const headers: H2Headers = {};
  let regular = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1];
    if (name.length === 0 || /[A-Z]/.test(name)) return undefined;
    if (name.charCodeAt(0) === 0x3a) {
      if (regular || (name !== ':method' && name !== ':path' && name !== ':scheme' && name !== ':authority') || headers[name] !== undefined) return undefined;
    } else {
      regular = true;
      if (name === 'connection' || name === 'keep-alive' || name === 'proxy-connection' || name === 'transfer-encoding' || name === 'upgrade' || (name === 'te' && value !== 'trailers')) return undefined;
    }
    const prev = headers[name];
    headers[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  if (headers[':method'] === undefined || headers[':path'] === undefined || headers[':scheme'] === undefined) return undefined;
  return headers;
}

/**
 * Whether the first request on an HTTP/2 connection is a gRPC call, from the connection's first
 * bytes (the preface on): `yes`, `no`, or `more` (its first header block is not whole yet). The
 * block is decoded with a table of its own: the connection's decoder starts afresh.
 */
export function firstRequestIsGrpc(buf: Buffer): 'yes' | 'no' | 'more' {
  let off = H2_PREFACE.length;
  let block: Buffer[] | undefined;
  while (buf.length - off >= 9) {
    const length = (buf[off] << 16) | (buf[off + 1] << 8) | buf[off + 2];
    if (length > MAX_FRAME_SIZE) return 'no';
    if (buf.length - off - 9 < length) return 'more';
    const type = buf[off + 3];
    const flags = buf[off + 4];
    const payload = buf.subarray(off + 9, off + 9 + length);
    off += 9 + length;
    if (type === HEADERS) {
      const fragment = unpad(flags, payload, true);
      if (!fragment) return 'no';
      block = [fragment];
    } else if (type === CONTINUATION && block) block.push(payload);
    else if (block) return 'no';
    if (block && flags & END_HEADERS) {
      try {
        const fields = new HpackDecoder({ maxHeaderListSize: MAX_HEADER_LIST_SIZE }).decode(Buffer.concat(block));
        for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'content-type') return isGrpcContentType(fields[i + 1]) ? 'yes' : 'no';
      } catch {
        // malformed: node:http2 answers it
      }
      return 'no';
    }
  }
  return 'more';
}

/**
 * An empty SETTINGS frame ("the defaults"): what the port sends a client that waits for the
 * server's SETTINGS before its first request (gRPC C-core does) while it has not yet chosen the
 * engine; it binds neither engine to anything. The client's ACK of it is taken out of the bytes
 * handed to node:http2 (`withoutFirstSettingsAck`), which would take an ACK it never asked for
 * as a protocol error; this engine ignores ACKs.
 */
export const EMPTY_SETTINGS = frame(SETTINGS, 0, 0);

/** The connection's bytes (preface on) without the first SETTINGS ACK the client sent, or undefined before it came. */
export function withoutFirstSettingsAck(buf: Buffer): Buffer | undefined {
  let off = H2_PREFACE.length;
  while (buf.length - off >= 9) {
    const length = (buf[off] << 16) | (buf[off + 1] << 8) | buf[off + 2];
    if (buf[off + 3] === SETTINGS && buf[off + 4] & ACK && length === 0) return Buffer.concat([buf.subarray(0, off), buf.subarray(off + 9)]);
    off += 9 + length;
  }
  return undefined;
}

/** `application/grpc`, `application/grpc+proto`, `application/grpc;...`. */
export function isGrpcContentType(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('application/grpc') && (value.length === 16 || value[16] === '+' || value[16] === ';');
}
