import { invalidArgument } from '../../platform/http/errors.ts';

interface PageTokenState {
  projectNumber: string;
  showDeleted: boolean;
  createTime: number;
  uid: string;
}

/** Opaque list cursor: the last key of the previous page, bound to the query it came from. */
export function encodePageToken(s: PageTokenState): string {
  return Buffer.from(JSON.stringify([s.projectNumber, s.showDeleted ? 1 : 0, s.createTime, s.uid])).toString('base64url');
}

export function decodePageToken(token: string, expect: { projectNumber: string; showDeleted: boolean }): { createTime: number; uid: string } {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (
    !Array.isArray(v) ||
    v.length !== 4 ||
    v[0] !== expect.projectNumber ||
    v[1] !== (expect.showDeleted ? 1 : 0) ||
    !Number.isSafeInteger(v[2]) ||
    v[2] < 0 ||
    typeof v[3] !== 'string' ||
    !/^[0-9a-f-]{36}$/.test(v[3])
  ) {
    throw invalidArgument('The page token is invalid. It must come from a previous list call with the same parameters.');
  }
  return { createTime: v[2], uid: v[3] };
}
