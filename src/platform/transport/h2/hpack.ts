import { HUFFMAN_CODES } from './huffmanTable.ts';

/**
 * HPACK (RFC 7541), the header compression of HTTP/2: a decoder for the header blocks peers send
 * (static and dynamic tables, Huffman) and an encoder for the blocks this server sends, which
 * needs no dynamic table (every field literal, never added to the peer's table).
 */

/** A header block that cannot be decoded (the connection must end with COMPRESSION_ERROR), or one too large (`tooLarge`: the header list exceeds the limit). */
export class HpackError extends Error {
  readonly tooLarge: boolean;
  constructor(message: string, tooLarge = false) {
    super(message);
    this.tooLarge = tooLarge;
  }
}

/** The static table, RFC 7541 Appendix A: index 1 first. */
const STATIC_TABLE: readonly (readonly [name: string, value: string])[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];
const STATIC_LENGTH = STATIC_TABLE.length;
// By HPACK index (0 unused): an indexed static field returns these very strings, no allocation.
const STATIC_NAMES = ['', ...STATIC_TABLE.map(([name]) => name)];
const STATIC_VALUES = ['', ...STATIC_TABLE.map(([, value]) => value)];

/** The largest integer accepted in a header block (indexes, lengths, sizes): what HTTP/2 can need, and safe arithmetic. */
const MAX_INTEGER = 0x7fffffff;
/**
 * The dynamic table's size until the peer's encoder says otherwise: SETTINGS_HEADER_TABLE_SIZE's
 * initial value (RFC 9113 §6.5.2). Blocks sent before the peer saw this side's SETTINGS use it,
 * and an encoder that keeps its table at 4096 sends no size update, whatever was announced.
 */
const INITIAL_TABLE_SIZE = 4096;
/** RFC 7541 §4.1: an entry's size is its name and value octets plus 32. */
const ENTRY_OVERHEAD = 32;
const EMPTY = Buffer.alloc(0);

// ---------------------------------------------------------------------------------------------
// Huffman decoding (RFC 7541 §5.2, Appendix B): a state machine that reads an octet at a time.
// A state is an internal node of the code tree (256 of them; the root, 0, is a symbol boundary).
// Each (state, octet) has one entry: the symbols the octet completes (codes are 5 bits or more,
// so at most two), the next state, whether it ran into EOS (never valid in a string), and
// whether the string may end in the next state (the bits since the last symbol are padding: at
// most 7, all ones). One lookup per octet, no branch: 1.5x as fast as 4 bits at a time.

/** An entry: first symbol (bits 0-7), next state (8-15: x 256 it is the next row), second symbol (16-23), symbol count (24-25), flags. */
const NEXT_ROW = 0xff00;
const SECOND_SHIFT = 16;
const COUNT_SHIFT = 24;
/** EOS was read (by this octet or, in the table's making, this nibble). */
const FAILS = 1 << 26;
/** The string may end in the next state. */
const ACCEPTS = 1 << 27;
/** The entry before the first octet: the root, where an empty string ends. */
const HUFFMAN_START = ACCEPTS;

/** Built on the first Huffman-coded string (a few ms once; a process that never decodes one never pays). */
let huffmanTable: Int32Array | undefined;
/** In the table's making: a 4-bit step completed a symbol. */
const NIBBLE_EMITS = 1 << 16;

