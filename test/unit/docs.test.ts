/**
 * The user documentation holds together: every page under docs/ is in DOC_PAGES (so its examples
 * run in test/compat/readme.test.ts), every relative link points at a file that exists and, with a
 * `#fragment`, at a heading of that page, and no page names the project's own history (work
 * sessions, rounds, issue numbers): a user has none of them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import { DOC_PAGES, ROOT } from '../support/docs.ts';

/** Markdown without its fenced blocks and code spans (a link or a heading there is not one). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, ... */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^```[\s\S]*?^```\s*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a page: `[text](target)`, targets that are not URLs. */
export function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** Mentions of the project's own history: "session 8", "round 3", "issue 27", "#27". */
export function historyMentions(text: string): string[] {
  const words = [...text.matchAll(/\b(?:sessions?|rounds?|issues?)\s+#?\d+(?![.\d])/gi)].map((m) => m[0]);
  const refs = [...text.matchAll(/(?<![\w&/#])#\d+\b/g)].map((m) => m[0]);
  return [...words, ...refs];
}

describe('user docs', () => {
  test('every page under docs/ is read, in DOC_PAGES, and README.md comes first', () => {
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    for (const page of pages) assert.ok(DOC_PAGES.includes(page), `${page} is not in DOC_PAGES (test/support/docs.ts)`);
    for (const page of DOC_PAGES) assert.ok(existsSync(join(ROOT, page)), `${page} in DOC_PAGES does not exist`);
    assert.equal(DOC_PAGES[0], 'README.md');
  });

  test('every relative link resolves to a file, and its #fragment to a heading there', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of DOC_PAGES) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const link of relativeLinks(text)) {
        checked++;
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path ? normalize(join(dirname(page), decodeURI(path))) : page;
        if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
          broken.push(`${page}: ${link} (no file ${target})`);
          continue;
        }
        if (fragment === undefined) continue;
        if (!target.endsWith('.md')) {
          broken.push(`${page}: ${link} (a fragment on a file that is not Markdown)`);
          continue;
        }
        const anchors = headingAnchors(readFileSync(join(ROOT, target), 'utf8'));
        if (!anchors.has(fragment)) broken.push(`${page}: ${link} (no heading #${fragment} in ${relative('.', target)})`);
      }
    }
    assert.ok(checked >= 30, `only ${checked} links checked`);
    assert.deepEqual(broken, []);
  });

  test('no page names work sessions, rounds or issue numbers', () => {
    const found = DOC_PAGES.flatMap((page) => historyMentions(readFileSync(join(ROOT, page), 'utf8')).map((m) => `${page}: ${m}`));
    assert.deepEqual(found, []);
  });

  test('the helpers find what they look for', () => {
    assert.deepEqual(
      [...headingAnchors('# Title\n## `cloudtwin serve`\n```sh\n# not a heading\n```\n## Browsers (CORS)\n## Browsers (CORS)\n### bench:media-enforcement\n')],
      ['title', 'cloudtwin-serve', 'browsers-cors', 'browsers-cors-1', 'benchmedia-enforcement'],
    );
    assert.deepEqual(relativeLinks('[a](b.md) [c](https://x.y/z) [d](#e) `[f](g.md)`\n```\n[h](i.md)\n```\n[j](k.md#l "title")'), ['b.md', '#e', 'k.md#l']);
    assert.deepEqual(historyMentions('In session 9 (issue 25, round 2; see #27) the p99 per round 0.95 - 2.38 and 20 rounds of 100,000; x&#27;'), ['session 9', 'issue 25', 'round 2', '#27']);
  });
});
