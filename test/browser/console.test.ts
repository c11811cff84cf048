/// <reference lib="dom" />
/**
 * The web console in headless chromium, as a person uses it: sign in, keys (create, restrict,
 * show and copy, copy, rotate, delete and restore), a template with a bad field, a search paged
 * through. Screenshots are kept in `test-artifacts/console/`.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium } from '../support/browser.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { CAROL, DEMO, testWorld } from '../support/world.ts';
import { createKey } from '../http/helpers.ts';

const skip = browserUnavailable();
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;

/** A small catalogue, so that a search has pages to walk. */
const media = {
  channels: [{ kind: 'youtube#channel', id: 'UCconsolechannel00000001', snippet: { title: 'Console Channel', description: 'Songs', publishedAt: '2024-01-01T00:00:00Z' } }],
  videos: Array.from({ length: 12 }, (_, i) => ({
    kind: 'youtube#video',
    id: `consoleVid${String(i).padStart(2, '0')}`,
    snippet: { title: `Music video ${i}`, description: `A music video number ${i}`, channelId: 'UCconsolechannel00000001', channelTitle: 'Console Channel', publishedAt: `2024-02-${String(i + 1).padStart(2, '0')}T00:00:00Z` },
    contentDetails: { duration: 'PT3M20S', definition: 'hd', dimension: '2d', caption: 'false', licensedContent: false },
    status: { privacyStatus: 'public', license: 'youtube', embeddable: true },
    statistics: { viewCount: String(1000 - i), likeCount: '10', commentCount: '1' },
  })),
};

