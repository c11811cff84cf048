import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http2 from 'node:http2';
import net from 'node:net';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { HpackDecoder, type HpackDecoderOptions, HpackError, encodeHeaderBlock, huffmanDecode } from '../../src/platform/transport/h2/hpack.ts';
import { HUFFMAN_CODES } from '../../src/platform/transport/h2/huffmanTable.ts';
import { h2frame } from '../support/h2frame.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** [name, value] pairs from a decoded flat list. */
function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/**
 * The dynamic table's entries, newest first, read through the decoder itself: one block of
 * indexed fields 62.. for the entries expected, then index 62 + n must be past the table (an
 * index past the table throws before anything changes, so the decoder goes on).
 */
function tableOf(decoder: HpackDecoder, expected: number): [string, string][] {
  const indexes = Array.from({ length: expected }, (_, i) => integer(0x80, 0x7f, 62 + i));
  const entries = pairs(decoder.decode(Buffer.from(indexes.flat())));
  assert.throws(() => decoder.decode(Buffer.from(integer(0x80, 0x7f, 62 + expected))), /past the tables/);
  return entries;
}

const tableSize = (entries: [string, string][]) => entries.reduce((n, [name, value]) => n + name.length + value.length + 32, 0);

/** An HPACK integer (RFC 7541 §5.1), written here independently of the encoder under test. */
function integer(high: number, mask: number, value: number): number[] {
  if (value < mask) return [high | value];
  const out = [high | mask];
  for (value -= mask; value >= 128; value = Math.floor(value / 128)) out.push(0x80 | (value % 128));
  out.push(value);
  return out;
}

/** Huffman-codes a latin1 string with the Appendix B table (padding: ones). */
function huffmanEncode(s: string): number[] {
  const out: number[] = [];
  let octet = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const [code, length] = HUFFMAN_CODES[s.charCodeAt(i)];
    for (let b = length - 1; b >= 0; b--) {
      octet = (octet << 1) | ((code >>> b) & 1);
      if (++bits === 8) out.push(octet), (octet = 0), (bits = 0);
    }
  }
  if (bits > 0) out.push((octet << (8 - bits)) | (0xff >> bits));
  return out;
}

function stringLiteral(s: string, huffman: boolean): number[] {
  const octets = huffman ? huffmanEncode(s) : [...Buffer.from(s, 'latin1')];
  return [...integer(huffman ? 0x80 : 0, 0x7f, octets.length), ...octets];
}

/** Some of the static table (RFC 7541 Appendix A): whole fields and names, by index. */
const STATIC_FIELDS = new Map([[':method: GET', 2], [':method: POST', 3], [':status: 200', 8], [':status: 404', 13]]);
const STATIC_NAMES = new Map([[':authority', 1], [':method', 2], [':path', 4], [':scheme', 6], [':status', 8], ['authorization', 23], ['content-type', 31], ['user-agent', 58]]);

/**
 * A test-side HPACK encoder with its own model of the dynamic table. Each field's `kind` picks
 * its representation (0: indexed when the tables have it, else as 1; 1: with incremental
 * indexing; 2: without indexing; 3: never indexed) and `huffman` how its strings are coded; a
 * size update may open the block.
 */
class ModelEncoder {
  /** Newest first. */
  table: [string, string][] = [];
  maxSize = 4096;

  #evict() {
    while (tableSize(this.table) > this.maxSize) this.table.pop();
  }

  /** The index of the field (`value` given) or of its name; 0 when the tables do not have it. */
  #find(name: string, value?: string): number {
    const full = value !== undefined ? STATIC_FIELDS.get(`${name}: ${value}`) : undefined;
    if (full) return full;
    const i = this.table.findIndex(([n, v]) => n === name && (value === undefined || v === value));
    if (i >= 0) return 62 + i;
    return value === undefined ? (STATIC_NAMES.get(name) ?? 0) : 0;
  }

  encode(fields: [string, string, kind: number, huffman: boolean][], sizeUpdate?: number): Buffer {
    const out: number[] = [];
    if (sizeUpdate !== undefined) {
      this.maxSize = sizeUpdate;
      this.#evict();
      out.push(...integer(0x20, 0x1f, sizeUpdate));
    }
    for (const [name, value, kind, huffman] of fields) {
      const full = this.#find(name, value);
      if (kind === 0 && full > 0) {
        out.push(...integer(0x80, 0x7f, full));
        continue;
      }
      const nameIndex = this.#find(name);
      const [high, mask] = kind <= 1 ? [0x40, 0x3f] : kind === 2 ? [0, 0x0f] : [0x10, 0x0f];
      out.push(...(nameIndex > 0 ? integer(high, mask, nameIndex) : [high, ...stringLiteral(name, huffman)]));
      out.push(...stringLiteral(value, huffman));
      if (high === 0x40) {
        this.table.unshift([name, value]);
        this.#evict();
      }
    }
    return Buffer.from(out);
  }
}