function buildHuffmanTable(): Int32Array {
  // The code tree: children[2 * node + bit] is an internal node (> 0) or ~symbol at a leaf.
  const children = new Int32Array(2 * 256);
  const accepting = new Uint8Array(256);
  accepting[0] = 1;
  let nodes = 1;
  HUFFMAN_CODES.forEach(([code, bits], symbol) => {
    let node = 0;
    for (let i = bits - 1; i > 0; i--) {
      const bit = (code >>> i) & 1;
      if (children[2 * node + bit] === 0) {
        accepting[nodes] = accepting[node] && bit === 1 && bits - i <= 7 ? 1 : 0;
        children[2 * node + bit] = nodes++;
      }
      node = children[2 * node + bit];
    }
    children[2 * node + (code & 1)] = ~symbol;
  });
  // Walked 4 bits at a time first, then each octet entry composed of two such steps: 16 times
  // fewer tree walks than 8 bits at once. A nibble's entry: next state (bits 0-7), the symbol
  // it completed if any (8-15, at most one), NIBBLE_EMITS, FAILS, ACCEPTS.
  const nibbles = new Int32Array(256 * 16);
  for (let state = 0; state < nodes; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let i = 3; i >= 0; i--) {
        const child = children[2 * node + ((nibble >>> i) & 1)];
        if (child > 0) {
          node = child;
        } else {
          entry |= child === ~256 ? FAILS : NIBBLE_EMITS | (~child << 8);
          node = 0;
        }
      }
      nibbles[state * 16 + nibble] = entry | node | (accepting[node] ? ACCEPTS : 0);
    }
  }
  const table = new Int32Array(256 * 256);
  for (let state = 0; state < nodes; state++) composeRow(table, nibbles, state);
  return table;
}

/** The entries of one state's octets: the high nibble's step, then the low nibble's. */
function composeRow(table: Int32Array, nibbles: Int32Array, state: number): void {
  for (let high = 0; high < 16; high++) {
    const first = nibbles[state * 16 + high];
    const firstCount = first & NIBBLE_EMITS ? 1 : 0;
    // Its symbol (0 when none) and EOS; the low nibble's symbol goes first or second.
    const head = ((first >>> 8) & 0xff) | (first & FAILS);
    const shift = firstCount * SECOND_SHIFT;
    const row = (first & 0xff) * 16;
    for (let low = 0; low < 16; low++) {
      const second = nibbles[row + low];
      const count = firstCount + (second & NIBBLE_EMITS ? 1 : 0);
      table[(state << 8) | (high << 4) | low] = head | (((second >>> 8) & 0xff) << shift) | ((second & 0xff) << 8) | (second & (FAILS | ACCEPTS)) | (count << COUNT_SHIFT);
    }
  }
}

/** Huffman output, reused (grown as needed): decoding is synchronous, one string at a time. */
let huffmanOut = Buffer.allocUnsafe(1024);

/** Decodes the Huffman-coded octets src[start, end) as a latin1 string; throws HpackError when they are not a valid code. */
export function huffmanDecode(src: Uint8Array, start = 0, end = src.length): string {
  // Each octet yields at most 8/5 symbols; the loop writes up to two bytes past the last symbol.
  if (huffmanOut.length < 2 * (end - start) + 2) huffmanOut = Buffer.allocUnsafe(Math.max(2 * (end - start) + 2, 2 * huffmanOut.length));
  const out = huffmanOut;
  const table = (huffmanTable ??= buildHuffmanTable());
  let n = 0;
  let entry = HUFFMAN_START;
  let seen = 0;
  for (let i = start; i < end; i++) {
    entry = table[(entry & NEXT_ROW) | src[i]];
    // Both symbols always written (a typed array keeps the low 8 bits), counted as the entry says.
    out[n] = entry;
    out[n + 1] = entry >>> SECOND_SHIFT;
    n += (entry >>> COUNT_SHIFT) & 3;
    seen |= entry;
  }
  if (seen & FAILS) throw new HpackError('Huffman-coded string holds EOS');
  if (!(entry & ACCEPTS)) throw new HpackError('Huffman-coded string ends in padding longer than 7 bits or not all ones');
  return out.toString('latin1', 0, n);
}

// ---------------------------------------------------------------------------------------------

/**
 * The dynamic table (RFC 7541 §2.3.2, §4): a ring of entries, newest first, evicted oldest first
 * to stay within its size (octets of names and values plus 32 per entry).
 */
