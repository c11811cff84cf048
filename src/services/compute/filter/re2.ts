/**
 * A small RE2-syntax regular expression matcher for list filters (`name eq 'web-.*'`): a parser
 * of RE2's syntax and a Pike VM (Thompson NFA simulation). Matching takes time linear in the
 * value times the program size, whatever the pattern: no backtracking, so no catastrophic cases
 * (`(a+)+$`, `(.*)*x`, `.*.*.*.*x` are all fine). RE2 has no backreferences or lookarounds and
 * neither has this; they are syntax errors, as in RE2.
 *
 * Supported: literals, `.`, `^` `$` `\A` `\z`, `\b` `\B`, classes `[...]` `[^...]` with ranges,
 * escapes and `[:alpha:]`-style POSIX classes, `\d \D \w \W \s \S`, `\pL` / `\p{Greek}`-style
 * Unicode classes, `\x41` `\x{263a}` `\n \t \r \f \v \a`, escaped punctuation, `\Q...\E`, groups `(...)`
 * `(?:...)` `(?P<name>...)` `(?<name>...)`, flags `(?i)` `(?s)` `(?m)` `(?U)` and `(?i:...)`,
 * alternation, `* + ? {n} {n,} {n,m}` (and their lazy forms; laziness does not change a
 * whole-value match). Matching is against the WHOLE value, as Compute's `eq` / `ne` require.
 */

export class Re2SyntaxError extends Error {}

/** RE2's own repetition limit. */
const MAX_REPEAT = 1000;
/** Bound on the compiled program (repetitions expand). */
export const MAX_PROGRAM = 1024;

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
}

type CharTest = (c: number) => boolean;

type Node =
  | { k: 'char'; test: CharTest }
  | { k: 'assert'; a: 'bol' | 'eol' | 'bot' | 'eot' | 'wordb' | 'nonwordb' }
  | { k: 'cat'; items: Node[] }
  | { k: 'alt'; items: Node[] }
  | { k: 'rep'; item: Node; min: number; max: number } // max -1: unbounded
  | { k: 'empty' };

const isWord = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

