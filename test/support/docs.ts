/**
 * The user documentation as the tests read it: README.md and the pages under docs/, in the order a
 * reader follows them (the examples of a page may use what an earlier page's examples made), and
 * their fenced code blocks with the `<!-- readme.test.ts: DIRECTIVE ... -->` comment before each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md, then every page of docs/ in reading order (README.md's documentation list). */
export const DOC_PAGES = [
  'README.md',
  'docs/clients.md',
  'docs/gcloud.md',
  'docs/api-keys.md',
  'docs/admin-api.md',
  'docs/faults-and-journal.md',
  'docs/world.md',
  'docs/media.md',
  'docs/compute.md',
  'docs/console.md',
  'docs/fixture.md',
  'docs/operations.md',
  'docs/differences.md',
  'docs/benchmarks.md',
  'docs/development.md',
];

export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The directive of a `<!-- readme.test.ts: DIRECTIVE ... -->` comment ending on the line before the fence. */
  annotation?: string;
  /** The comment's text after the directive (why the block runs as it does). */
  note?: string;
}

/** The fenced code blocks of a Markdown text, in order, with their readme.test.ts annotation. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = markdown.split('\n');
  let comment: { directive: string; note: string; endLine: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const note = /^<!-- readme\.test\.ts: ([\w-]+)/.exec(lines[i]);
    if (note) {
      let end = i;
      while (end < lines.length && !lines[end].includes('-->')) end++;
      const text = lines.slice(i, end + 1).join(' ').slice(note[0].length).replace(/-->.*$/, '').replace(/^[.:,]?\s*/, '').trim();
      comment = { directive: note[1], note: text, endLine: end };
      i = end;
      continue;
    }
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const annotated = comment && comment.endLine === start - 1 ? comment : undefined;
    out.push({ lang: open[1], code: body.join('\n') + '\n', line: start + 1, ...(annotated && { annotation: annotated.directive, note: annotated.note }) });
  }
  return out;
}

export interface PageBlock extends CodeBlock {
  /** The page, relative to the repository root (`README.md`, `docs/clients.md`). */
  file: string;
}

/** Every fenced block of every page, pages in reading order. */
export function docBlocks(): PageBlock[] {
  return DOC_PAGES.flatMap((file) => codeBlocks(readFileSync(join(ROOT, file), 'utf8')).map((b) => ({ ...b, file })));
}

/** The text of every page, in reading order. */
export function docsText(): string {
  return DOC_PAGES.map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
}