describe('the console in a browser', { skip }, () => {
  let t: TestTwin;
  let url: string;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestTwin({ world: { ...testWorld, media } });
    url = (await t.twin.app.listen({ host: '127.0.0.1', port: 0 })) + '/console/';
    chromium = await launchChromium();
    context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // A failed HTTP answer (the API errors these flows provoke) or an unreachable thumbnail is
      // logged by the browser itself; anything else is the console's own problem.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console error: ${msg.text()}`);
    });
    page.on('dialog', (d) => void d.accept());
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  const row = (keyId: string) => page.locator(`tr[data-key="${keyId}"]`);
  const keyIds = async () => page.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')!));

  it('signs in with the admin token as a principal of the world', async () => {
    await page.goto(url);
    await page.getByLabel('Admin token').fill(t.twin.adminToken);
    await page.getByRole('button', { name: 'Load principals' }).click();
    await shot('00-principals');
    await page.locator('select[name=principal]').selectOption(CAROL);
    await page.locator('select[name=project]').selectOption(DEMO.projectId);
    await shot('01-sign-in');
    await page.getByRole('button', { name: /^Sign in as/ }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText(`No keys in ${DEMO.projectId}.`).waitFor();
  });

  it('creates a key and shows its string', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Display name').fill('Browser key');
    await page.getByRole('button', { name: 'Create key' }).last().click();
    const keyString = await page.getByLabel('Key string').inputValue();
    assert.match(keyString, /^AIza[0-9A-Za-z_-]{35}$/);
    await shot('02-created');
    await page.keyboard.press('Escape');
    assert.equal((await keyIds()).length, 1);
  });

  it('restricts it to a referrer; a bad pattern is refused inline by the server rules', async () => {
    const [id] = await keyIds();
    await row(id).getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Websites').check();
    await page.getByLabel(/allowed referrers/).fill('exa*mple.com/*');
    await page.getByText(/line 1: Invalid referrer pattern/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true);
    await shot('03-invalid-referrer');
    await page.getByLabel(/allowed referrers/).fill('example.com/*\n*.example.com/*');
    await page.getByRole('button', { name: 'Save' }).click();
    await row(id).getByText('websites (2)').waitFor();
  });

  it('shows the key string and copies it to the clipboard', async () => {
    const [id] = await keyIds();
    await row(id).getByRole('button', { name: 'Show key' }).click();
    const shown = await page.getByLabel('Key string').inputValue();
    await page.getByRole('button', { name: 'Copy to clipboard' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
    await page.keyboard.press('Escape');
  });

  it('copies a key: a new key with the same restrictions', async () => {
    const [id] = await keyIds();
    await row(id).getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copy of Browser key').waitFor();
    const ids = await keyIds();
    assert.equal(ids.length, 2);
    const copy = ids.find((k) => k !== id)!;
    await row(copy).getByText('websites (2)').waitFor();
  });

  it('rotates a key, then finishes the rotation (the old key is deleted)', async () => {
    const before = await keyIds();
    const old = before[before.length - 1];
    await row(old).getByRole('button', { name: 'Rotate' }).click();
    await row(old).getByText(/^Rotating → /).waitFor();
    const fresh = (await keyIds()).filter((k) => !before.includes(k));
    assert.equal(fresh.length, 1);
    await row(old).getByText(`Rotating → ${fresh[0]}`).waitFor();
    await shot('04-rotating');
    await row(old).getByRole('button', { name: 'Finish rotation' }).click();
    await row(old).waitFor({ state: 'detached' });
    assert.ok((await keyIds()).includes(fresh[0]));
  });

  it('deletes a key and restores it within 30 days', async () => {
    const [id] = await keyIds();
    await row(id).getByRole('button', { name: 'Delete' }).click();
    await row(id).waitFor({ state: 'detached' });
    await page.getByLabel('Show deleted').check();
    await row(id).getByText(/^Deleted · 29 d 23 h left to restore$/).waitFor();
    await shot('05-deleted');
    await row(id).getByRole('button', { name: 'Restore' }).click();
    await row(id).getByText('Active').waitFor();
  });

  it('can be driven from the keyboard', async () => {
    await page.getByRole('link', { name: 'API keys' }).focus();
    let reached = false;
    const seen: string[] = [];
    for (let i = 0; i < 15 && !reached; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => `${document.activeElement?.tagName}:${document.activeElement?.textContent}`);
      seen.push(focused);
      reached = focused === 'BUTTON:Create key';
    }
    assert.ok(reached, `Create key is reachable with Tab; focus went ${seen.join(' > ')}`);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Create API key' }).waitFor();
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name), 'displayName');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('creates a template with a bad field and shows the error on that field', async () => {
    await page.getByRole('link', { name: 'Instance templates' }).click();
    // The region picker lists what regions.list answers (not a list built into the console).
    await page.locator('select[aria-label="Region"] option[value="europe-west1"], select[aria-label="Region"] option:text-is("europe-west1")').first().waitFor({ state: 'attached' });
    assert.ok((await page.locator('select[aria-label="Region"] option').count()) > 30);
    await page.getByRole('button', { name: 'Create template' }).click();
    const editor = page.getByLabel('Instance template JSON');
    const body = JSON.parse(await editor.inputValue());
    body.name = 'Bad_Name';
    await editor.fill(JSON.stringify(body, null, 2));
    await page.getByRole('button', { name: /^Create in / }).click();
    const pinned = page.locator('li[data-field="resource.name"]');
    await pinned.waitFor();
    assert.match(await pinned.innerText(), /line 2 · name/);
    await shot('06-template-error');
    body.name = 'console-web';
    await editor.fill(JSON.stringify(body, null, 2));
    await page.getByRole('button', { name: /^Create in / }).click();
    await page.locator('tr[data-template="console-web"]').waitFor();
  });

  it('runs a search and pages through it', async () => {
    await page.getByRole('link', { name: 'Search playground' }).click();
    // An API key of the project: its searches are charged to the project's quota, shown beside the form.
    const key = await createKey(t, { keyId: 'playground-key' });
    await page.getByLabel(/^API key/).fill(key.keyString);
    await page.getByLabel('q', { exact: true }).fill('music');
    await page.getByLabel('maxResults (0-50)').fill('5');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.result-card').first().waitFor();
    const first = await page.locator('.result-card .title').allInnerTexts();
    assert.equal(first.length, 5);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForFunction((prev) => document.querySelector('.result-card .title')?.textContent !== prev, first[0]);
    const second = await page.locator('.result-card .title').allInnerTexts();
    assert.equal(second.filter((x) => first.includes(x)).length, 0);
    // Two searches of 100 units each, from the default 10,000.
    await page.getByText('9800 of 10000 quota units left today').waitFor();
    await shot('07-search');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.waitForFunction((prev) => document.querySelector('.result-card .title')?.textContent === prev, first[0]);
    // Unreachable thumbnails (no network) become generated placeholders.
    await page.waitForFunction(() => [...document.querySelectorAll('.result-card img')].every((i) => (i as HTMLImageElement).src.startsWith('data:') || (i as HTMLImageElement).naturalWidth > 0));
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.locator('tr[data-key]').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone screen`);
    await shot('08-phone');
  });

  it('logged no errors of its own', () => {
    assert.deepEqual(problems, []);
  });
});