const POSIX: Record<string, CharTest> = {
  alnum: (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 0x7f,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: isDigit,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => (c > 32 && c < 48) || (c > 57 && c < 65) || (c > 90 && c < 97) || (c > 122 && c < 127),
  space: isSpace,
  upper: (c) => c >= 65 && c <= 90,
  word: isWord,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

function fold(c: number): number[] {
  const s = String.fromCodePoint(c);
  const l = s.toLowerCase();
  const u = s.toUpperCase();
  const out = new Set([c]);
  if ([...l].length === 1) out.add(l.codePointAt(0)!);
  if ([...u].length === 1) out.add(u.codePointAt(0)!);
  return [...out];
}

function withCase(test: CharTest, flags: Flags): CharTest {
  if (!flags.i) return test;
  return (c) => fold(c).some(test);
}

function unicodeClass(name: string): CharTest {
  if (!/^[A-Za-z_]{1,40}$/.test(name)) throw new Re2SyntaxError(`invalid character class range: \\p{${name}}`);
  for (const form of [name, `Script=${name}`]) {
    try {
      const re = new RegExp(`^\\p{${form}}$`, 'u');
      return (c) => re.test(String.fromCodePoint(c));
    } catch {
      // try the next form
    }
  }
  throw new Re2SyntaxError(`invalid character class range: \\p{${name}}`);
}

class Parser {
  private readonly cps: number[];
  private pos = 0;
  private flags: Flags = { i: false, s: false, m: false };

  constructor(pattern: string) {
    this.cps = [...pattern].map((c) => c.codePointAt(0)!);
  }

  parse(): Node {
    const node = this.alt();
    if (this.pos < this.cps.length) throw new Re2SyntaxError('unexpected )');
    return node;
  }

  private peek(): number | undefined {
    return this.cps[this.pos];
  }

  private eat(c: string): boolean {
    if (this.cps[this.pos] === c.codePointAt(0)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private alt(): Node {
    const saved = { ...this.flags };
    const items = [this.cat()];
    while (this.eat('|')) items.push(this.cat());
    this.flags = saved;
    return items.length === 1 ? items[0] : { k: 'alt', items };
  }

  private cat(): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c /* | */ || c === 0x29 /* ) */) break;
      const atom = this.atom();
      if (atom) items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0] : items.length === 0 ? { k: 'empty' } : { k: 'cat', items };
  }

  private quantified(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === 0x2a) [min, max] = [0, -1];
      else if (c === 0x2b) [min, max] = [1, -1];
      else if (c === 0x3f) [min, max] = [0, 1];
      else if (c === 0x7b) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 16)));
        if (!m) return node; // a literal `{`, as in RE2
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) throw new Re2SyntaxError('invalid repeat count');
        this.pos += m[0].length - 1;
      } else return node;
      this.pos++;
      this.eat('?'); // lazy: same whole-value matches
      if (node.k === 'rep' || node.k === 'assert' || node.k === 'empty') {
        if (node.k !== 'rep') throw new Re2SyntaxError('missing argument to repetition operator');
        throw new Re2SyntaxError('bad repetition operator');
      }
      node = { k: 'rep', item: node, min, max };
    }
  }

  private atom(): Node | null {
    const c = this.cps[this.pos++];
    switch (c) {
      case 0x28: // (
        return this.group();
      case 0x5b: // [
        return { k: 'char', test: withCase(this.charClass(), this.flags) };
      case 0x2e: {
        const s = this.flags.s;
        return { k: 'char', test: (x) => s || x !== 10 };
      }
      case 0x5e:
        return { k: 'assert', a: this.flags.m ? 'bol' : 'bot' };
      case 0x24:
        return { k: 'assert', a: this.flags.m ? 'eol' : 'eot' };
      case 0x5c:
        if (this.cps[this.pos] === 0x51 /* Q */) return this.quoted();
        return this.escape(false) as Node;
      case 0x29:
        throw new Re2SyntaxError('unexpected )');
      case 0x2a:
      case 0x2b:
      case 0x3f:
        throw new Re2SyntaxError('missing argument to repetition operator');
      default: {
        const lit = c;
        return { k: 'char', test: withCase((x) => x === lit, this.flags) };
      }
    }
  }

  /** `\Q...\E`: literal text (to the end of the pattern when there is no `\E`). */
  private quoted(): Node {
    this.pos++;
    const items: Node[] = [];
    while (this.pos < this.cps.length && !(this.cps[this.pos] === 0x5c && this.cps[this.pos + 1] === 0x45)) {
      const lit = this.cps[this.pos++];
      items.push({ k: 'char', test: withCase((x) => x === lit, this.flags) });
    }
    if (this.pos < this.cps.length) this.pos += 2;
    return { k: 'cat', items };
  }

  private group(): Node | null {
    if (this.eat('?')) {
      if (this.eat('P') || this.peek() === 0x3c) {
        if (!this.eat('<')) throw new Re2SyntaxError('invalid named capture');
        const start = this.pos;
        while (this.peek() !== undefined && this.peek() !== 0x3e) this.pos++;
        const name = String.fromCodePoint(...this.cps.slice(start, this.pos));
        if (!this.eat('>') || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Re2SyntaxError('invalid named capture');
      } else {
        // Flags: (?flags) for the rest of the group, (?flags:...) for a sub-group.
        let on = true;
        const next: Flags = { ...this.flags };
        for (;;) {
          const f = this.cps[this.pos++];
          if (f === undefined) throw new Re2SyntaxError('missing )');
          const ch = String.fromCodePoint(f);
          if (ch === 'i' || ch === 's' || ch === 'm') next[ch] = on;
          else if (ch === 'U') continue;
          else if (ch === '-' && on) on = false;
          else if (ch === ')') {
            this.flags = next;
            return null;
          } else if (ch === ':') break;
          else throw new Re2SyntaxError('invalid or unsupported Perl syntax'); // lookarounds, backrefs...
        }
        const saved = this.flags;
        this.flags = next;
        const inner = this.alt();
        this.flags = saved;
        if (!this.eat(')')) throw new Re2SyntaxError('missing )');
        return { k: 'cat', items: [inner] }; // a group may be repeated even when it holds a repetition
      }
    }
    const saved = { ...this.flags };
    const inner = this.alt();
    this.flags = saved;
    if (!this.eat(')')) throw new Re2SyntaxError('missing )');
    return { k: 'cat', items: [inner] }; // a group may be repeated even when it holds a repetition
  }

  /** After a backslash. In a class, assertions are not allowed. */
  private escape(inClass: boolean): Node | CharTest {
    const c = this.cps[this.pos];
    if (c === undefined) throw new Re2SyntaxError('trailing backslash');
    const ch = String.fromCodePoint(c);
    const cls = (t: CharTest): Node | CharTest => (inClass ? t : { k: 'char', test: withCase(t, this.flags) });
    const classes: Record<string, CharTest> = {
      d: isDigit,
      D: (x) => !isDigit(x),
      w: isWord,
      W: (x) => !isWord(x),
      s: isSpace,
      S: (x) => !isSpace(x),
    };
    if (Object.hasOwn(classes, ch)) {
      this.pos++;
      return cls(classes[ch]);
    }
    if (ch === 'p' || ch === 'P') {
      this.pos++;
      let name = this.braced('invalid character class range');
      if (name === undefined) {
        const n = this.cps[this.pos++];
        if (n === undefined) throw new Re2SyntaxError('invalid character class range');
        name = String.fromCodePoint(n);
      }
      const negate = ch === 'P' !== name.startsWith('^');
      const t = unicodeClass(name.replace(/^\^/, ''));
      return cls(negate ? (x) => !t(x) : t);
    }
    if (ch === 'b' || ch === 'B' || ch === 'A' || ch === 'z') {
      if (inClass) throw new Re2SyntaxError('invalid escape sequence');
      this.pos++;
      return { k: 'assert', a: ch === 'b' ? 'wordb' : ch === 'B' ? 'nonwordb' : ch === 'A' ? 'bot' : 'eot' };
    }
    const cp = this.escapedCodePoint();
    return cls((x) => x === cp);
  }

  /** `{text}` at the current position: its text (braces consumed); undefined when no `{` is there. */
  private braced(error: string): string | undefined {
    if (!this.eat('{')) return undefined;
    const start = this.pos;
    while (this.peek() !== undefined && this.peek() !== 0x7d) this.pos++;
    const text = String.fromCodePoint(...this.cps.slice(start, this.pos));
    if (!this.eat('}')) throw new Re2SyntaxError(error);
    return text;
  }

  /** A single-character escape (`\n`, `\x41`, `\x{263a}`, `\.`), after the backslash. */
  private escapedCodePoint(): number {
    const c = this.cps[this.pos++];
    if (c === undefined) throw new Re2SyntaxError('trailing backslash');
    const ch = String.fromCodePoint(c);
    const controls: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
    if (Object.hasOwn(controls, ch)) return controls[ch];
    if (ch === 'x') {
      let hex = this.braced('invalid escape sequence');
      if (hex === undefined) {
        hex = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 2));
        this.pos += 2;
      }
      if (!/^[0-9A-Fa-f]{1,6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) throw new Re2SyntaxError('invalid escape sequence');
      return parseInt(hex, 16);
    }
    // Escaped punctuation is itself; other escaped letters and digits (\1 backreferences, \k...) are errors.
    if (c < 0x80 && /[A-Za-z0-9]/.test(ch)) throw new Re2SyntaxError('invalid escape sequence');
    return c;
  }

  private charClass(): CharTest {
    const negate = this.eat('^');
    const parts: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = this.cps[this.pos];
      if (c === undefined) throw new Re2SyntaxError('missing ]');
      if (c === 0x5d && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === 0x5b && this.cps[this.pos + 1] === 0x3a) {
        const rest = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 12));
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
        if (m) {
          const t = POSIX[m[2]];
          if (!t) throw new Re2SyntaxError('invalid character class range');
          parts.push(m[1] ? (x) => !t(x) : t);
          this.pos += m[0].length;
          continue;
        }
      }
      const lo = this.classAtom();
      if (typeof lo === 'function') {
        parts.push(lo);
        continue;
      }
      if (this.cps[this.pos] === 0x2d && this.cps[this.pos + 1] !== undefined && this.cps[this.pos + 1] !== 0x5d) {
        this.pos++;
        const hi = this.classAtom();
        if (typeof hi === 'function' || hi < lo) throw new Re2SyntaxError('invalid character class range');
        parts.push((x) => x >= lo && x <= hi);
      } else {
        parts.push((x) => x === lo);
      }
    }
    const any: CharTest = (x) => parts.some((p) => p(x));
    return negate ? (x) => !any(x) : any;
  }

  /** One class member: a code point, or a class escape (`\d`, `\pL`). */
  private classAtom(): number | CharTest {
    const c = this.cps[this.pos++];
    if (c !== 0x5c) return c;
    const next = this.cps[this.pos];
    if (next !== undefined && 'dDwWsSpP'.includes(String.fromCodePoint(next))) return this.escape(true) as CharTest;
    return this.escapedCodePoint();
  }
}

