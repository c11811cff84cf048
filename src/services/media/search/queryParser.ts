import type { ParsedQuery, QueryAtom } from '../catalog/types.ts';
import { words } from './text.ts';

/** Longest `q` considered (characters); the rest is ignored. */
export const MAX_QUERY_LENGTH = 500;
/** Most atoms (terms and phrases, counting OR alternatives and exclusions) in one query. */
export const MAX_QUERY_ATOMS = 32;
/** Most words in one phrase. */
export const MAX_PHRASE_WORDS = 16;

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
  /** The token is joined to the previous one by `|`. */
  orWithPrevious: boolean;
}

/**
 * Parses the `q` grammar of search.list into clauses: whitespace-separated terms are ANDed,
 * `a|b` (or `a | b`) are alternatives, `-term` and `-"a phrase"` exclude, `"quoted words"`
 * are phrases, and a term that folds into several words (`rock-n-roll`) is a phrase of them.
 * Case and accents are folded. The result is data, never SQL or full-text syntax. Never throws.
 */
export function parseQuery(q: string): ParsedQuery {
  const parsed: ParsedQuery = { clauses: [], excluded: [] };
  if (typeof q !== 'string') return parsed;
  let atoms = 0;
  let previous: { alternatives: QueryAtom[] } | undefined;
  for (const t of tokenize(q.slice(0, MAX_QUERY_LENGTH))) {
    if (atoms >= MAX_QUERY_ATOMS) break;
    const w = words(t.text, MAX_PHRASE_WORDS);
    if (w.length === 0) continue;
    const atom: QueryAtom = { words: w };
    atoms++;
    if (t.negated) {
      parsed.excluded.push(atom);
      previous = undefined;
    } else if (t.orWithPrevious && previous) {
      if (!previous.alternatives.some((a) => sameAtom(a, atom))) previous.alternatives.push(atom);
    } else {
      previous = { alternatives: [atom] };
      parsed.clauses.push(previous);
    }
  }
  return parsed;
}

function sameAtom(a: QueryAtom, b: QueryAtom): boolean {
  return a.words.length === b.words.length && a.words.every((w, i) => w === b.words[i]);
}

/** Splits on whitespace and `|`, keeping quoted runs together; `-` right before a term or quote negates it. */
function* tokenize(q: string): Generator<Token> {
  let i = 0;
  let pendingOr = false;
  const n = q.length;
  while (i < n) {
    const c = q[i];
    if (c === '|') {
      pendingOr = true;
      i++;
      continue;
    }
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    let negated = false;
    if (c === '-' && i + 1 < n && !/[\s|]/u.test(q[i + 1])) {
      negated = true;
      i++;
    }
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      const stop = end < 0 ? n : end;
      yield { text: q.slice(i + 1, stop), quoted: true, negated, orWithPrevious: pendingOr };
      i = stop + 1;
    } else {
      let j = i;
      while (j < n && q[j] !== '|' && q[j] !== '"' && !/\s/u.test(q[j])) j++;
      yield { text: q.slice(i, j), quoted: false, negated, orWithPrevious: pendingOr };
      i = j;
    }
    pendingOr = false;
  }
}

/** The query's text form for logs and tests: `a (b|c) "d e" -f`. */
export function describeQuery(p: ParsedQuery): string {
  const atom = (a: QueryAtom) => (a.words.length > 1 ? `"${a.words.join(' ')}"` : a.words[0]);
  const parts = p.clauses.map((c) => (c.alternatives.length > 1 ? `(${c.alternatives.map(atom).join('|')})` : atom(c.alternatives[0])));
  for (const e of p.excluded) parts.push(`-${atom(e)}`);
  return parts.join(' ');
}
