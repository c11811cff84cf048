/**
 * HTTP/2 spoken raw, for tests of what the port puts on the wire: frames built by hand
 * (RFC 9113 §4.1), header blocks as HPACK literals (RFC 7541 §6.2.2: no index, no Huffman,
 * which every decoder takes), and a client that parses the frames the server sends.
 */
import { connect as netConnect, type Socket } from 'node:net';

/** The client connection preface (RFC 9113 §3.4). */
export const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** Frame types (RFC 9113 §6). */
export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
/** Flags: END_STREAM (DATA, HEADERS), ACK (SETTINGS, PING), END_HEADERS, PADDED. */
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8 } as const;

/** One HTTP/2 frame. */
export function h2frame(type: number, flags: number, stream: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** A SETTINGS frame with these (identifier, value) pairs. */
export function settingsFrame(...pairs: [number, number][]): Buffer {
  const payload = Buffer.alloc(6 * pairs.length);
  pairs.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return h2frame(FRAME.SETTINGS, 0, 0, payload);
}

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function hpackInteger(value: number, prefixBits: number, firstByte = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const out = [firstByte | max];
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) + 128);
  out.push(value);
  return Buffer.from(out);
}

/** A header block of literal fields, in order. */
export function headerBlock(fields: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from([0]), hpackInteger(Buffer.byteLength(name), 7), Buffer.from(name), hpackInteger(Buffer.byteLength(value), 7), Buffer.from(value));
  }
  return Buffer.concat(parts);
}

export interface ReceivedFrame {
  type: number;
  flags: number;
  id: number;
  payload: Buffer;
}

/** A raw connection: what it sends, and the frames the server sent, parsed. */
export class RawH2Client {
  readonly socket: Socket;
  readonly frames: ReceivedFrame[] = [];
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>;
  #buf = Buffer.alloc(0);

  constructor(port: number, socket?: Socket) {
    this.socket = socket ?? netConnect(port, '127.0.0.1');
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

  /** The error code of the server's GOAWAY, once the connection is closed (or after `ms`); undefined without one. */
  async goaway(ms = 3000): Promise<number | undefined> {
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, ms))]);
    const g = this.frames.find((f) => f.type === FRAME.GOAWAY);
    return g ? g.payload.readUInt32BE(4) : undefined;
  }

  /** The first frame that passes `test`, waiting for it up to `ms`. */
  async waitFor(test: (f: ReceivedFrame) => boolean, ms = 3000): Promise<ReceivedFrame> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const f = this.frames.find(test);
      if (f) return f;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no such frame in ${JSON.stringify(this.frames.map((f) => [f.type, f.flags, f.id]))}`);
  }

  /** The (identifier, value) pairs of a SETTINGS frame. */
  static settings(f: ReceivedFrame): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i + 6 <= f.payload.length; i += 6) out.set(f.payload.readUInt16BE(i), f.payload.readUInt32BE(i + 2));
    return out;
  }

  close(): void {
    this.socket.destroy();
  }
}