// ---- compiler and Pike VM -----------------------------------------------------------------

type Inst =
  | { op: 'char'; test: CharTest; next: number }
  | { op: 'assert'; a: 'bol' | 'eol' | 'bot' | 'eot' | 'wordb' | 'nonwordb'; next: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'match' };

class Compiler {
  readonly prog: Inst[] = [];

  private emit(i: Inst): number {
    if (this.prog.length >= MAX_PROGRAM) throw new Re2SyntaxError('expression too large');
    this.prog.push(i);
    return this.prog.length - 1;
  }

  /** Compiles `n`; returns the list of instruction slots to patch with the continuation. */
  compile(n: Node): void {
    switch (n.k) {
      case 'empty':
        return;
      case 'char':
        this.emit({ op: 'char', test: n.test, next: this.prog.length + 1 });
        return;
      case 'assert':
        this.emit({ op: 'assert', a: n.a, next: this.prog.length + 1 });
        return;
      case 'cat':
        for (const item of n.items) this.compile(item);
        return;
      case 'alt': {
        const jumps: number[] = [];
        for (let i = 0; i < n.items.length; i++) {
          if (i < n.items.length - 1) {
            const split = this.emit({ op: 'split', x: this.prog.length + 1, y: -1 });
            this.compile(n.items[i]);
            jumps.push(this.emit({ op: 'jmp', x: -1 }));
            (this.prog[split] as { y: number }).y = this.prog.length;
          } else {
            this.compile(n.items[i]);
          }
        }
        for (const j of jumps) (this.prog[j] as { x: number }).x = this.prog.length;
        return;
      }
      case 'rep': {
        for (let i = 0; i < n.min; i++) this.compile(n.item);
        if (n.max === -1) {
          const split = this.emit({ op: 'split', x: this.prog.length + 1, y: -1 });
          this.compile(n.item);
          this.emit({ op: 'jmp', x: split });
          (this.prog[split] as { y: number }).y = this.prog.length;
        } else {
          const splits: number[] = [];
          for (let i = n.min; i < n.max; i++) {
            splits.push(this.emit({ op: 'split', x: this.prog.length + 1, y: -1 }));
            this.compile(n.item);
          }
          for (const s of splits) (this.prog[s] as { y: number }).y = this.prog.length;
        }
        return;
      }
    }
  }
}

