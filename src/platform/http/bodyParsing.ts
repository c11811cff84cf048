import { isUtf8 } from 'node:buffer';
import { ApiError, invalidArgument } from './errors.ts';
import { echoText } from './secrets.ts';

/**
 * Request bodies and URLs are checked once, where they are parsed, so nothing after the parser
 * (name conversion, validation, the services, the store) meets input it cannot handle: nesting
 * deeper than protobuf's JSON parser allows, NUL (PostgreSQL cannot store it), invalid UTF-8 and
 * lone surrogates (which would come back changed from the store), in bodies and in URLs alike.
 */

/** Protobuf's JSON parser refuses messages nested deeper than this (its default recursion limit). */
export const MAX_JSON_DEPTH = 100;

export const TOO_DEEP = `Invalid JSON payload received. Message too deep: nesting exceeds the limit of ${MAX_JSON_DEPTH} levels.`;
const NUL_IN_BODY = 'Invalid JSON payload received. Strings may not contain the NUL character (\\u0000).';
const BAD_UTF8 = 'Invalid JSON payload received. The body is not valid UTF-8.';
const LONE_SURROGATE = 'Invalid JSON payload received. Strings may not contain unpaired surrogates (\\ud800-\\udfff).';

function bad(message: string): ApiError {
  return new ApiError({ status: 'INVALID_ARGUMENT', message });
}

/** Bytes of a body as text; invalid UTF-8 is refused, never replaced by U+FFFD. */
export function bodyText(body: Buffer): string {
  if (!isUtf8(body)) throw bad(BAD_UTF8);
  return body.toString('utf8');
}

/**
 * The JSON text of a request body as a value (undefined for an empty body). Only a body long
 * enough to nest past the limit (2 characters a level) is scanned for depth, so a small request
 * pays nothing; NUL and surrogates are looked for in the value only when their escapes occur.
 */
export function parseJsonBody(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return undefined;
  if (text.length > 2 * MAX_JSON_DEPTH && jsonTextTooDeep(text, MAX_JSON_DEPTH)) throw bad(TOO_DEEP);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw jsonSyntaxError(text, err as Error);
  }
  if (text.includes('\\u')) checkStrings(value, /\\u0000/.test(text), /\\u[dD][89a-fA-F]/.test(text));
  return value;
}

/** True when brackets (outside strings) nest deeper than `limit`; a linear scan, no recursion. */
export function jsonTextTooDeep(text: string, limit: number): boolean {
  // No more opening brackets than the limit (strings included) cannot nest past it: counting
  // them is a few indexOf calls, six times cheaper than the scan below (a 2.5 KB body: 0.5 us).
  if (!moreThan(text, '{', '[', limit)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === 92) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Whether `text` holds more than `limit` occurrences of `a` and `b` together. */
function moreThan(text: string, a: string, b: string, limit: number): boolean {
  let n = 0;
  for (let i = text.indexOf(a); i !== -1; i = text.indexOf(a, i + 1)) if (++n > limit) return true;
  for (let i = text.indexOf(b); i !== -1; i = text.indexOf(b, i + 1)) if (++n > limit) return true;
  return false;
}

/** True when a parsed value (e.g. from YAML) nests deeper than `limit`; iterative. */
export function valueTooDeep(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}

/** Refuses NUL and unpaired surrogates in any string (keys too) of a parsed value; iterative. */
export function checkStrings(value: unknown, nul = true, surrogates = true): void {
  const stack: unknown[] = [value];
  const check = (s: string) => {
    if (nul && s.includes('\u0000')) throw bad(NUL_IN_BODY);
    if (surrogates && !s.isWellFormed()) throw bad(LONE_SURROGATE);
  };
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') check(v);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        check(k);
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
}

/** A JSON syntax error as Google's parser words it: what went wrong, the line, a caret under the spot. */
function jsonSyntaxError(text: string, err: Error): ApiError {
  const m = /at position (\d+)/.exec(err.message);
  const atEnd = /end of JSON input|Unterminated string/i.test(err.message);
  const pos = m ? Number(m[1]) : atEnd ? text.length : 0;
  const what = atEnd ? 'Unexpected end of string.' : 'Unexpected token.';
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const from = Math.max(lineStart, pos - 30);
  const lineEnd = text.indexOf('\n', pos);
  const to = Math.min(lineEnd < 0 ? text.length : lineEnd, pos + 30);
  const line = echoText(text.slice(from, to), 60);
  return invalidArgument(`Invalid JSON payload received. ${what}\n${line}\n${' '.repeat(Math.min(pos - from, line.length))}^`);
}

/**
 * A reason to refuse a request URL, or undefined: NUL, or percent-escapes that are not UTF-8
 * (which includes every encoded surrogate). Called only for URLs with a `%` in them.
 */
export function urlProblem(url: string): ApiError | undefined {
  if (url.includes('%00')) return bad('The request URL is not valid: it contains the NUL character (%00).');
  if (!/%[89a-fA-F][0-9a-fA-F]/.test(url)) return undefined;
  for (const run of url.match(/(?:%[0-9a-fA-F]{2})+/g) ?? []) {
    try {
      decodeURIComponent(run);
    } catch {
      return bad('The request URL is not valid: its percent-escapes are not UTF-8.');
    }
  }
  return undefined;
}
