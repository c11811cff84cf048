/**
 * Compute's list `filter` (regionInstanceTemplates.list, regionOperations.list), as users write
 * it:
 *   name = "x"   name != x   name = abc*          (= and != compare whole values; `*` is a wildcard)
 *   name eq 'regex'   name ne "regex"          (RE2 syntax; the regex must match the WHOLE value)
 *   name:abc*   labels.env:*                   (`:` matches a substring / tests presence with `*`)
 *   id > 5   creationTimestamp < "2026-01-01"   (ordering: numbers numerically, else as text)
 *   (a = 1) AND (b = 2)   (a = 1) OR (b = 2)   (a = 1) (b = 2)   NOT (a = 1)   -(a = 1)
 *   properties.machineType = e2-medium   properties.labels.env = prod   (nested fields; lists: any element)
 *   region eq ".*\bus\-central1\b.*"        (gcloud's form for aggregated lists)
 * A filter that does not parse is a 400 `invalid` naming the filter, never a match-all.
 * Bounded: the text (4096 characters), the nesting depth, the number of terms and each regex's
 * length. Regexes run on re2js, RE2's JavaScript port: RE2's syntax, linear time, no catastrophic
 * backtracking whatever the pattern; what RE2 lacks (backreferences, lookarounds) is refused.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { ApiError } from '../../../platform/http/errors.ts';
import type { ComputeFilter } from '../instanceTemplate/types.ts';

export const MAX_FILTER_LENGTH = 4096;
export const MAX_FILTER_DEPTH = 16;
export const MAX_FILTER_TERMS = 64;
/** Longest regex, and longest `=` / `:` value with wildcards. */
export const MAX_REGEX_LENGTH = 256;
/** Longest value a regex is run against (resource fields are far shorter). */
const MAX_MATCHED_LENGTH = 4096;
/** Largest compiled regex (RE2's program size: repetitions expand). */
export const MAX_PROGRAM_SIZE = 1024;
/**
 * Matching work one filter may spend per list call: each match is charged its program size times
 * the value's length plus one, the bound on what RE2's NFA does for it.
 */
export const MAX_FILTER_STEPS = 20_000_000;

/** A compiled whole-value regex. */
interface Re2 {
  readonly re: RE2JS;
  readonly size: number;
}

/** The regex work left to one parsed filter; shared by every resource it is matched against. */
interface Re2Budget {
  steps: number;
}

type Op = '=' | '!=' | ':' | 'eq' | 'ne' | '<' | '<=' | '>' | '>=';

type Node =
  | { kind: 'and' | 'or'; items: Node[] }
  | { kind: 'not'; item: Node }
  | { kind: 'term'; path: string[]; op: Op; value: string; regex?: Re2; glob?: Re2 };

interface ParsedFilter extends ComputeFilter {
  readonly root: Node | null;
  /** Regex work left; shared by every resource the filter is matched against. */
  readonly budget: Re2Budget;
}

class FilterSyntaxError extends Error {}

/** 400 `invalid` naming the filter, in Compute's words. */
export function invalidFilter(text: string): ApiError {
  const message = `Invalid value for field 'filter': '${text}'. Invalid list filter expression.`;
  return new ApiError({
    status: 'INVALID_ARGUMENT',
    message,
    reason: 'invalid',
    domain: 'global',
    errors: [{ message, domain: 'global', reason: 'invalid' }],
  });
}

// ---- lexer ----------------------------------------------------------------------------------

type Tok =
  | { t: '(' | ')' | 'AND' | 'OR' | 'NOT' | '-' }
  | { t: 'op'; v: Op }
  | { t: 'word'; v: string }
  | { t: 'quoted'; v: string; raw: string };

const OPS: Op[] = ['!=', '<=', '>=', '=', ':', '<', '>'];

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      out.push({ t: c });
      i++;
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (op) {
      out.push({ t: 'op', v: op });
      i += op.length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      let raw = '';
      for (;;) {
        if (j >= s.length) throw new FilterSyntaxError('unterminated string');
        const d = s[j];
        if (d === '\\' && j + 1 < s.length) {
          const e = s[j + 1];
          raw += e === c ? e : d + e;
          value += e;
          j += 2;
          continue;
        }
        if (d === c) break;
        raw += d;
        value += d;
        j++;
      }
      out.push({ t: 'quoted', v: value, raw });
      i = j + 1;
      continue;
    }
    if (c === '-' && (out.length === 0 || ['(', 'AND', 'OR', 'NOT', ')', 'quoted', 'word'].includes(out[out.length - 1].t)) && s[i + 1] === '(') {
      out.push({ t: '-' });
      i++;
      continue;
    }
    // A value (right after an operator) may hold operator characters: `selfLink = https://...`.
    const afterOp = out.length > 0 && out[out.length - 1].t === 'op';
    let j = i;
    while (j < s.length && !' \t\n\r()'.includes(s[j]) && (afterOp || !OPS.some((o) => s.startsWith(o, j))) && s[j] !== '"' && s[j] !== "'") {
      if (s[j] === '\\' && j + 1 < s.length) j++;
      j++;
    }
    const word = s.slice(i, j);
    if (afterOp) out.push({ t: 'word', v: word });
    else if (word === 'AND' || word === 'OR' || word === 'NOT') out.push({ t: word });
    else if (word === 'eq' || word === 'ne') out.push({ t: 'op', v: word });
    else out.push({ t: 'word', v: word });
    i = j;
  }
  return out;
}

