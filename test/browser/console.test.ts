/// <reference lib="dom" />
/**
 * The web console in headless chromium, as a person uses it: sign in (a token is checked first),
 * in the README's world; keys (create, restrict, API targets typed or listed, show and copy,
 * duplicate, rotate, delete and restore, each credential action confirmed); a template with a bad
 * field and one whose operation fails; a search paged through; an unknown route. Every page is
 * photographed at 1280x800 and 390x844 (phone) into `test-artifacts/console/`. One browser serves
 * the whole suite.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium, watchConsolePage } from '../support/browser.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { assertHeaderOnOneRow, assertRequestsLayout, columnTexts } from '../support/consoleLayout.ts';
import { docsText } from '../support/docs.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE, CI_SA, DEMO, LOOSE, testWorld } from '../support/world.ts';
import { createKey } from '../http/helpers.ts';

const skip = browserUnavailable();
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** The YAML world documents the README and docs apply, in reading order. */
const readmeWorlds = [...docsText().matchAll(/world:apply[^\n]*<<'YAML'\n([\s\S]*?)\nYAML\n/g)].map((m) => m[1]);

/** A title of one very long word: the cards must wrap it, not overflow. */
const LONG_WORD = 'Supercalifragilisticexpialidocious'.repeat(5);

/** A small catalogue, so that a search has pages to walk. */
const media = {
  channels: [{ kind: 'youtube#channel', id: 'UCconsolechannel00000001', snippet: { title: 'Console Channel', description: 'Songs', publishedAt: '2024-01-01T00:00:00Z' } }],
  videos: [
    ...Array.from({ length: 12 }, (_, i) => ({ id: `consoleVid${String(i).padStart(2, '0')}`, title: `Music video ${i}`, description: `A music video number ${i}` })),
    { id: 'consoleLong1', title: LONG_WORD, description: `${LONG_WORD} ${LONG_WORD}` },
  ].map((v, i) => ({
    kind: 'youtube#video',
    id: v.id,
    snippet: { title: v.title, description: v.description, channelId: 'UCconsolechannel00000001', channelTitle: 'Console Channel', publishedAt: `2024-02-${String(i + 1).padStart(2, '0')}T00:00:00Z` },
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
  let problems: string[] = [];
  /** Every API request the page made, as `METHOD path?query`. */
  let requests: string[] = [];

  const applyYaml = async (yaml: string) => {
    const res = await t.twin.app.inject({ method: 'POST', url: '/_twin/v1/world:apply', payload: yaml, headers: { authorization: `Bearer ${t.twin.adminToken}`, 'content-type': 'application/yaml' } });
    assert.equal(res.statusCode, 200, res.body);
  };

  before(async () => {
    ensureConsoleBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestTwin({ world: { ...testWorld, media } });
    // The quick start's world, as a README reader has it when first opening the console.
    assert.ok(readmeWorlds.length >= 2, 'the README and docs apply their worlds with world:apply heredocs');
    await applyYaml(readmeWorlds[0]);
    url = (await t.twin.app.listen({ host: '127.0.0.1', port: 0 })) + '/console/';
    chromium = await launchChromium();
    context = await chromium.browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    ({ problems, requests } = watchConsolePage(page));
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  /** A screenshot at both sizes (back at the desktop size after), and the phone layout fits its screen. */
  const shots = async (name: string, { fullPage = true } = {}) => {
    await page.screenshot({ path: `${ARTIFACTS}${name}-1280x800.png`, fullPage });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: `${ARTIFACTS}${name}-390x844.png`, fullPage });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.setViewportSize(DESKTOP);
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the phone screen`);
  };
  const row = (keyId: string) => page.locator(`tr[data-key="${keyId}"]`);
  const keyIds = async () => page.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')!));
  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const status = () => page.locator('.status-line');
  /** How many lines each matching inline element is laid out on. */
  const lineCounts = (selector: string) => page.locator(selector).evaluateAll((els) => els.map((e) => e.getClientRects().length));
  /** Confirms the credential action a button asks about, checking it asked first. */
  const confirmAction = async (title: string | RegExp, action: string) => {
    const d = dialog(title);
    await d.waitFor();
    await d.getByRole('button', { name: action, exact: true }).click();
    await d.waitFor({ state: 'detached' });
  };

  /** Ids and button labels never broken; a row's actions on one line on a desktop, all in sight. */
  const assertRowLayout = async () => {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const n of await lineCounts('tr[data-key] code.id, .status-line .nowrap')) assert.equal(n, 1, `an id wraps at ${size.width}px`);
      const rows = await page.locator('tr[data-key] .row-actions').evaluateAll((boxes) =>
        boxes.map((b) => {
          const buttons = [...b.querySelectorAll('button')].map((x) => x.getBoundingClientRect());
          // The right edge the buttons must stay within: the screen's, or the list's when it scrolls.
          const visible = Math.min(document.documentElement.clientWidth, b.closest('.table-wrap')!.getBoundingClientRect().right);
          return { lines: new Set(buttons.map((r) => Math.round(r.top))).size, tallest: Math.max(...buttons.map((r) => r.height)), lowest: Math.min(...buttons.map((r) => r.height)), past: Math.max(...buttons.map((r) => r.right)) - visible };
        }),
      );
      for (const r of rows) {
        // A label broken over two lines makes its button taller than the others.
        assert.ok(r.tallest - r.lowest < 4, `a button label wraps at ${size.width}px`);
        assert.ok(r.past <= 0, `a button is ${r.past}px out of sight at ${size.width}px`);
        // On a phone a row is a card whose buttons may flow onto a second line, each whole.
        if (size === DESKTOP) assert.equal(r.lines, 1, "a row's action buttons wrap on a desktop");
      }
    }
    await page.setViewportSize(DESKTOP);
  };

  it('refuses a token the APIs refuse, and a project the token cannot use', async () => {
    await page.goto(url);
    await shots('00-sign-in');
    await page.getByLabel('Access token').fill('ya29.not-a-token');
    await page.getByLabel('Project id').fill(DEMO.projectId);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').getByText(/This access token was refused/).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0, 'not signed in');

    await page.getByLabel('Access token').fill(await t.token(ALICE));
    await page.getByLabel('Project id').fill('no-such-project');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').getByText(/Project no-such-project does not exist, or this token may use none of its APIs/).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0, 'not signed in');
    await shots('01-sign-in-refused');

    // A good token and project sign in; signing out again for the admin-token path.
    await page.getByLabel('Project id').fill(DEMO.projectId);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('signs in with the admin token as a principal of the world', async () => {
    await page.getByLabel('Admin token').fill(t.twin.adminToken);
    await page.getByRole('button', { name: 'Load principals' }).click();
    await page.locator('select[name=principal]').selectOption(ALICE);
    await page.locator('select[name=project]').selectOption(DEMO.projectId);
    await shots('02-principals');
    await page.getByRole('button', { name: /^Sign in as/ }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText(`No keys in ${DEMO.projectId}.`).waitFor();
    // Every section, the project and the principal fit one header row on a desktop.
    await assertHeaderOnOneRow(page, 'the keys page');
    await shots('03-keys-empty');
  });

  it("opens Create key in the README's world with the project's APIs listed, no error", async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const d = dialog('Create API key');
    await d.getByRole('checkbox', { name: /apikeys\.googleapis\.com/ }).waitFor();
    assert.equal(await d.getByRole('alert').count(), 0, 'no error in the dialog');
    assert.equal(await d.getByTestId('services-unreadable').count(), 0);
    await shots('04-create-key');
  });

  it('flags a service account that is not an e-mail as the user types', async () => {
    const d = dialog('Create API key');
    await d.getByLabel(/^Service account/).fill('ci-robot');
    await d.getByText(/Not an e-mail address/).waitFor();
    assert.equal(await d.getByRole('button', { name: 'Create key' }).isDisabled(), true);
    await d.getByLabel(/^Service account/).fill(CI_SA);
    assert.equal(await d.getByText(/Not an e-mail address/).count(), 0);
    await d.getByLabel(/^Service account/).fill('');
  });

  it('shows an error of the API once: in the dialog, not again behind it', async () => {
    const d = dialog('Create API key');
    await d.getByLabel('Display name').fill('Bound key');
    await d.getByLabel(/^Service account/).fill(CI_SA);
    await d.getByRole('button', { name: 'Create key' }).click();
    // demo-project's organization enforces the constraint that forbids bound keys.
    await d.getByRole('alert').getByText(/organization policy/).waitFor();
    assert.equal(await page.getByRole('alert').count(), 1, 'the error is shown once');
    assert.equal(await page.locator('.operation').count(), 0, 'no operation status behind the dialog');
    await d.getByLabel(/^Service account/).fill('');
  });

  it('creates a key, says so, and shows its string in a dialog named for it', async () => {
    const d = dialog('Create API key');
    await d.getByLabel('Display name').fill('Browser key');
    await d.getByRole('button', { name: 'Create key' }).click();
    const shown = dialog('Key string of Browser key');
    const keyString = await shown.getByLabel('Key string', { exact: true }).inputValue();
    assert.match(keyString, /^AIza[0-9A-Za-z_-]{35}$/);
    await shots('05-key-string');
    await page.keyboard.press('Escape');
    await status().getByText('Created key Browser key').waitFor();
    assert.equal((await keyIds()).length, 1);
  });

  it('restricts it to referrers; a bad pattern is refused inline by the server rules', async () => {
    const [id] = await keyIds();
    await row(id).getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Websites').check();
    await page.getByLabel(/allowed referrers/).fill('exa*mple.com/*');
    await page.getByText(/line 1: Invalid referrer pattern/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true);
    await shots('06-invalid-referrer');
    await page.getByLabel(/allowed referrers/).fill('example.com/*\n*.example.com/*');
    await page.getByRole('button', { name: 'Save' }).click();
    await row(id).getByText('Websites (2)').waitFor();
    await status().getByText('Updated key Browser key').waitFor();
  });

  it('edit shows every API target of a key, also one not in the services list, and removes it', async () => {
    await createKey(t, { keyId: 'translate-only', body: { displayName: 'Translate key', restrictions: { apiTargets: [{ service: 'translate.googleapis.com', methods: ['Get*'] }] } } });
    await page.getByRole('link', { name: 'Compute Engine' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await row('translate-only').getByText('APIs (1): translate.googleapis.com').waitFor();
    await row('translate-only').getByRole('button', { name: 'Edit' }).click();
    const d = dialog('Edit key Translate key');
    const target = d.getByRole('checkbox', { name: /translate\.googleapis\.com/ });
    await target.waitFor();
    assert.equal(await target.isChecked(), true);
    assert.equal(await d.getByLabel('Methods of translate.googleapis.com').inputValue(), 'Get*');
    await d.getByRole('checkbox', { name: /apikeys\.googleapis\.com/ }).waitFor(); // the listed ones too
    await shots('07-edit-targets');
    await target.uncheck();
    await d.getByRole('button', { name: 'Save' }).click();
    await row('translate-only').getByText('Unrestricted').waitFor();
  });

  it('shows the key string and copies it to the clipboard', async () => {
    const id = (await keyIds()).find((k) => k !== 'translate-only')!;
    await row(id).getByRole('button', { name: 'Show key' }).click();
    const shown = await page.getByLabel('Key string', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'Copy to clipboard' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
    await page.keyboard.press('Escape');
  });

  it('duplicates a key only once confirmed, and says what it created', async () => {
    const id = (await keyIds()).find((k) => k !== 'translate-only')!;
    const before = await keyIds();
    await row(id).getByRole('button', { name: 'Duplicate key' }).click();
    await dialog('Duplicate key Browser key?').getByText(/creates a new, live key/).waitFor();
    await shots('08-confirm-duplicate');
    await dialog('Duplicate key Browser key?').getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await keyIds(), before, 'cancel creates nothing');
    await row(id).getByRole('button', { name: 'Duplicate key' }).click();
    await confirmAction('Duplicate key Browser key?', 'Create duplicate');
    await status().getByText('Created key Copy of Browser key').waitFor();
    const ids = await keyIds();
    assert.equal(ids.length, before.length + 1);
    const copy = ids.find((k) => !before.includes(k))!;
    await row(copy).getByText('Websites (2)').waitFor();
  });

  it('rotates a key, then finishes the rotation (the old key is deleted), each confirmed', async () => {
    const before = await keyIds();
    const old = before[before.length - 1];
    await row(old).getByRole('button', { name: 'Rotate' }).click();
    await confirmAction(/^Rotate key /, 'Create new key');
    await row(old).getByText(/^Rotating → /).waitFor();
    const fresh = (await keyIds()).filter((k) => !before.includes(k));
    assert.equal(fresh.length, 1);
    // The replacement's id, shortened in the state column (whole on hover; the key column shows it).
    assert.equal(await row(old).locator('td.state code.id').getAttribute('title'), fresh[0]);
    await status().getByText(`Created key ${fresh[0]} to replace`, { exact: false }).waitFor();
    await shots('09-rotating');
    await assertRowLayout();
    await row(old).getByRole('button', { name: 'Finish rotation' }).click();
    await confirmAction(/^Finish rotation of /, 'Delete old key');
    await row(old).waitFor({ state: 'detached' });
    await status().getByText(/^Deleted key /).waitFor();
    assert.ok((await keyIds()).includes(fresh[0]));
  });

  it("never breaks an id or a button label; a row's actions stay on one line on a desktop", assertRowLayout);

  it('deletes a key once confirmed; a deleted key looks deleted and can be restored', async () => {
    const id = (await keyIds()).find((k) => k !== 'translate-only')!;
    await row(id).getByRole('button', { name: 'Delete' }).click();
    await confirmAction(/^Delete key /, 'Delete key');
    await row(id).waitFor({ state: 'detached' });
    await status().getByText(/it can be restored for 30 days/).waitFor();
    await page.getByLabel('Show deleted').check();
    await row(id).getByText(/^Deleted · 29 d 23 h left to restore$/).waitFor();
    assert.match(await row(id).getAttribute('class') ?? '', /\bdeleted\b/);
    assert.match(await row(id).locator('.key-name').evaluate((e) => getComputedStyle(e).textDecorationLine), /line-through/);
    await shots('10-deleted');
    await row(id).getByRole('button', { name: 'Restore' }).click();
    await confirmAction(/^Restore key /, 'Restore key');
    await row(id).getByText('Active').waitFor();
    await status().getByText(/^Restored key /).waitFor();
    assert.doesNotMatch(await row(id).getAttribute('class') ?? '', /\bdeleted\b/);
    await page.getByLabel('Show deleted').uncheck();
  });

  it('loads the Project field on commit, never while typing, never an empty project', async () => {
    const project = page.getByLabel('Project', { exact: true });
    const from = requests.length;
    await project.fill('');
    await project.pressSequentially(LOOSE.projectId, { delay: 40 });
    await project.press('Enter');
    await page.getByText(`No keys in ${LOOSE.projectId}.`).waitFor();
    const keyLists = requests.slice(from).filter((r) => r.includes('/keys?'));
    assert.deepEqual(keyLists.map((r) => r.split('?')[0]), [`GET /v2/projects/${LOOSE.projectId}/locations/global/keys`], 'one list, for the whole name');
    // An emptied field loads nothing and puts the project back when left.
    await project.fill('');
    await page.getByRole('heading', { name: 'API keys' }).click();
    assert.equal(await project.inputValue(), LOOSE.projectId);
    assert.deepEqual(requests.filter((r) => r.includes('/projects//')), []);
  });

  it('lets a user type an API target when the services list cannot be read', async () => {
    // Alice is an API Keys admin of loose-project without the Service Usage viewer role.
    await page.getByRole('button', { name: 'Create key' }).click();
    const d = dialog('Create API key');
    await d.getByTestId('services-unreadable').waitFor();
    assert.equal(await d.getByRole('alert').count(), 0, 'said as a note, not a red error');
    await d.getByLabel('Display name').fill('Typed target');
    const add = d.getByLabel('Add an API by service name');
    await add.fill('not a service');
    await d.getByRole('button', { name: 'Add API' }).click();
    await d.getByText(/Not a service name/).waitFor();
    await add.fill('translate.googleapis.com');
    await add.press('Enter');
    assert.equal(await d.getByRole('checkbox', { name: /translate\.googleapis\.com/ }).isChecked(), true);
    await shots('11-typed-target');
    await d.getByRole('button', { name: 'Create key' }).click();
    await page.keyboard.press('Escape'); // the key string
    await status().getByText('Created key Typed target').waitFor();
    await page.locator('tr[data-key]').getByText('APIs (1): translate.googleapis.com').waitFor();
  });

  it('shows an error in place of a list, never an empty state under it', async () => {
    const project = page.getByLabel('Project', { exact: true });
    await project.fill('no-such-project');
    await project.press('Enter');
    await page.getByRole('alert').getByText(/no-such-project/).waitFor();
    assert.equal(await page.getByText(/No keys in/).count(), 0);
    assert.equal(await status().count(), 0, "what was done in the other project is not said in this one");
    await shots('12-keys-error');
    await project.fill(DEMO.projectId);
    await project.press('Enter');
    await page.locator('tr[data-key]').first().waitFor();
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

  const template = (name: string, location: string) => page.locator(`tr[data-template="${name}"][data-location="${location}"]`);
  const createButton = () => page.getByRole('button', { name: /^Create (global template|in )/ });

  it('creates a template with a bad field and shows the error on that field, once', async () => {
    // The Compute page's example gives Alice the Compute roles.
    await applyYaml(readmeWorlds.find((w) => w.includes('compute:'))!);
    await page.getByRole('link', { name: 'Compute Engine' }).click();
    await page.getByRole('navigation', { name: 'Compute Engine' }).getByRole('link', { name: 'Instance templates' }).click();
    await page.getByRole('heading', { name: 'Instance templates' }).waitFor();
    // Compute Engine's pages are tabs under the header, this one current.
    assert.equal(await page.getByRole('navigation', { name: 'Compute Engine' }).getByRole('link', { name: 'Instance templates' }).getAttribute('aria-current'), 'page');
    await page.getByText(`No instance templates in ${DEMO.projectId}.`).waitFor();
    await assertHeaderOnOneRow(page, 'the templates page');
    await shots('13-templates-empty');
    await page.getByRole('button', { name: 'Create instance template' }).click();
    const d = dialog('Create an instance template');
    // Global by default, as gcloud makes it; a regional one in a region regions.list gives (not a list built into the console).
    assert.equal(await d.getByLabel('Global', { exact: true }).isChecked(), true);
    assert.equal(await d.getByLabel('Region', { exact: true }).isDisabled(), true);
    await d.locator('select[aria-label="Region"] option:text-is("europe-west1")').waitFor({ state: 'attached' });
    assert.ok((await d.locator('select[aria-label="Region"] option').count()) > 30);
    await d.getByLabel('Regional', { exact: true }).check();
    await d.getByLabel('Region', { exact: true }).selectOption('europe-west1');
    assert.equal(await createButton().innerText(), 'Create in europe-west1');
    await d.getByLabel('Global', { exact: true }).check();
    assert.equal(await createButton().innerText(), 'Create global template');
    const editor = page.getByLabel('Instance template JSON');
    const body = JSON.parse(await editor.inputValue());
    body.name = 'Bad_Name';
    await editor.fill(JSON.stringify(body, null, 2));
    await createButton().click();
    const pinned = page.locator('li[data-field="resource.name"]');
    await pinned.waitFor();
    assert.match(await pinned.innerText(), /line 2 · name/);
    const message = (await pinned.innerText()).split(': ').slice(1).join(': ');
    assert.ok(message.length > 10, message);
    assert.equal(await dialog(/^Create an instance template/).getByText(message, { exact: false }).count(), 1, 'the field error is not repeated in the banner');
    await shots('14-template-error');
    // On a phone the editor scrolls sideways: a soft-wrapped line would put the line numbers beside the wrong lines.
    await page.setViewportSize(PHONE);
    const [textHeight, gutterHeight] = await page.evaluate(() => [document.querySelector('.editor textarea')!.scrollHeight, document.querySelector('.editor .gutter')!.scrollHeight]);
    await page.setViewportSize(DESKTOP);
    assert.ok(textHeight <= gutterHeight + 24, `the template text wraps on a phone (${textHeight}px of text beside ${gutterHeight}px of line numbers)`);
  });

  it('a template whose operation fails says Failed, not Done', async () => {
    const editor = page.getByLabel('Instance template JSON');
    const body = JSON.parse(await editor.inputValue());
    body.name = 'console-missing-image';
    body.properties.disks[0].initializeParams.sourceImage = 'projects/debian-cloud/global/images/no-such-image';
    await editor.fill(JSON.stringify(body, null, 2));
    await createButton().click();
    const op = page.locator('.operation');
    await op.filter({ hasText: 'Failed' }).waitFor();
    assert.equal(await page.locator('.operation.done').count(), 0);
    assert.doesNotMatch(await op.innerText(), /Done|100%/);
    await page.getByRole('alert').first().waitFor();
    await shots('15-template-failed');
  });

  it('creates a global template and a regional one of the same name, each listed with its location', async () => {
    const editor = page.getByLabel('Instance template JSON');
    const body = JSON.parse(await editor.inputValue());
    body.name = 'console-web';
    body.properties.disks[0].initializeParams.sourceImage = 'projects/debian-cloud/global/images/family/debian-12';
    await editor.fill(JSON.stringify(body, null, 2));
    await createButton().click();
    await template('console-web', 'Global').waitFor();
    await status().getByText('Created global instance template console-web').waitFor();

    await page.getByRole('button', { name: 'Create instance template' }).click();
    const d = dialog('Create an instance template');
    await d.getByLabel('Regional', { exact: true }).check();
    await d.getByLabel('Region', { exact: true }).selectOption('europe-west1');
    body.properties.machineType = 'n2-standard-2';
    await editor.fill(JSON.stringify(body, null, 2));
    await createButton().click();
    await template('console-web', 'europe-west1').waitFor();
    await status().getByText('Created instance template console-web in europe-west1').waitFor();
    assert.ok(requests.includes(`POST /compute/v1/projects/${DEMO.projectId}/global/instanceTemplates`), 'instanceTemplates.insert');
    assert.ok(requests.includes(`POST /compute/v1/projects/${DEMO.projectId}/regions/europe-west1/instanceTemplates`), 'regionInstanceTemplates.insert');
    assert.deepEqual(await columnTexts(page, 'Location'), ['Global', 'europe-west1']);
    assert.deepEqual(await columnTexts(page, 'Machine type'), ['e2-medium', 'n2-standard-2']);
    await assertHeaderOnOneRow(page, 'the templates page');
    await shots('16-templates');

    // Each is viewed as itself: its location, its own machine type, its own selfLink.
    await template('console-web', 'europe-west1').getByRole('button', { name: 'View' }).click();
    const view = dialog('Template console-web (europe-west1)');
    assert.match(await view.locator('dl.summary').innerText(), /Location\s+europe-west1[\s\S]*Machine type\s+n2-standard-2/);
    await shots('16b-template-summary');
    await view.getByRole('tab', { name: 'JSON' }).click();
    assert.match(await view.locator('pre.json').innerText(), /"selfLink": ".*\/regions\/europe-west1\/instanceTemplates\/console-web"/);
    await page.keyboard.press('Escape');
    await template('console-web', 'Global').getByRole('button', { name: 'View' }).click();
    assert.match(await dialog('Template console-web (Global)').locator('dl.summary').innerText(), /Location\s+Global[\s\S]*Machine type\s+e2-medium/);
    await page.keyboard.press('Escape');
  });

  it('deletes the global template once confirmed (a stray Enter cancels), then the regional one', async () => {
    const global = template('console-web', 'Global');
    await global.getByRole('button', { name: 'Delete' }).click();
    await dialog('Delete global instance template console-web?').waitFor();
    await page.keyboard.press('Enter'); // Cancel has the focus
    await dialog('Delete global instance template console-web?').waitFor({ state: 'detached' });
    assert.equal(await global.count(), 1);
    await global.getByRole('button', { name: 'Delete' }).click();
    await confirmAction('Delete global instance template console-web?', 'Delete template');
    await global.waitFor({ state: 'detached' });
    await status().getByText('Deleted global instance template console-web').waitFor();
    assert.ok(requests.includes(`DELETE /compute/v1/projects/${DEMO.projectId}/global/instanceTemplates/console-web`));
    assert.equal(await template('console-web', 'europe-west1').count(), 1, 'the regional template of the same name stays');

    await template('console-web', 'europe-west1').getByRole('button', { name: 'Delete' }).click();
    await confirmAction('Delete instance template console-web in europe-west1?', 'Delete template');
    await page.getByText(`No instance templates in ${DEMO.projectId}.`).waitFor();
    assert.ok(requests.includes(`DELETE /compute/v1/projects/${DEMO.projectId}/regions/europe-west1/instanceTemplates/console-web`));
  });

  it('lists operations with their ids on one line', async () => {
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.locator('td code.id').first().waitFor();
    for (const n of await lineCounts('td code.id')) assert.equal(n, 1, 'an operation id wraps');
    await shots('17-operations');
  });

  it('runs a search and pages through it', async () => {
    await page.getByRole('link', { name: 'Search playground' }).click();
    await shots('18-search-empty');
    // An API key of the project: its searches are charged to the project's quota, shown beside the form.
    const key = await createKey(t, { keyId: 'playground-key' });
    await page.getByLabel(/^API key/).fill(key.keyString);
    await page.getByLabel('q', { exact: true }).fill('music');
    await page.getByLabel('maxResults (0-50)').fill('5');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.result-card').first().waitFor();
    const first = await page.locator('.result-card .title').allInnerTexts();
    assert.equal(first.length, 5);
    await page.getByText(/^about 12 results/).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForFunction((prev) => document.querySelector('.result-card .title')?.textContent !== prev, first[0]);
    const second = await page.locator('.result-card .title').allInnerTexts();
    assert.equal(second.filter((x) => first.includes(x)).length, 0);
    // Two searches of 100 units each, from the default 10,000.
    await page.getByText('9800 of 10000 quota units left today').waitFor();
    await shots('19-search');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.waitForFunction((prev) => document.querySelector('.result-card .title')?.textContent === prev, first[0]);
    // Unreachable thumbnails (no network) become generated placeholders.
    await page.waitForFunction(() => [...document.querySelectorAll('.result-card img')].every((i) => (i as HTMLImageElement).src.startsWith('data:') || (i as HTMLImageElement).naturalWidth > 0));
  });

  it('says "about 1 result" and wraps a long word inside its card', async () => {
    await page.getByLabel('q', { exact: true }).fill(LONG_WORD);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText(/^about 1 result ·/).waitFor();
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      const overflowing = await page.locator('.result-card').evaluateAll((cards) => cards.filter((c) => c.scrollWidth > c.clientWidth || c.getBoundingClientRect().right > document.documentElement.clientWidth).length);
      assert.equal(overflowing, 0, `a card overflows at ${size.width}px`);
    }
    await page.setViewportSize(DESKTOP);
    await shots('20-search-long-word');
  });

  it('shows the Requests page whole at 1280x800, every call with its project by id', async () => {
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    // The searches above, by API key (whose project the server knows by number), are the newest calls.
    await page.locator('tr').nth(1).waitFor();
    await page.getByRole('checkbox', { name: 'Live' }).uncheck(); // a still table to measure
    await shots('21-requests', { fullPage: false }); // the journal runs to hundreds of rows: its first screen tells
    for (const n of await lineCounts('td code.id')) assert.equal(n, 1, 'a method or operation id wraps');
    await assertRequestsLayout(page);
    await assertHeaderOnOneRow(page, 'the requests page');
    const projects = new Set(await columnTexts(page, 'Project'));
    assert.ok(projects.has(DEMO.projectId), [...projects].join(', '));
    for (const p of projects) assert.doesNotMatch(p, /^\d+$/, 'a project shown by number');
    const methods = await columnTexts(page, 'Method');
    assert.ok(methods.includes('youtube.search.list') && methods.includes('compute.instanceTemplates.aggregatedList'), methods.join(', '));
    await page.getByRole('checkbox', { name: 'Live' }).check();
    await page.getByRole('link', { name: 'Faults' }).click();
    await page.getByRole('heading', { name: 'Faults' }).waitFor();
    await shots('22-faults');
  });

  it('shows a not-found page for an unknown route', async () => {
    await page.goto(`${url}#/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0);
    await page.getByText('/no-such-page').waitFor();
    await shots('23-not-found');
    await page.getByRole('link', { name: 'API keys' }).first().click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('logged no errors of its own', () => {
    assert.deepEqual(problems, []);
  });
});
