/// <reference lib="dom" />
/**
 * Layout checks of the console's pages in a browser, by bounding boxes: what a person sees at the
 * viewport's size, not what the DOM holds.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** Every section link, the project field and the principal fit one header row (one band crosses them all). */
export async function assertHeaderOnOneRow(page: Page, where: string): Promise<void> {
  const oneRow = await page.locator('header.top').evaluate((h) => {
    const boxes = [...h.querySelectorAll('a, input, button, .principal')].map((e) => e.getBoundingClientRect());
    return Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
  });
  assert.ok(oneRow, `the header takes more than one row on ${where}`);
}

/**
 * The Requests page as seen: its table's right edge within the viewport and nothing in it
 * scrolled out of sight (no horizontal overflow of the table or the page), every column header
 * (the Fault column's too) wholly in sight, and the Live toggle's box and label on one line.
 */
export async function assertRequestsLayout(page: Page): Promise<void> {
  const seen = await page.evaluate(() => {
    const viewport = document.documentElement.clientWidth;
    const wrap = document.querySelector('.table-wrap')!;
    const table = wrap.querySelector('table')!.getBoundingClientRect();
    const headers = [...wrap.querySelectorAll('th')].map((th) => {
      const r = th.getBoundingClientRect();
      return { text: th.textContent, left: r.left, right: r.right };
    });
    const live = [...document.querySelectorAll('label')].find((l) => l.textContent?.trim() === 'Live')!;
    const box = live.querySelector('input')!.getBoundingClientRect();
    const text = document.createRange();
    text.selectNodeContents(live);
    const label = [...text.getClientRects()].filter((r) => r.width > 0 && (r.left >= box.right || r.right <= box.left));
    return {
      viewport,
      tableRight: table.right,
      wrapOverflow: wrap.scrollWidth - wrap.clientWidth,
      pageOverflow: document.documentElement.scrollWidth - viewport,
      wrapRight: wrap.getBoundingClientRect().right,
      headers,
      box: { top: box.top, bottom: box.bottom, right: box.right },
      label: label.map((r) => ({ top: r.top, bottom: r.bottom, left: r.left })),
    };
  });
  assert.ok(seen.tableRight <= seen.viewport, `the table's right edge is at ${seen.tableRight}px, past the ${seen.viewport}px viewport`);
  assert.ok(seen.wrapOverflow <= 0, `the table scrolls sideways by ${seen.wrapOverflow}px`);
  assert.ok(seen.pageOverflow <= 0, `the page scrolls sideways by ${seen.pageOverflow}px`);
  const visibleRight = Math.min(seen.viewport, seen.wrapRight);
  for (const h of seen.headers) assert.ok(h.left >= 0 && h.right <= visibleRight + 0.5, `column ${h.text} is out of sight (${h.left}-${h.right}px, visible up to ${visibleRight}px)`);
  assert.ok(seen.headers.some((h) => h.text === 'Fault'), 'a Fault column');
  // The label's text sits beside its box, on the same line (its middle within the box's height).
  assert.ok(seen.label.length > 0, 'the Live label has text beside its box');
  for (const r of seen.label) {
    const middle = (r.top + r.bottom) / 2;
    assert.ok(middle > seen.box.top && middle < seen.box.bottom && r.left >= seen.box.right, `the Live label (${JSON.stringify(r)}) is not beside its box (${JSON.stringify(seen.box)})`);
  }
}

/** The texts of one column of the page's table, by header. */
export async function columnTexts(page: Page, header: string): Promise<string[]> {
  return page.locator('.table-wrap table').evaluate((table, h) => {
    const i = [...table.querySelectorAll('th')].findIndex((th) => th.textContent === h);
    return [...table.querySelectorAll('tbody tr')].map((tr) => (tr.children[i] as HTMLElement).innerText.trim());
  }, header);
}
