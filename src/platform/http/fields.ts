import { invalidArgument } from './errors.ts';
import { MAX_JSON_DEPTH } from './bodyParsing.ts';
import { echoText } from './secrets.ts';

/**
 * Partial responses: Google's `fields` system parameter, e.g. `keys(name,uid),nextPageToken` or
 * `response/keyString`. A selection is a tree; `*` selects every field at its level.
 */
export type FieldSelection = Map<string, FieldSelection | true>;

export function parseFieldSelection(text: string): FieldSelection {
  let pos = 0;
  const fail = (): never => {
    throw invalidArgument(`Invalid field selection ${echoText(text)}`);
  };
  // Nesting is bounded like a JSON body's, so a hostile selector cannot exhaust the stack.
  const parseList = (depth: number, level: number): FieldSelection => {
    const sel: FieldSelection = new Map();
    for (;;) {
      parsePath(sel, level);
      if (pos >= text.length) {
        if (depth > 0) fail();
        return sel;
      }
      const c = text[pos];
      if (c === ',') {
        pos++;
        continue;
      }
      if (c === ')' && depth > 0) {
        pos++;
        return sel;
      }
      fail();
    }
  };
  const parsePath = (into: FieldSelection, level: number): void => {
    if (level > MAX_JSON_DEPTH) fail();
    const m = /^[A-Za-z0-9_*.$@-]+/.exec(text.slice(pos));
    if (!m) fail();
    const name = m![0];
    pos += name.length;
    let target: FieldSelection | true = true;
    if (text[pos] === '/') {
      pos++;
      const sub: FieldSelection = new Map();
      parsePath(sub, level + 1);
      target = sub;
    } else if (text[pos] === '(') {
      pos++;
      target = parseList(1, level + 1);
    }
    const existing = into.get(name);
    into.set(name, merge(existing, target));
  };
  const sel = parseList(0, 0);
  return sel;
}

function merge(a: FieldSelection | true | undefined, b: FieldSelection | true): FieldSelection | true {
  if (a === undefined) return b;
  if (a === true || b === true) return true;
  const out: FieldSelection = new Map(a);
  for (const [k, v] of b) out.set(k, merge(out.get(k), v));
  return out;
}

export function applyFieldSelection(value: unknown, sel: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((v) => applyFieldSelection(v, sel));
  if (value === null || typeof value !== 'object') return value;
  const star = sel.get('*');
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const s = sel.get(k) ?? star;
    if (s === undefined) continue;
    out.push([k, s === true ? v : applyFieldSelection(v, s)]);
  }
  // Own properties whatever the names (a map key may be `__proto__`).
  return Object.fromEntries(out);
}
