/// <reference lib="dom" />
/**
 * The console's admin pages in headless chromium: a fault rule added on the Faults page makes the
 * API keys page show the injected error; the Requests page shows that call, marked, live; a rule
 * is deleted from its row and the journal cleared.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium, signInAsPrincipal, watchConsolePage } from '../support/browser.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { assertRequestsLayout, columnTexts } from '../support/consoleLayout.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

const skip = browserUnavailable();
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;

describe('the console: Faults and Requests pages', { skip }, () => {
  let t: TestTwin;
  let url: string;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let problems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestTwin();
    url = (await t.twin.app.listen({ host: '127.0.0.1', port: 0 })) + '/console/';
    chromium = await launchChromium();
    context = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    ({ problems } = watchConsolePage(page));
    await signInAsPrincipal(page, url, t.twin.adminToken, ALICE, DEMO.projectId);
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('adds a rule; the keys page shows the injected error; the journal shows the call, marked; delete and clear', async () => {
    await page.getByRole('link', { name: 'Faults' }).click();
    await page.getByRole('heading', { name: 'Faults' }).waitFor();
    await page.getByText('No fault rules').waitFor();
    await page.getByLabel('Method', { exact: true }).fill('apikeys.projects.locations.keys.list');
    await page.getByLabel('Action').selectOption('error');
    await page.getByLabel('Status', { exact: true }).selectOption('RESOURCE_EXHAUSTED');
    await page.getByLabel('Reason').fill('rateLimitExceeded');
    await page.getByLabel('When').selectOption('next');
    await page.getByLabel('Count').fill('1');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByText('error RESOURCE_EXHAUSTED · rateLimitExceeded').waitFor();
    // Read once the page shows the rule (the click only sends the request).
    const rules = (await t.admin('GET', '/_twin/v1/faults')).json().faults;
    assert.equal(rules.length, 1);
    assert.deepEqual(rules[0].action, { type: 'error', status: 'RESOURCE_EXHAUSTED', reason: 'rateLimitExceeded' });
    assert.deepEqual(rules[0].when, { next: 1 });

    await page.getByRole('link', { name: 'API keys' }).first().click();
    await page.getByRole('alert').getByText(/429/).waitFor();

    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    const faulted = page.locator('tr.faulted');
    await faulted.first().waitFor();
    assert.match(await faulted.first().innerText(), /apikeys\.projects\.locations\.keys\.list[\s\S]*429 RESOURCE_EXHAUSTED\s+rateLimitExceeded[\s\S]*error\s+f-/);
    // live: a call made elsewhere appears without a reload; this one names a key the way the API
    // names keys (by the project's number), and is shown by the project's id like the others.
    await t.call(ALICE, { method: 'GET', url: `/v2/projects/${DEMO.projectNumber}/locations/global/keys/not-there` });
    await page.getByText('apikeys.projects.locations.keys.get').first().waitFor();
    await page.getByRole('checkbox', { name: 'Live' }).uncheck(); // a still table to measure
    assert.deepEqual([...new Set(await columnTexts(page, 'Project'))], [DEMO.projectId]);
    // At 1280x800, with a faulted call and an error in it, every column is in sight.
    await assertRequestsLayout(page);
    await page.screenshot({ path: `${ARTIFACTS}requests-faulted-1280x800.png` });
    await page.getByRole('checkbox', { name: 'Live' }).check();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('No calls yet.').waitFor({ timeout: 5000 }).catch(async () => {
      // the page's own polling may record nothing more; the journal itself must be empty of the earlier calls
      assert.equal((await t.admin('GET', '/_twin/v1/requests?method=apikeys.projects.locations.keys.get')).json().requests.length, 0);
    });

    await page.getByRole('link', { name: 'Faults' }).click();
    await page.getByRole('button', { name: `Delete rule ${rules[0].id}` }).click();
    await page.getByText('No fault rules').waitFor();
    assert.deepEqual((await t.admin('GET', '/_twin/v1/faults')).json().faults, []);
  });

  it('logged no errors of its own', () => {
    assert.deepEqual(problems, []);
  });
});