// ---- parser ---------------------------------------------------------------------------------

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_][-A-Za-z0-9_]*)*$/;

class Parser {
  private pos = 0;
  private terms = 0;
  private readonly toks: Tok[];

  constructor(toks: Tok[]) {
    this.toks = toks;
  }

  parse(): Node {
    const node = this.or(0);
    if (this.pos !== this.toks.length) throw new FilterSyntaxError('trailing input');
    return node;
  }

  private peek(): Tok | undefined {
    return this.toks[this.pos];
  }

  private or(depth: number): Node {
    const items = [this.and(depth)];
    while (this.peek()?.t === 'OR') {
      this.pos++;
      items.push(this.and(depth));
    }
    return items.length === 1 ? items[0] : { kind: 'or', items };
  }

  private and(depth: number): Node {
    const items = [this.unary(depth)];
    for (;;) {
      const t = this.peek();
      if (t === undefined || t.t === ')' || t.t === 'OR') break;
      if (t.t === 'AND') this.pos++;
      items.push(this.unary(depth));
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private unary(depth: number): Node {
    if (depth > MAX_FILTER_DEPTH) throw new FilterSyntaxError('too deep');
    const t = this.peek();
    if (t?.t === 'NOT' || t?.t === '-') {
      this.pos++;
      return { kind: 'not', item: this.unary(depth + 1) };
    }
    if (t?.t === '(') {
      this.pos++;
      const node = this.or(depth + 1);
      if (this.peek()?.t !== ')') throw new FilterSyntaxError('missing )');
      this.pos++;
      return node;
    }
    return this.term();
  }

  private term(): Node {
    const f = this.toks[this.pos];
    const o = this.toks[this.pos + 1];
    const v = this.toks[this.pos + 2];
    if (f?.t !== 'word' || !FIELD.test(f.v) || o?.t !== 'op' || (v?.t !== 'word' && v?.t !== 'quoted')) {
      throw new FilterSyntaxError('expected FIELD OP VALUE');
    }
    if (++this.terms > MAX_FILTER_TERMS) throw new FilterSyntaxError('too many terms');
    this.pos += 3;
    const op = o.v;
    const path = f.v.split('.');
    if (op === 'eq' || op === 'ne') {
      const pattern = v.t === 'quoted' ? v.raw : v.v;
      return { kind: 'term', path, op, value: pattern, regex: compileTermRegex(pattern) };
    }
    const value = v.t === 'quoted' ? v.v : unescapeWord(v.v);
    const node: Node = { kind: 'term', path, op, value };
    if ((op === '=' || op === '!=' || op === ':') && value.includes('*')) {
      // Wildcards run on the same linear-time matcher as regexes.
      if (value.length > MAX_REGEX_LENGTH) throw new FilterSyntaxError('wildcard value too long');
      const body = value.split('*').map(escapeRegex).join('.*');
      node.glob = compileRe2(`(?s)${op === ':' ? `.*${body}.*` : body}`);
    }
    return node;
  }
}

function unescapeWord(w: string): string {
  return w.replace(/\\(.)/g, '$1');
}

/** Escapes RE2 metacharacters (every ASCII punctuation may be escaped in RE2). */
function escapeRegex(s: string): string {
  return s.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** Compiles the regex of an `eq` / `ne` term (RE2 syntax, whole-value match, linear time). */
function compileTermRegex(pattern: string): Re2 {
  if (pattern.length > MAX_REGEX_LENGTH) throw new FilterSyntaxError('regex too long');
  return compileRe2(pattern);
}

const requireLazily = createRequire(import.meta.url);
let re2js: typeof import('re2js') | undefined;

/**
 * An RE2 pattern, compiled; what RE2 refuses, or a program past MAX_PROGRAM_SIZE, is a syntax
 * error of the filter. re2js is loaded with the first filter that needs it (~20 ms at start-up otherwise).
 */
function compileRe2(pattern: string): Re2 {
  re2js ??= requireLazily('re2js') as typeof import('re2js');
  let re: RE2JS;
  try {
    re = re2js.RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof re2js.RE2JSException) throw new FilterSyntaxError(e.message);
    throw e;
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) throw new FilterSyntaxError('regex program too large');
  return { re, size };
}

class BudgetExceeded extends Error {}

/** Whether the regex matches the whole of `s`, charged to the filter's budget. */
function wholeMatch(regex: Re2, s: string): boolean {
  if (s.length > MAX_MATCHED_LENGTH) return false;
  if (budget && (budget.steps -= regex.size * (s.length + 1)) < 0) throw new BudgetExceeded();
  return regex.re.testExact(s);
}

/** Parses a list `filter`. Empty text matches everything. Throws ApiError 400 `invalid`. */
export function parseComputeFilter(text: string): ComputeFilter {
  if (typeof text !== 'string' || text.length > MAX_FILTER_LENGTH || text.includes('\0')) throw invalidFilter(String(text).slice(0, 256));
  if (text.trim() === '') return { source: text, root: null, budget: { steps: MAX_FILTER_STEPS } } as ParsedFilter;
  try {
    const root = new Parser(lex(text)).parse();
    return { source: text, root, budget: { steps: MAX_FILTER_STEPS } } as ParsedFilter;
  } catch (e) {
    if (e instanceof FilterSyntaxError || e instanceof RangeError) throw invalidFilter(text);
    throw e;
  }
}

// ---- evaluation -----------------------------------------------------------------------------

/** The values at a dotted path; lists on the way are flattened (any element may match). */
function valuesAt(resource: unknown, path: string[]): unknown[] {
  let current: unknown[] = [resource];
  for (const key of path) {
    const next: unknown[] = [];
    for (const v of current) {
      const items = Array.isArray(v) ? v : [v];
      for (const item of items) {
        if (typeof item === 'object' && item !== null && !Array.isArray(item) && Object.hasOwn(item, key)) {
          next.push((item as Record<string, unknown>)[key]);
        }
      }
    }
    current = next;
    if (!current.length) return current;
  }
  return current.flatMap((v) => (Array.isArray(v) ? v : [v]));
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return undefined;
}

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** The budget of the filter being evaluated (evaluation is synchronous). */
let budget: Re2Budget | undefined;

function equals(v: unknown, term: Extract<Node, { kind: 'term' }>): boolean {
  if (typeof v === 'boolean') return String(v) === term.value.toLowerCase();
  const s = text(v);
  if (s === undefined) return false;
  if (term.glob) return wholeMatch(term.glob, s);
  if (NUMBER.test(s) && NUMBER.test(term.value)) return numericOrder(s, term.value) === 0;
  return s === term.value;
}

const INTEGER = /^-?\d+$/;

/** Numbers compared as numbers: 64-bit ids exactly (as BigInt), others as doubles. */
function numericOrder(a: string, b: string): number {
  if (INTEGER.test(a) && INTEGER.test(b) && a.length <= 40 && b.length <= 40) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Math.sign(Number(a) - Number(b));
}

function compare(v: unknown, term: Extract<Node, { kind: 'term' }>): number | undefined {
  const s = text(v);
  if (s === undefined) return undefined;
  if (NUMBER.test(s) && NUMBER.test(term.value)) return numericOrder(s, term.value);
  return s < term.value ? -1 : s > term.value ? 1 : 0;
}

function evalTerm(term: Extract<Node, { kind: 'term' }>, resource: unknown): boolean {
  const values = valuesAt(resource, term.path);
  switch (term.op) {
    case '=':
      return values.some((v) => equals(v, term));
    case '!=':
      return !values.some((v) => equals(v, term));
    case ':':
      if (term.value === '*') return values.length > 0;
      return values.some((v) => {
        if (typeof v === 'object' && v !== null) return Object.hasOwn(v, term.value);
        const s = text(v);
        if (s === undefined) return false;
        if (typeof v !== 'string') return equals(v, term);
        return term.glob ? wholeMatch(term.glob, s) : s.includes(term.value);
      });
    case 'eq':
    case 'ne': {
      const hit = values.some((v) => {
        const s = text(v);
        return s !== undefined && wholeMatch(term.regex!, s);
      });
      return term.op === 'eq' ? hit : !hit;
    }
    default: {
      const want = term.op;
      return values.some((v) => {
        const c = compare(v, term);
        if (c === undefined) return false;
        return want === '<' ? c < 0 : want === '<=' ? c <= 0 : want === '>' ? c > 0 : c >= 0;
      });
    }
  }
}

function evaluate(node: Node, resource: unknown): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((n) => evaluate(n, resource));
    case 'or':
      return node.items.some((n) => evaluate(n, resource));
    case 'not':
      return !evaluate(node.item, resource);
    default:
      return evalTerm(node, resource);
  }
}

/**
 * True when the resource satisfies the filter. Throws ApiError 400 when the filter's regexes have
 * spent their work budget (MAX_FILTER_STEPS, shared by every resource of one parsed filter).
 */
export function matchesFilter(filter: ComputeFilter, resource: unknown): boolean {
  const parsed = filter as ParsedFilter;
  if (parsed.root === undefined) return matchesFilter(parseComputeFilter(filter.source), resource);
  if (parsed.root === null) return true;
  budget = parsed.budget;
  try {
    return evaluate(parsed.root, resource);
  } catch (e) {
    if (e instanceof BudgetExceeded) throw tooExpensive(parsed.source);
    throw e;
  } finally {
    budget = undefined;
  }
}

function tooExpensive(text: string): ApiError {
  const message = `Invalid value for field 'filter': '${text}'. The filter's regular expressions are too expensive to evaluate.`;
  return new ApiError({ status: 'INVALID_ARGUMENT', message, reason: 'invalid', domain: 'global', errors: [{ message, domain: 'global', reason: 'invalid' }] });
}