describe('HPACK decoder: RFC 7541 Appendix A and C', () => {
  test('A: the static table, indexes 1-61', () => {
    const appendixA = `:authority|:method GET|:method POST|:path /|:path /index.html|:scheme http|:scheme https|:status 200|:status 204|:status 206|:status 304|:status 400|:status 404|:status 500|accept-charset|accept-encoding gzip, deflate|accept-language|accept-ranges|accept|access-control-allow-origin|age|allow|authorization|cache-control|content-disposition|content-encoding|content-language|content-length|content-location|content-range|content-type|cookie|date|etag|expect|expires|from|host|if-match|if-modified-since|if-none-match|if-range|if-unmodified-since|last-modified|link|location|max-forwards|proxy-authenticate|proxy-authorization|range|referer|refresh|retry-after|server|set-cookie|strict-transport-security|transfer-encoding|user-agent|vary|via|www-authenticate`;
    const expected = appendixA.split('|').map((field) => (field.includes(' ') ? [field.slice(0, field.indexOf(' ')), field.slice(field.indexOf(' ') + 1)] : [field, '']));
    assert.equal(expected.length, 61);
    const indexes = Array.from({ length: 61 }, (_, i) => 0x80 | (i + 1));
    assert.deepEqual(pairs(new HpackDecoder().decode(Buffer.from(indexes))), expected);
    // As names of literal fields too (4-bit prefix: from 15 on, two octets).
    const literals = expected.flatMap((_, i) => [...integer(0, 0x0f, i + 1), 1, 0x76]);
    assert.deepEqual(pairs(new HpackDecoder().decode(Buffer.from(literals))), expected.map(([name]) => [name, 'v']));
  });

  test('C.2.1-C.2.4: one field of each representation', () => {
    const d = new HpackDecoder();
    assert.deepEqual(d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')), ['custom-key', 'custom-header']);
    assert.deepEqual(tableOf(d, 1), [['custom-key', 'custom-header']]);
    assert.equal(tableSize(tableOf(d, 1)), 55);

    const without = new HpackDecoder();
    assert.deepEqual(without.decode(hex('040c 2f73 616d 706c 652f 7061 7468')), [':path', '/sample/path']);
    assert.deepEqual(tableOf(without, 0), []);
    const never = new HpackDecoder();
    assert.deepEqual(never.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74')), ['password', 'secret']);
    assert.deepEqual(tableOf(never, 0), []);
    const indexed = new HpackDecoder();
    assert.deepEqual(indexed.decode(hex('82')), [':method', 'GET']);
    assert.deepEqual(tableOf(indexed, 0), []);
  });

  const requests = [
    [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']],
    [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']],
    [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']],
  ];
  const requestTables = [
    [[':authority', 'www.example.com']],
    [['cache-control', 'no-cache'], [':authority', 'www.example.com']],
    [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']],
  ];
  const requestSizes = [57, 110, 164];

  const sequences: [string, string[], HpackDecoderOptions][] = [
    ['C.3: requests without Huffman', ['8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d', '8286 84be 5808 6e6f 2d63 6163 6865', '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'], {}],
    ['C.4: requests with Huffman', ['8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff', '8286 84be 5886 a8eb 1064 9cbf', '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'], {}],
  ];
  for (const [name, blocks] of sequences) {
    test(`${name}, one decoder, the table growing`, () => {
      const d = new HpackDecoder();
      blocks.forEach((block, i) => {
        assert.deepEqual(pairs(d.decode(hex(block))), requests[i], `request ${i + 1}`);
        const table = tableOf(d, requestTables[i].length);
        assert.deepEqual(table, requestTables[i]);
        assert.equal(tableSize(table), requestSizes[i]);
      });
    });
  }

  const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
  const date2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
  const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
  const responses = [
    [[':status', '302'], ['cache-control', 'private'], ['date', date1], ['location', 'https://www.example.com']],
    [[':status', '307'], ['cache-control', 'private'], ['date', date1], ['location', 'https://www.example.com']],
    [[':status', '200'], ['cache-control', 'private'], ['date', date2], ['location', 'https://www.example.com'], ['content-encoding', 'gzip'], ['set-cookie', cookie]],
  ];
  const responseTables = [
    [['location', 'https://www.example.com'], ['date', date1], ['cache-control', 'private'], [':status', '302']],
    [[':status', '307'], ['location', 'https://www.example.com'], ['date', date1], ['cache-control', 'private']],
    [['set-cookie', cookie], ['content-encoding', 'gzip'], ['date', date2]],
  ];
  const responseSizes = [222, 222, 215];
  const responseSequences: [string, string[]][] = [
    [
      'C.5: responses without Huffman',
      [
        '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
        '4803 3330 37c1 c0bf',
        '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
      ],
    ],
    [
      'C.6: responses with Huffman',
      [
        '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
        '4883 640e ffc1 c0bf',
        '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
      ],
    ],
  ];
  for (const [name, blocks] of responseSequences) {
    test(`${name}, a 256-octet table evicting`, () => {
      const d = new HpackDecoder({ maxTableSize: 256 });
      // The peer's table starts at 4096 (RFC 9113 §6.5.2); the example's encoder was told 256.
      d.decode(hex('3fe1 01'));
      blocks.forEach((block, i) => {
        assert.deepEqual(pairs(d.decode(hex(block))), responses[i], `response ${i + 1}`);
        const table = tableOf(d, responseTables[i].length);
        assert.deepEqual(table, responseTables[i]);
        assert.equal(tableSize(table), responseSizes[i]);
      });
    });
  }
});

/** Reads HTTP/2 frames off a byte stream, after the 24-octet client preface when `preface`. */
function frameReader(preface: boolean, onFrame: (type: number, flags: number, stream: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let skip = preface ? 24 : 0;
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (skip > 0) {
      if (buf.length < skip) return;
      buf = buf.subarray(skip);
      skip = 0;
    }
    while (buf.length >= 9) {
      const length = buf.readUIntBE(0, 3);
      if (buf.length < 9 + length) break;
      onFrame(buf[3], buf[4], buf.readUInt32BE(5) & 0x7fffffff, buf.subarray(9, 9 + length));
      buf = buf.subarray(9 + length);
    }
  };
}

const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
const HEADERS = 1;
const SETTINGS = 4;
const CONTINUATION = 9;

const frame = h2frame;

/** Collects header blocks (HEADERS + CONTINUATION fragments, padding and priority removed). */
function headerBlocks(onBlock: (stream: number, block: Buffer, frames: number) => void) {
  let fragments: Buffer[] = [];
  return (type: number, flags: number, stream: number, payload: Buffer) => {
    if (type === HEADERS) {
      let start = 0;
      let end = payload.length;
      if (flags & PADDED) (start = 1), (end -= payload[0]);
      if (flags & PRIORITY) start += 5;
      fragments = [payload.subarray(start, end)];
    } else if (type === CONTINUATION) {
      fragments.push(payload);
    } else {
      return;
    }
    if (flags & END_HEADERS) onBlock(stream, Buffer.concat(fragments), fragments.length);
  };
}

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const sorted = (list: [string, string][]) => [...list].sort((a, b) => (a[0] + '\0' + a[1] < b[0] + '\0' + b[1] ? -1 : 1));

describe('HPACK decoder: blocks from node:http2 (nghttp2) clients', () => {
  test("gRPC-like requests: Huffman, the dynamic table, never-indexed fields, padding and CONTINUATION as nghttp2 sends them", async () => {
    const blocks: { stream: number; block: Buffer; frames: number }[] = [];
    const token = 'Bearer ya29.' + randomBytes(45).toString('base64url');
    const sent: Record<string, string>[] = [0, 1, 2].map((i) => ({
      ':method': 'POST',
      ':path': `/google.api.apikeys.v2.ApiKeys/${i === 2 ? 'ListKeys' : 'GetKey'}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: token,
      'grpc-timeout': `${29_999 - i}m`,
      'x-goog-request-params': `name=projects%2Fp-${i}%2Flocations%2Fglobal%2Fkeys%2Fk`,
      'user-agent': 'grpc-node-js/1.13.4',
    }));
    // Random base64 does not Huffman-compress below 16384 octets: HEADERS + CONTINUATION.
    sent.push({ ':method': 'POST', ':path': '/big', 'content-type': 'application/grpc', 'x-big': randomBytes(18_000).toString('base64') });
    const expected = sent.length;

    const done = Promise.withResolvers<void>();
    const server = net.createServer((socket) => {
      socket.write(frame(SETTINGS, 0, 0));
      const onFrame = headerBlocks((stream, block, frames) => {
        blocks.push({ stream, block, frames });
        if (blocks.length === expected) done.resolve();
      });
      socket.on('data', frameReader(true, onFrame));
      socket.on('error', () => {});
    });
    const port = await listening(server);
    const client = http2.connect(`http://127.0.0.1:${port}`, { paddingStrategy: http2.constants.PADDING_STRATEGY_MAX });
    client.on('error', () => {});
    try {
      sent.forEach((headers, i) => {
        const extra = i === 1 ? { [http2.sensitiveHeaders]: ['authorization', 'x-goog-request-params'] } : {};
        client.request({ ...headers, ...extra }, { endStream: true }).on('error', () => {});
      });
      await done.promise;
    } finally {
      client.destroy();
      server.close();
    }

    const d = new HpackDecoder();
    blocks.forEach(({ stream, block }, i) => {
      assert.equal(stream, 2 * i + 1);
      const decoded = pairs(d.decode(block));
      const want: [string, string][] = [...Object.entries(sent[i]), [':scheme', 'http'], [':authority', `127.0.0.1:${port}`]];
      assert.deepEqual(sorted(decoded), sorted(want), `request ${i + 1}`);
    });
    // The later blocks refer to the table the first one filled (or the test would miss it).
    assert.throws(() => new HpackDecoder().decode(blocks[2].block), /past the tables/);
    assert.ok(blocks[3].frames > 1, 'the large block came in HEADERS + CONTINUATION');
  });
});

describe('encodeHeaderBlock', () => {
  test('the octets: indexed :status, indexed names, literal names, multi-octet lengths', () => {
    assert.deepEqual([...encodeHeaderBlock({ ':status': 200 })], [0x88]);
    assert.deepEqual([...encodeHeaderBlock({ ':status': '500' })], [0x8e]);
    assert.deepEqual([...encodeHeaderBlock({ ':status': 201 })], [0x08, 3, ...Buffer.from('201')]);
    // content-type is static index 31: 4-bit prefix 15, then 16.
    assert.deepEqual([...encodeHeaderBlock({ 'content-type': 'a' })], [0x0f, 0x10, 1, 0x61]);
    assert.deepEqual([...encodeHeaderBlock({ 'grpc-status': 0 })], [0x00, 11, ...Buffer.from('grpc-status'), 1, 0x30]);
    assert.deepEqual([...encodeHeaderBlock({ 'x-v': 'v'.repeat(300) }).subarray(0, 8)], [0x00, 3, ...Buffer.from('x-v'), 0x7f, 0xad, 0x01]);
    // Values at a prefix's limit take a second octet (0): accept-charset is index 15, 127 octets.
    assert.deepEqual([...encodeHeaderBlock({ 'accept-charset': 'c'.repeat(127) }).subarray(0, 4)], [0x0f, 0x00, 0x7f, 0x00]);
    assert.equal(encodeHeaderBlock({ 'accept-charset': 'c'.repeat(127) }).length, 4 + 127);
    assert.deepEqual([...encodeHeaderBlock({ 'x-m': ['a', 'b'] })], [0, 3, ...Buffer.from('x-m'), 1, 0x61, 0, 3, ...Buffer.from('x-m'), 1, 0x62]);
    assert.equal(encodeHeaderBlock({}).length, 0);
  });

  test('round-trips through HpackDecoder and leaves its table empty', () => {
    const headers = { ':status': 404, 'content-type': 'application/grpc', 'grpc-status': 5, 'grpc-message': 'key%20not%20found%3A%20%C3%A9', 'x-long': 'x'.repeat(300), 'x-multi': ['1', '', '3'], 'x-latin1': 'caf\u00e9\u00ff' };
    const d = new HpackDecoder();
    assert.deepEqual(pairs(d.decode(encodeHeaderBlock(headers))), [
      [':status', '404'],
      ['content-type', 'application/grpc'],
      ['grpc-status', '5'],
      ['grpc-message', 'key%20not%20found%3A%20%C3%A9'],
      ['x-long', 'x'.repeat(300)],
      ['x-multi', '1'],
      ['x-multi', ''],
      ['x-multi', '3'],
      ['x-latin1', 'caf\u00e9\u00ff'],
    ]);
    assert.deepEqual(tableOf(d, 0), []);
  });

  test("node:http2's client decodes the blocks exactly (several responses on one connection)", async () => {
    const answers: Record<string, string | number | readonly string[]>[] = [
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-accept-encoding': 'identity,deflate,gzip', 'x-long': 'L'.repeat(300) },
      { ':status': 418, 'content-type': 'application/grpc', 'grpc-status': 3, 'grpc-message': 'r%C3%A9sum%C3%A9: 100%25 done', 'x-multi': ['a', 'b'] },
      { ':status': '404', date: 'Mon, 21 Oct 2013 20:13:21 GMT' },
    ];
    let answered = 0;
    const server = net.createServer((socket) => {
      socket.write(frame(SETTINGS, 0, 0));
      socket.on('error', () => {});
      socket.on(
        'data',
        frameReader(true, (type, flags, stream) => {
          if (type === SETTINGS && !(flags & 1)) socket.write(frame(SETTINGS, 1, 0));
          if (type === HEADERS) socket.write(frame(HEADERS, END_HEADERS | END_STREAM, stream, encodeHeaderBlock(answers[answered++])));
        }),
      );
    });
    const port = await listening(server);
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', () => {});
    try {
      for (const answer of answers) {
        const raw = await new Promise<string[]>((resolve, reject) => {
          const req = client.request({ ':path': '/' }, { endStream: true });
          req.on('response', (_headers, _flags, rawHeaders: string[]) => resolve(rawHeaders));
          req.on('error', reject);
          req.resume();
        });
        const want = Object.entries(answer).flatMap(([name, value]) => (typeof value === 'object' ? value.flatMap((v) => [name, v]) : [name, String(value)]));
        assert.deepEqual(raw, want);
      }
    } finally {
      client.destroy();
      server.close();
    }
  });
});

describe('HPACK decoder: the dynamic table', () => {
  test('starts at 4096 octets whatever was announced, until the peer sends a size update', () => {
    const entry = (i: number) => [0x40, ...stringLiteral(`n${i}`, false), ...stringLiteral('x'.repeat(966), false)]; // 1000 octets
    // Announced 256: blocks sent before the peer saw it may still fill 4096.
    const small = new HpackDecoder({ maxTableSize: 256 });
    small.decode(Buffer.from([...entry(0), ...entry(1), ...entry(2), ...entry(3)]));
    assert.equal(tableOf(small, 4).length, 4);
    // Announced 65536: an encoder that keeps to 4096 evicts there, and so must the decoder.
    const large = new HpackDecoder({ maxTableSize: 65536 });
    large.decode(Buffer.from([0, 1, 2, 3, 4].flatMap(entry)));
    assert.deepEqual(tableOf(large, 4).map(([name]) => name), ['n4', 'n3', 'n2', 'n1']);
  });

  test('grows past its first capacity and finds every entry by index', () => {
    const d = new HpackDecoder({ maxTableSize: 65536 });
    const block = [...integer(0x20, 0x1f, 65536)];
    for (let i = 0; i < 300; i++) block.push(0x40, ...stringLiteral(`n${i}`, false), ...stringLiteral(`v${i}`, i % 2 === 0));
    d.decode(Buffer.from(block));
    const table = tableOf(d, 300);
    assert.deepEqual(table[0], ['n299', 'v299']);
    assert.deepEqual(table[299], ['n0', 'v0']);
  });

  test('evicts oldest first; an entry larger than the table empties it; a size update evicts', () => {
    const d = new HpackDecoder({ maxTableSize: 100 });
    d.decode(Buffer.from([...integer(0x20, 0x1f, 100), 0x40, ...stringLiteral('a', false), ...stringLiteral('1'.repeat(10), false)])); // 43
    d.decode(Buffer.from([0x40, ...stringLiteral('b', false), ...stringLiteral('2'.repeat(10), false)])); // 86
    d.decode(Buffer.from([0x40, ...stringLiteral('c', false), ...stringLiteral('3', false)])); // 34: a goes
    assert.deepEqual(tableOf(d, 2), [['c', '3'], ['b', '2'.repeat(10)]]);
    // Its name is the entry it evicts (RFC 7541 §4.4): taken before the eviction.
    d.decode(Buffer.from([...integer(0x40, 0x3f, 63), ...stringLiteral('4'.repeat(30), false)])); // name from index 63 (b), 63: b goes
    assert.deepEqual(tableOf(d, 2), [['b', '4'.repeat(30)], ['c', '3']]);
    d.decode(Buffer.from([0x40, ...stringLiteral('big', false), ...stringLiteral('x'.repeat(70), false)]));
    assert.deepEqual(tableOf(d, 0), []);
    d.decode(Buffer.from([0x40, ...stringLiteral('d', false), ...stringLiteral('', false), 0x40, ...stringLiteral('e', false), ...stringLiteral('', false)]));
    d.decode(Buffer.from([...integer(0x20, 0x1f, 40), 0x82]));
    assert.deepEqual(tableOf(d, 1), [['e', '']]);
    d.decode(Buffer.from([0x20]));
    assert.deepEqual(tableOf(d, 0), []);
  });

  test('random header lists in every representation decode as encoded (fast-check, model encoder)', () => {
    const name = fc.oneof(fc.constantFrom(...STATIC_NAMES.keys(), 'te'), fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/), fc.string({ unit: 'binary', maxLength: 6 }).map((s) => Buffer.from(s, 'utf8').toString('latin1')));
    const value = fc.oneof(fc.constantFrom('GET', 'POST', '200', '404', 'application/grpc', ''), fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 50 }).map((b) => Buffer.from(b).toString('latin1')));
    const field = fc.tuple(name, value, fc.integer({ min: 0, max: 3 }), fc.boolean());
    const block = fc.record({ fields: fc.array(field, { maxLength: 12 }), sizeUpdate: fc.option(fc.integer({ min: 0, max: 512 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 8 }), (blocks) => {
        const encoder = new ModelEncoder();
        const d = new HpackDecoder({ maxTableSize: 512 });
        // Both start at 4096; the peer takes the 512 announced (from then on, at most that).
        d.decode(encoder.encode([], 512));
        for (const { fields, sizeUpdate } of blocks) {
          const decoded = pairs(d.decode(encoder.encode(fields, sizeUpdate)));
          assert.deepEqual(decoded, fields.map(([n, v]) => [n, v]));
        }
        assert.deepEqual(tableOf(d, encoder.table.length), encoder.table);
      }),
      { numRuns: 400 },
    );
  });
});

describe('Huffman decoding', () => {
  test('the code table is a complete prefix code of 257 symbols, EOS 30 ones', () => {
    assert.equal(HUFFMAN_CODES.length, 257);
    assert.deepEqual(HUFFMAN_CODES[256], [0x3fffffff, 30]);
    // Kraft: a complete prefix code sums to exactly 1 (in units of 2^-30).
    assert.equal(HUFFMAN_CODES.reduce((sum, [, bits]) => sum + 2 ** (30 - bits), 0), 2 ** 30);
    const codes = new Set(HUFFMAN_CODES.map(([code, bits]) => code.toString(2).padStart(bits, '0')));
    assert.equal(codes.size, 257);
    for (const code of codes) for (let n = 1; n < code.length; n++) assert.ok(!codes.has(code.slice(0, n)), `${code} has a prefix in the table`);
  });

  test('every octet string decodes to itself (fast-check), each symbol alone too', () => {
    for (let c = 0; c < 256; c++) assert.equal(huffmanDecode(Uint8Array.from(huffmanEncode(String.fromCharCode(c)))), String.fromCharCode(c));
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (octets) => {
        const s = Buffer.from(octets).toString('latin1');
        assert.equal(huffmanDecode(Uint8Array.from(huffmanEncode(s))), s);
      }),
      { numRuns: 2000 },
    );
    assert.equal(huffmanDecode(new Uint8Array(0)), '');
    assert.equal(huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff')), 'www.example.com');
  });

  test('EOS inside, padding over 7 bits, padding not all ones: errors', () => {
    // 'a' is 00011: padded with ones it is 0x1f.
    assert.equal(huffmanDecode(Uint8Array.from([0x1f])), 'a');
    assert.throws(() => huffmanDecode(Uint8Array.from([0x18])), HpackError, 'padding of zeros');
    assert.throws(() => huffmanDecode(Uint8Array.from([0x1e])), HpackError, 'padding 110');
    assert.throws(() => huffmanDecode(Uint8Array.from([0x1f, 0xff])), /padding/, '11 bits of padding');
    assert.throws(() => huffmanDecode(Uint8Array.from([0xff])), /padding/, 'a whole octet of padding');
    assert.throws(() => huffmanDecode(Uint8Array.from([0xff, 0xff, 0xff, 0xff])), /EOS/, 'EOS and 2 bits');
    // 'a' then EOS then 'a' (5 + 30 + 5 bits, 0 padded to 48 with ones).
    const bits = '00011' + '1'.repeat(30) + '00011' + '11111111';
    const octets = Uint8Array.from(bits.slice(0, 48).match(/.{8}/g)!.map((b) => parseInt(b, 2)));
    assert.throws(() => huffmanDecode(octets), /EOS/);
  });
});

describe('HPACK decoder: malformed and hostile blocks', () => {
  const decodeThrows = (octets: number[], message: RegExp, opts?: HpackDecoderOptions) =>
    assert.throws(
      () => new HpackDecoder(opts).decode(Buffer.from(octets)),
      (err: unknown) => err instanceof HpackError && !err.tooLarge && message.test(err.message),
      `${Buffer.from(octets).toString('hex')} should throw ${message}`,
    );

  test('integers: above 2^31-1, too many octets, truncated', () => {
    const big = { maxTableSize: 0x7fffffff };
    new HpackDecoder(big).decode(Buffer.from(integer(0x20, 0x1f, 0x7fffffff)));
    decodeThrows(integer(0x20, 0x1f, 0x80000000), /2\^31/, big);
    decodeThrows(integer(0x80, 0x7f, 2 ** 40), /2\^31/);
    decodeThrows([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f], /2\^31/);
    // Zeros padding an integer: five continuation octets hold 31 bits, a sixth is refused.
    decodeThrows([0xff, 0x80, 0x80, 0x80, 0x80, 0x00], /past the tables/);
    decodeThrows([0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], /too many octets/);
    decodeThrows([0xff], /truncated integer/);
    decodeThrows([0xff, 0x80], /truncated integer/);
    decodeThrows([0x00, 0x7f], /truncated integer/);
  });

  test('indexes: 0, past the static table, past the dynamic table, as a name too', () => {
    decodeThrows([0x80], /index 0/);
    decodeThrows([0xbe], /past the tables/);
    decodeThrows([0x7f, 0x00, 0x00], /past the tables/);
    decodeThrows([0x0f, 0x30, 0x00], /past the tables/);
    decodeThrows([0x1f, 0x30, 0x00], /past the tables/);
    const d = new HpackDecoder();
    d.decode(Buffer.from([0x40, ...stringLiteral('k', false), ...stringLiteral('v', false)]));
    assert.deepEqual(d.decode(Buffer.from([0xbe, 0x7e, 0x00])), ['k', 'v', 'k', '']);
    assert.deepEqual(d.decode(Buffer.from([0xbe, 0xbf])), ['k', '', 'k', 'v']);
    assert.throws(() => d.decode(Buffer.from([0xc0])), /past the tables/);
  });

  test('strings: length or octets missing, Huffman errors inside a block', () => {
    decodeThrows([0x00], /string literal expected/);
    decodeThrows([0x00, 0x01, 0x61], /string literal expected/);
    decodeThrows([0x00, 0x05, 0x61, 0x62], /truncated string/);
    decodeThrows([0x00, 0x01, 0x61, 0x03, 0x61], /truncated string/);
    decodeThrows([0x40, 0x01, 0x61, 0x81], /truncated string/);
    decodeThrows([0x00, 0x81, 0x18, 0x00], /padding/);
    decodeThrows([0x00, 0x01, 0x61, 0x84, 0xff, 0xff, 0xff, 0xff], /EOS/);
    decodeThrows([0x04, 0x81, 0xff], /padding/);
  });

  test('dynamic table size updates: above the announced size, after a field', () => {
    decodeThrows(integer(0x20, 0x1f, 4097), /above the 4096/);
    decodeThrows(integer(0x20, 0x1f, 101), /above the 100/, { maxTableSize: 100 });
    decodeThrows([0x82, 0x20], /after a header field/);
    decodeThrows([0x20, 0x82, 0x3f, 0xe1, 0x1f], /after a header field/);
    assert.deepEqual(new HpackDecoder().decode(Buffer.from([0x20, ...integer(0x20, 0x1f, 4096), 0x82])), [':method', 'GET']);
  });

  test('a header list over maxHeaderListSize: tooLarge, after the whole block (the table stays in step)', () => {
    const d = new HpackDecoder({ maxHeaderListSize: 100 });
    const field = (n: string, v: string) => [0x40, ...stringLiteral(n, false), ...stringLiteral(v, true)];
    // 32 + 2 + 30 = 64 twice: 128 > 100.
    const block = Buffer.from([...field('n1', 'x'.repeat(30)), ...field('n2', 'y'.repeat(30))]);
    assert.throws(() => d.decode(block), (err: unknown) => err instanceof HpackError && err.tooLarge && /128/.test(err.message));
    assert.deepEqual(d.decode(Buffer.from([0xbe])), ['n2', 'y'.repeat(30)]);
    assert.deepEqual(d.decode(Buffer.from([0xbf])), ['n1', 'x'.repeat(30)]);
    // Exactly the limit is accepted: 32 + 1 + 67 = 100.
    const oneField = (valueLength: number) => new HpackDecoder({ maxHeaderListSize: 100 }).decode(Buffer.from([0x00, 1, 0x61, ...stringLiteral('z'.repeat(valueLength), false)]));
    assert.equal(oneField(67).length, 2);
    assert.throws(() => oneField(68), (err: unknown) => err instanceof HpackError && err.tooLarge);
    // Many small indexed fields count 32 each too.
    assert.throws(() => new HpackDecoder().decode(Buffer.alloc(2100, 0x82)), (err: unknown) => err instanceof HpackError && err.tooLarge);
  });

  const mustBeHpackError = (run: () => void) => {
    try {
      run();
    } catch (err) {
      if (!(err instanceof HpackError)) throw err;
    }
  };

  test('random octets: a block decodes or throws HpackError, nothing else (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (octets) => mustBeHpackError(() => new HpackDecoder().decode(octets))),
      { numRuns: 5000 },
    );
  });

  test('random blocks of plausible pieces, one decoder for a sequence (fast-check)', () => {
    const piece = fc.oneof(
      fc.integer({ min: 0, max: 127 }).map((i) => integer(0x80, 0x7f, i)),
      fc.tuple(fc.integer({ min: 0, max: 70 }), fc.string({ maxLength: 20 }), fc.boolean()).map(([i, v, h]) => [...integer(0x40, 0x3f, i), ...(i === 0 ? stringLiteral('n', h) : []), ...stringLiteral(v, h)]),
      fc.integer({ min: 0, max: 5000 }).map((size) => integer(0x20, 0x1f, size)),
      fc.uint8Array({ maxLength: 12 }).map((b) => [...b]),
      fc.uint8Array({ maxLength: 12 }).map((b) => [0x00, 0x80 | b.length, ...b]),
    );
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 10 }), { maxLength: 6 }), fc.integer({ min: 0, max: 4096 }), (blocks, maxTableSize) => {
        const d = new HpackDecoder({ maxTableSize, maxHeaderListSize: 400 });
        mustBeHpackError(() => {
          for (const block of blocks) {
            try {
              d.decode(Buffer.from(block.flat()));
            } catch (err) {
              // Too large keeps the decoder usable; anything else ends the connection.
              if (!(err instanceof HpackError) || !err.tooLarge) throw err;
            }
          }
        });
      }),
      { numRuns: 3000 },
    );
  });

  test('a Uint8Array that is not a Buffer, at an offset in its ArrayBuffer', () => {
    const backing = new Uint8Array([0xee, 0xee, 0x82, 0x00, 0x01, 0x61, 0x81, 0x1f, 0xee]);
    assert.deepEqual(new HpackDecoder().decode(backing.subarray(2, 8)), [':method', 'GET', 'a', 'a']);
  });
});