/** A bound on matching work shared by several matches (steps = threads stepped over characters). */
export interface Re2Budget {
  steps: number;
}

/** Thrown when a match would spend more than its budget. */
export class Re2BudgetExceeded extends Error {}

export interface Re2 {
  /** True when the pattern matches the whole of `s`. Throws Re2BudgetExceeded past the budget. */
  test(s: string, budget?: Re2Budget): boolean;
}

/** Compiles an RE2 pattern for whole-value matching. Throws Re2SyntaxError. */
export function compileRe2(pattern: string): Re2 {
  const ast = new Parser(pattern).parse();
  const c = new Compiler();
  c.compile(ast);
  c.prog.push({ op: 'match' });
  const prog = c.prog;
  return { test: (s, budget) => run(prog, s, budget) };
}

function run(prog: Inst[], s: string, budget?: Re2Budget): boolean {
  const input: number[] = [];
  for (const ch of s) input.push(ch.codePointAt(0)!);
  const n = input.length;
  const size = prog.length;
  let clist = new Int32Array(size);
  let nlist = new Int32Array(size);
  let ccount = 0;
  let ncount = 0;
  const mark = new Int32Array(size).fill(-1);
  const stack = new Int32Array(size * 2 + 2);

  /** Adds the epsilon closure of `pc` at `pos` to the next list (generation `gen`). */
  const add = (pc: number, pos: number, gen: number): void => {
    let sp = 0;
    stack[sp++] = pc;
    while (sp > 0) {
      const p = stack[--sp];
      if (mark[p] === gen) continue;
      mark[p] = gen;
      const inst = prog[p];
      if (inst.op === 'jmp') stack[sp++] = inst.x;
      else if (inst.op === 'split') {
        stack[sp++] = inst.y;
        stack[sp++] = inst.x;
      } else if (inst.op === 'assert') {
        const prev = pos > 0 ? input[pos - 1] : -1;
        const next = pos < n ? input[pos] : -1;
        const wb = (prev >= 0 && isWord(prev)) !== (next >= 0 && isWord(next));
        const a = inst.a;
        const ok =
          a === 'bot' ? pos === 0
          : a === 'eot' ? pos === n
          : a === 'bol' ? pos === 0 || prev === 10
          : a === 'eol' ? pos === n || next === 10
          : a === 'wordb' ? wb
          : !wb;
        if (ok) stack[sp++] = inst.next;
      } else nlist[ncount++] = p;
    }
  };

  add(0, 0, 0);
  [clist, nlist] = [nlist, clist];
  ccount = ncount;
  ncount = 0;
  for (let pos = 0; pos < n; pos++) {
    if (ccount === 0) return false;
    if (budget && (budget.steps -= ccount) < 0) throw new Re2BudgetExceeded('regex budget exceeded');
    const c = input[pos];
    for (let i = 0; i < ccount; i++) {
      const inst = prog[clist[i]];
      if (inst.op === 'char' && inst.test(c)) add(inst.next, pos + 1, pos + 1);
    }
    [clist, nlist] = [nlist, clist];
    ccount = ncount;
    ncount = 0;
  }
  for (let i = 0; i < ccount; i++) if (prog[clist[i]].op === 'match') return true;
  return false;
}
