import { invalidPageToken } from './errors.ts';

/**
 * Page tokens as the real service writes them: unpadded base64url of a protobuf message with
 * field 1 = offset (varint) and field 2 = direction (0 next, 1 previous). `CAUQAA` = offset 5,
 * next. A next token starts its page at `offset`; a previous token ends its page just before it.
 */
export interface PageToken {
  offset: number;
  direction: 'next' | 'previous';
}

function varint(n: number, out: number[]): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

export function encodePageToken(t: PageToken): string {
  const bytes: number[] = [0x08];
  varint(t.offset, bytes);
  bytes.push(0x10, t.direction === 'next' ? 0 : 1);
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Decodes a token; anything but the exact bytes `encodePageToken` writes for an offset within
 * `[0, maxOffset]` (padding, unknown fields, overlong varints, other directions) is 400 invalidPageToken.
 */
export function decodePageToken(token: string, maxOffset: number): PageToken {
  if (token.length === 0 || token.length > 16 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidPageToken();
  const b = Buffer.from(token, 'base64url');
  let i = 0;
  if (b[i++] !== 0x08) throw invalidPageToken();
  let offset = 0;
  let scale = 1;
  for (;;) {
    if (i >= b.length || scale > 2 ** 28) throw invalidPageToken();
    const byte = b[i++];
    offset += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) break;
  }
  if (b[i++] !== 0x10 || i !== b.length - 1 || (b[i] !== 0 && b[i] !== 1)) throw invalidPageToken();
  const t: PageToken = { offset, direction: b[i] === 0 ? 'next' : 'previous' };
  // Canonical form only: a re-encoded token must be the very same text (no tampered bits left over).
  if (offset > maxOffset || (t.direction === 'previous' && offset === 0) || encodePageToken(t) !== token) throw invalidPageToken();
  return t;
}

/** The results a page shows: `[start, start + limit)`, from the token (if any) and maxResults. */
export function pageWindow(token: PageToken | undefined, limit: number): { start: number; limit: number } {
  if (!token || token.direction === 'next') return { start: token?.offset ?? 0, limit };
  const start = Math.max(0, token.offset - limit);
  return { start, limit: token.offset - start };
}

/** The page tokens of a page `[start, end)`: a next token when `more` results follow, a previous one unless it starts at 0. */
export function pageTokens(start: number, end: number, more: boolean): { nextPageToken?: string; prevPageToken?: string } {
  return {
    ...(more && { nextPageToken: encodePageToken({ offset: end, direction: 'next' }) }),
    ...(start > 0 && { prevPageToken: encodePageToken({ offset: start, direction: 'previous' }) }),
  };
}