class DynamicTable {
  #names: string[] = new Array<string>(16).fill('');
  #values: string[] = new Array<string>(16).fill('');
  /** Capacity - 1 (the capacity is a power of 2). */
  #mask = 15;
  /** The slot of the newest entry. */
  #newest = 0;
  /** Entries. */
  length = 0;
  /** Octets, as §4.1 counts them. */
  size = 0;
  /** The most `size` may be: the last size update's, or the initial 4096. */
  maxSize: number;

  constructor(maxSize: number) {
    this.maxSize = maxSize;
  }

  /** The name of entry `i` (0: the newest); `i` < length. */
  name(i: number): string {
    return this.#names[(this.#newest - i) & this.#mask];
  }

  value(i: number): string {
    return this.#values[(this.#newest - i) & this.#mask];
  }

  /** Adds an entry, evicting as needed; one larger than the table empties it (§4.4). */
  insert(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.#evictTo(this.maxSize - size);
    if (size > this.maxSize) return;
    if (this.length > this.#mask) this.#grow();
    this.#newest = (this.#newest + 1) & this.#mask;
    this.#names[this.#newest] = name;
    this.#values[this.#newest] = value;
    this.length++;
    this.size += size;
  }

  /** A dynamic table size update (§6.3). */
  resize(maxSize: number): void {
    this.maxSize = maxSize;
    this.#evictTo(maxSize);
  }

  #evictTo(size: number): void {
    while (this.size > size && this.length > 0) {
      const oldest = (this.#newest - this.length + 1) & this.#mask;
      this.size -= this.#names[oldest].length + this.#values[oldest].length + ENTRY_OVERHEAD;
      this.#names[oldest] = this.#values[oldest] = '';
      this.length--;
    }
  }

  #grow(): void {
    const names: string[] = [];
    const values: string[] = [];
    // Oldest first, so that slot length - 1 is the newest.
    for (let i = this.length - 1; i >= 0; i--) {
      names.push(this.name(i));
      values.push(this.value(i));
    }
    const capacity = 2 * (this.#mask + 1);
    for (let i = this.length; i < capacity; i++) names.push(''), values.push('');
    this.#names = names;
    this.#values = values;
    this.#mask = capacity - 1;
    this.#newest = this.length - 1;
  }
}

export interface HpackDecoderOptions {
  /** SETTINGS_HEADER_TABLE_SIZE this side announced (default 4096): the most a dynamic table size update may set. */
  maxTableSize?: number;
  /** The largest header list accepted, counted as RFC 9113 §6.5.2 does (name + value octets + 32 per field); default 65536. */
  maxHeaderListSize?: number;
}

/** The decoding side of one connection's HPACK context: header blocks must be decoded in the order they arrive. */
export class HpackDecoder {
  readonly #table: DynamicTable;
  readonly #maxTableSize: number;
  readonly #maxHeaderListSize: number;
  /** The block being decoded and the position in it. */
  #src: Buffer = EMPTY;
  #pos = 0;

  constructor(opts: HpackDecoderOptions = {}) {
    this.#maxTableSize = opts.maxTableSize ?? INITIAL_TABLE_SIZE;
    this.#maxHeaderListSize = opts.maxHeaderListSize ?? 65536;
    this.#table = new DynamicTable(INITIAL_TABLE_SIZE);
  }

