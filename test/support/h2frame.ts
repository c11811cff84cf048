/** One HTTP/2 frame, built by hand (RFC 9113 §4.1) for tests that speak the protocol raw. */
export function h2frame(type: number, flags: number, stream: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}