  /**
   * Decodes one complete header block (the concatenated fragments of HEADERS + CONTINUATION)
   * into a flat array [name0, value0, name1, value1, ...], in order, strings decoded as latin1
   * (octets as they are). Names are returned as received (the caller checks lower case).
   * Throws HpackError on any malformed input: bad integer (overflow, > 2^31-1, truncated),
   * index 0 or past the tables, truncated string, invalid Huffman (EOS symbol inside, padding
   * longer than 7 bits or not all ones), a dynamic table size update above maxTableSize or not
   * at the start of the block, ... After an HpackError the decoder's state is undefined (the
   * connection ends), except for a list larger than maxHeaderListSize: HpackError with
   * `tooLarge`, thrown once the whole block is decoded, so the dynamic table stays in step with
   * the peer's and the connection may go on (refusing that stream).
   */
  decode(block: Uint8Array): string[] {
    const src = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
    this.#src = src;
    this.#pos = 0;
    const fields: string[] = [];
    let listSize = 0;
    while (this.#pos < src.length) {
      const first = src[this.#pos];
      let name: string;
      let value: string;
      if (first & 0x80) {
        // §6.1 Indexed Header Field.
        const index = this.#integer(0x7f);
        if (index <= STATIC_LENGTH) {
          if (index === 0) throw new HpackError('indexed header field with index 0');
          name = STATIC_NAMES[index];
          value = STATIC_VALUES[index];
        } else {
          const i = this.#dynamicIndex(index);
          name = this.#table.name(i);
          value = this.#table.value(i);
        }
      } else if (first & 0x40) {
        // §6.2.1 Literal Header Field with Incremental Indexing.
        name = this.#literalName(0x3f);
        value = this.#string();
        this.#table.insert(name, value);
      } else if (first & 0x20) {
        // §6.3 Dynamic Table Size Update: only before the block's first field (§4.2).
        if (listSize > 0) throw new HpackError('dynamic table size update after a header field');
        const size = this.#integer(0x1f);
        if (size > this.#maxTableSize) throw new HpackError(`dynamic table size update to ${size}, above the ${this.#maxTableSize} announced`);
        this.#table.resize(size);
        continue;
      } else {
        // §6.2.2 Literal Header Field without Indexing (0000) and §6.2.3 Never Indexed (0001).
        name = this.#literalName(0x0f);
        value = this.#string();
      }
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      // Past the limit the block is still decoded (the table must follow it), but not kept.
      if (listSize <= this.#maxHeaderListSize) fields.push(name, value);
    }
    this.#src = EMPTY;
    if (listSize > this.#maxHeaderListSize) throw new HpackError(`header list of ${listSize} octets, above the limit of ${this.#maxHeaderListSize}`, true);
    return fields;
  }

  /** An integer (§5.1) whose prefix is the bits of `mask` in the current octet. */
  #integer(mask: number): number {
    const src = this.#src;
    const value = src[this.#pos++] & mask;
    return value < mask ? value : this.#integerTail(value);
  }

  /** The continuation octets of an integer whose prefix was all ones: 7 bits each, least significant first. */
  #integerTail(prefix: number): number {
    const src = this.#src;
    let value = prefix;
    for (let weight = 1; ; weight *= 128) {
      if (this.#pos >= src.length) throw new HpackError('truncated integer');
      const octet = src[this.#pos++];
      value += (octet & 0x7f) * weight;
      if (value > MAX_INTEGER) throw new HpackError('integer above 2^31-1');
      if (octet < 0x80) return value;
      // Five continuation octets hold 31 bits; a sixth is only zeros padding the encoding.
      if (weight === 2 ** 28) throw new HpackError('integer encoded in too many octets');
    }
  }

  /** The position in the dynamic table (0: the newest) of an HPACK index past the static table. */
  #dynamicIndex(index: number): number {
    const i = index - STATIC_LENGTH - 1;
    if (i >= this.#table.length) throw new HpackError(`index ${index} past the tables (${STATIC_LENGTH} static, ${this.#table.length} dynamic entries)`);
    return i;
  }

  /** A literal field's name: an index in the prefix bits of `mask`, or (index 0) a string literal after the octet. */
  #literalName(mask: number): string {
    const index = this.#integer(mask);
    if (index === 0) return this.#string();
    return index <= STATIC_LENGTH ? STATIC_NAMES[index] : this.#table.name(this.#dynamicIndex(index));
  }

  /** A string literal (§5.2): H bit, length with a 7-bit prefix, octets (Huffman-coded when H). */
  #string(): string {
    const src = this.#src;
    if (this.#pos >= src.length) throw new HpackError('truncated header block: string literal expected');
    const huffman = src[this.#pos] & 0x80;
    const length = this.#integer(0x7f);
    const start = this.#pos;
    if (length > src.length - start) throw new HpackError('truncated string literal');
    this.#pos = start + length;
    return huffman ? huffmanDecode(src, start, start + length) : src.toString('latin1', start, start + length);
  }
}

// ---------------------------------------------------------------------------------------------

/** Header name -> its first static index, for literal fields with an indexed name. */
const STATIC_NAME_INDEX = new Map<string, number>();
for (let i = STATIC_LENGTH; i >= 1; i--) STATIC_NAME_INDEX.set(STATIC_NAMES[i], i);
/** `:status` value -> its static index (200, 204, 206, 304, 400, 404, 500). */
const STATUS_INDEX = new Map<string, number>();
for (let i = 1; i <= STATIC_LENGTH; i++) if (STATIC_NAMES[i] === ':status') STATUS_INDEX.set(STATIC_VALUES[i], i);

/** The octets of an integer with a `mask`-bit prefix (§5.1). */
function integerLength(mask: number, value: number): number {
  if (value < mask) return 1;
  let n = 2;
  for (value -= mask; value >= 0x80; value = Math.floor(value / 128)) n++;
  return n;
}

/** Writes an integer with a `mask`-bit prefix, the octet's other bits `high`; returns the position after it. */
function writeInteger(out: Buffer, pos: number, high: number, mask: number, value: number): number {
  if (value < mask) {
    out[pos++] = high | value;
    return pos;
  }
  out[pos++] = high | mask;
  for (value -= mask; value >= 0x80; value = Math.floor(value / 128)) out[pos++] = (value & 0x7f) | 0x80;
  out[pos++] = value;
  return pos;
}

/** Writes a string literal without Huffman coding (H = 0); returns the position after it. */
function writeString(out: Buffer, pos: number, s: string): number {
  pos = writeInteger(out, pos, 0, 0x7f, s.length);
  return pos + out.write(s, pos, 'latin1');
}

/** The octets a field takes (see encodeHeaderBlock). */
function fieldLength(name: string, value: string): number {
  if (name === ':status' && STATUS_INDEX.has(value)) return 1;
  const index = STATIC_NAME_INDEX.get(name);
  const nameLength = index === undefined ? 1 + integerLength(0x7f, name.length) + name.length : integerLength(0x0f, index);
  return nameLength + integerLength(0x7f, value.length) + value.length;
}

function writeField(out: Buffer, pos: number, name: string, value: string): number {
  const status = name === ':status' ? STATUS_INDEX.get(value) : undefined;
  if (status !== undefined) {
    out[pos++] = 0x80 | status;
    return pos;
  }
  // §6.2.2: 0000 and a 4-bit name index, or 0 and the name as a string literal.
  const index = STATIC_NAME_INDEX.get(name);
  if (index === undefined) {
    out[pos++] = 0;
    pos = writeString(out, pos, name);
  } else {
    pos = writeInteger(out, pos, 0, 0x0f, index);
  }
  return writeString(out, pos, value);
}

/**
 * A header block for headers this server sends (responses and trailers), with no dynamic-table
 * state: every field a "literal header field without indexing" (RFC 7541 §6.2.2) — with the name
 * as a static-table index when the static table has it, literal otherwise — except `:status` with
 * a value the static table holds (200, 204, 206, 304, 400, 404, 500), sent as indexed. No Huffman.
 * Values are strings (numbers converted with String()), encoded latin1; arrays give one field per item.
 * Names are lower-cased by the caller (do not change them).
 */
export function encodeHeaderBlock(headers: Record<string, string | number | readonly string[]>): Buffer {
  // The fields flat (name, value, ...), then their size, then one buffer written in one pass.
  const fields: string[] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (typeof value === 'object') for (const item of value) fields.push(name, item);
    else fields.push(name, String(value));
  }
  let length = 0;
  for (let i = 0; i < fields.length; i += 2) length += fieldLength(fields[i], fields[i + 1]);
  const out = Buffer.allocUnsafe(length);
  let pos = 0;
  for (let i = 0; i < fields.length; i += 2) pos = writeField(out, pos, fields[i], fields[i + 1]);
  return out;
}
