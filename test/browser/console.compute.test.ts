/// <reference lib="dom" />
/**
 * The console's VM instances and managed instance groups pages in headless chromium, over what a
 * client made through the API: an instance of its own and the instances of a zonal and a regional
 * group, listed across zones with status, machine type, internal IP and the template they came
 * from; an instance viewed, stopped, started and deleted from its row; a group viewed with its
 * managed instances, resized (a refused resize shows the API's error) and deleted. Each page is
 * photographed at 1280x800 (the lists at 390x844 too) into `test-artifacts/console/`, and the
 * Requests page after it all.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserUnavailable, launchChromium, signInAsPrincipal, watchConsolePage } from '../support/browser.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { assertHeaderOnOneRow, assertRequestsLayout, columnTexts } from '../support/consoleLayout.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { CAROL, DEMO } from '../support/world.ts';
import { CORA, assertDone, computeWorld, templateBody } from '../http/compute.helpers.ts';
import { setOperationsMode } from '../http/helpers.ts';

const skip = browserUnavailable();
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const P = DEMO.projectId;
const V1 = `/compute/v1/projects/${P}`;
const ZONE = 'us-central1-a';
const IMAGE = 'projects/debian-cloud/global/images/family/debian-12';

describe('the console: VM instances and managed instance groups', { skip }, () => {
  let t: TestTwin;
  let url: string;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let problems: string[] = [];
  /** Every API request the page made, as `METHOD path?query`. */
  let requests: string[] = [];

  const api = async (who: string, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: Record<string, unknown>) => {
    const res = await t.call(who, { method, url: `${V1}/${path}`, ...(payload ? { payload } : {}) });
    if (method !== 'GET') return assertDone(res);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const instance = (name: string, zone = ZONE) => page.locator(`tr[data-instance="${name}"][data-zone="${zone}"]`);
  /** The instances the world declares (listed too). */
  let worldInstances: string[] = [];
  /** The names of the listed instances that the suite made (the world's left out). */
  const instanceNames = async () => (await page.locator('tr[data-instance]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-instance')!))).filter((n) => !worldInstances.includes(n));
  const group = (name: string) => page.locator(`tr[data-group="${name}"]`);
  const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
  const status = () => page.locator('.status-line');
  const tab = (name: string) => page.getByRole('navigation', { name: 'Compute Engine' }).getByRole('link', { name });
  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}-1280x800.png` });
  /** A list page at both sizes: the phone's (its rows as cards) must not scroll sideways. */
  const shots = async (name: string) => {
    await shot(name);
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: `${ARTIFACTS}${name}-390x844.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.setViewportSize(DESKTOP);
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the phone screen`);
  };
  const confirm = async (title: string, action: string) => {
    const d = dialog(title);
    await d.waitFor();
    await d.getByRole('button', { name: action, exact: true }).click();
    await d.waitFor({ state: 'detached' });
  };
  /** Every row's action buttons on one line and in sight, nothing scrolling sideways. */
  const assertTableFits = async (where: string) => {
    const seen = await page.evaluate(() => {
      const wrap = document.querySelector('.table-wrap')!;
      const right = Math.min(document.documentElement.clientWidth, wrap.getBoundingClientRect().right);
      const rows = [...wrap.querySelectorAll('.row-actions')].map((b) => {
        const boxes = [...b.querySelectorAll('button')].map((x) => x.getBoundingClientRect());
        return { lines: new Set(boxes.map((r) => Math.round(r.top))).size, past: Math.max(...boxes.map((r) => r.right)) - right };
      });
      return { overflow: wrap.scrollWidth - wrap.clientWidth, page: document.documentElement.scrollWidth - document.documentElement.clientWidth, rows };
    });
    assert.ok(seen.overflow <= 0 && seen.page <= 0, `${where}: the table scrolls sideways (${seen.overflow}px, page ${seen.page}px)`);
    for (const r of seen.rows) {
      assert.equal(r.lines, 1, `${where}: a row's buttons wrap`);
      assert.ok(r.past <= 0, `${where}: a button is ${r.past}px out of sight`);
    }
  };

  before(async () => {
    ensureConsoleBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestTwin({ world: computeWorld });
    worldInstances = Object.values<any>((await api(CORA, 'GET', 'aggregated/instances')).items).flatMap((scope) => (scope.instances ?? []).map((i: any) => i.name));
    // What a client made: an auto-mode network, a global and a regional template, an instance of
    // its own, a zonal group of 2 and a regional one of 3.
    await api(CAROL, 'POST', 'global/networks', { name: 'apps', autoCreateSubnetworks: true });
    const network = { networkInterfaces: [{ network: 'global/networks/apps' }] };
    await api(CORA, 'POST', 'global/instanceTemplates', templateBody('web-tpl', network));
    await api(CORA, 'POST', 'regions/us-central1/instanceTemplates', templateBody('web-tpl-r', { ...network, machineType: 'e2-small' }));
    await api(CORA, 'POST', `zones/europe-west1-b/instances`, {
      name: 'solo',
      machineType: 'zones/europe-west1-b/machineTypes/n2-standard-2',
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: IMAGE } }],
      networkInterfaces: [{ network: 'global/networks/apps' }],
    });
    await api(CORA, 'POST', `zones/${ZONE}/instanceGroupManagers`, { name: 'web', baseInstanceName: 'web', targetSize: 2, instanceTemplate: 'global/instanceTemplates/web-tpl' });
    await api(CORA, 'POST', 'regions/us-central1/instanceGroupManagers', { name: 'web-r', baseInstanceName: 'web-r', targetSize: 3, instanceTemplate: 'regions/us-central1/instanceTemplates/web-tpl-r' });

    url = (await t.twin.app.listen({ host: '127.0.0.1', port: 0 })) + '/console/';
    chromium = await launchChromium();
    context = await chromium.browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    ({ problems, requests } = watchConsolePage(page));
    await signInAsPrincipal(page, url, t.twin.adminToken, CORA, P);
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('lists the instances of every zone: status, machine type, internal IP, the template and group they came from', async () => {
    await page.getByRole('link', { name: 'Compute Engine' }).click();
    await page.getByRole('heading', { name: 'VM instances' }).waitFor();
    // The section's first page, its tab current, the templates and groups beside it.
    assert.equal(await tab('VM instances').getAttribute('aria-current'), 'page');
    assert.deepEqual(await page.getByRole('navigation', { name: 'Compute Engine' }).getByRole('link').allInnerTexts(), ['VM instances', 'Instance templates', 'Managed instance groups']);
    await instance('solo', 'europe-west1-b').waitFor();
    assert.ok(requests.includes(`GET ${V1}/aggregated/instances?maxResults=500`), 'instances.aggregatedList');
    const names = await instanceNames();
    assert.equal(names.length, 6, names.join(', '));
    assert.equal(names.filter((n) => /^web-[a-z0-9]{4}$/.test(n)).length, 2);
    assert.equal(names.filter((n) => /^web-r-[a-z0-9]{4}$/.test(n)).length, 3);
    const cells = async (name: string) => (await page.locator(`tr[data-instance="${name}"]`).locator('td').allInnerTexts()).map((c) => c.trim());
    const solo = await cells('solo');
    assert.deepEqual(solo.slice(0, 4), ['solo', 'europe-west1-b', 'RUNNING', 'n2-standard-2']);
    assert.match(solo[4], /^10\.132\.\d+\.\d+$/, 'an internal IP of europe-west1\'s auto subnetwork');
    assert.equal(solo[5], '—', 'made without a template');
    const member = await cells(names.find((n) => /^web-[a-z0-9]{4}$/.test(n))!);
    assert.match(member[0], /^web-[a-z0-9]{4}\nin group web \(us-central1-a\)$/);
    assert.deepEqual(member.slice(1, 4), [ZONE, 'RUNNING', 'e2-medium']);
    assert.match(member[4], /^10\.128\.\d+\.\d+$/);
    assert.equal(member[5], 'web-tpl');
    const regional = await cells(names.find((n) => n.startsWith('web-r-'))!);
    assert.equal(regional[5], 'web-tpl-r (us-central1)', 'a regional template with its region');
    await assertHeaderOnOneRow(page, 'the instances page');
    await assertTableFits('the instances page');
    // Compute's longest status fits the Status column on one line.
    const room = await page.locator('tr[data-instance] .state').first().evaluate((s) => {
      const word = s.lastChild!;
      const was = word.textContent;
      word.textContent = ' DEPROVISIONING';
      const left = (s.closest('td')!.getBoundingClientRect().right - 9) - s.getBoundingClientRect().right;
      word.textContent = was;
      return left;
    });
    assert.ok(room >= 0, `DEPROVISIONING runs ${-room}px past its cell`);
    await shots('30-instances');
  });

  it('shows an instance: its template, its group, its interfaces and disks; and its JSON', async () => {
    const name = (await instanceNames()).find((n) => /^web-[a-z0-9]{4}$/.test(n))!;
    await page.locator(`tr[data-instance="${name}"]`).getByRole('button', { name: 'View' }).click();
    const view = dialog(`Instance ${name} (${ZONE})`);
    const summary = await view.locator('dl.summary').innerText();
    assert.match(summary, /Instance template\s+web-tpl\n/);
    assert.match(summary, /Managed by\s+web \(us-central1-a\)/);
    assert.match(summary, /Network nic0\s+apps · subnet apps · internal 10\.128\.\d+\.\d+/);
    assert.match(summary, new RegExp(`Disk 0 \\(boot\\)\\s+${name} · 10 GB · READ_WRITE · deleted with the instance`));
    await shot('31-instance-summary');
    await view.getByRole('tab', { name: 'JSON' }).click();
    assert.match(await view.locator('pre.json').innerText(), new RegExp(`"selfLink": ".*/zones/${ZONE}/instances/${name}"`));
    await page.keyboard.press('Escape');
  });

  it('stops an instance once confirmed, then starts it', async () => {
    await instance('solo', 'europe-west1-b').getByRole('button', { name: 'Stop' }).click();
    await confirm('Stop instance solo in europe-west1-b?', 'Stop instance');
    await status().getByText('Stopped instance solo in europe-west1-b').waitFor();
    await instance('solo', 'europe-west1-b').getByText('TERMINATED').waitFor();
    assert.ok(requests.includes(`POST ${V1}/zones/europe-west1-b/instances/solo/stop`));
    assert.equal((await api(CORA, 'GET', 'zones/europe-west1-b/instances/solo')).status, 'TERMINATED');
    await shot('32-instance-stopped');
    await instance('solo', 'europe-west1-b').getByRole('button', { name: 'Start' }).click();
    await status().getByText('Started instance solo in europe-west1-b').waitFor();
    await instance('solo', 'europe-west1-b').getByText('RUNNING').waitFor();
    assert.equal((await api(CORA, 'GET', 'zones/europe-west1-b/instances/solo')).status, 'RUNNING');
  });

  it('deletes an instance once confirmed (a stray Enter cancels)', async () => {
    await instance('solo', 'europe-west1-b').getByRole('button', { name: 'Delete' }).click();
    await dialog('Delete instance solo in europe-west1-b?').waitFor();
    await shot('33-instance-delete');
    await page.keyboard.press('Enter'); // Cancel has the focus
    await dialog('Delete instance solo in europe-west1-b?').waitFor({ state: 'detached' });
    assert.equal(await instance('solo', 'europe-west1-b').count(), 1);
    await instance('solo', 'europe-west1-b').getByRole('button', { name: 'Delete' }).click();
    await confirm('Delete instance solo in europe-west1-b?', 'Delete instance');
    await instance('solo', 'europe-west1-b').waitFor({ state: 'detached' });
    await status().getByText('Deleted instance solo in europe-west1-b').waitFor();
    assert.ok(requests.includes(`DELETE ${V1}/zones/europe-west1-b/instances/solo`));
    assert.equal((await t.call(CORA, { method: 'GET', url: `${V1}/zones/europe-west1-b/instances/solo` })).statusCode, 404);
    assert.equal((await instanceNames()).length, 5);
  });

  it('lists the zonal and the regional group: template, target and current size, stable', async () => {
    await tab('Managed instance groups').click();
    await page.getByRole('heading', { name: 'Managed instance groups' }).waitFor();
    await group('web').waitFor();
    assert.ok(requests.includes(`GET ${V1}/aggregated/instanceGroupManagers?maxResults=500`), 'instanceGroupManagers.aggregatedList');
    assert.deepEqual(new Set(await columnTexts(page, 'Name')), new Set(['web', 'web-r']));
    const byName = async (name: string) => (await group(name).locator('td').allInnerTexts()).map((c) => c.trim());
    assert.deepEqual((await byName('web')).slice(0, 6), ['web', `${ZONE}\nzonal`, 'web-tpl', '2', '2', 'Stable']);
    assert.deepEqual((await byName('web-r')).slice(0, 6), ['web-r', 'us-central1\nregional', 'web-tpl-r (us-central1)', '3', '3', 'Stable']);
    await assertHeaderOnOneRow(page, 'the groups page');
    await assertTableFits('the groups page');
    await shots('34-groups');
  });

  it("shows a group's summary and its managed instances (listManagedInstances)", async () => {
    await group('web-r').getByRole('button', { name: 'View' }).click();
    const view = dialog('Group web-r (us-central1)');
    const summary = await view.locator('dl.summary').innerText();
    assert.match(summary, /Location\s+us-central1 \(regional\)/);
    assert.match(summary, /Zones\s+us-central1-a, us-central1-b, us-central1-c/);
    assert.match(summary, /Target size\s+3\s+Current size\s+3/);
    assert.match(summary, /Status\s+Stable/);
    await shot('35-group-summary');
    await view.getByRole('tab', { name: 'Instances' }).click();
    await view.locator('tr[data-member]').first().waitFor();
    assert.ok(requests.includes(`POST ${V1}/regions/us-central1/instanceGroupManagers/web-r/listManagedInstances?maxResults=500`), 'listManagedInstances');
    const rows = await view.locator('tr[data-member]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim())));
    assert.equal(rows.length, 3);
    assert.deepEqual(new Set(rows.map((r) => r[1])), new Set(['us-central1-a', 'us-central1-b', 'us-central1-c']), 'spread over the region\'s zones');
    for (const r of rows) {
      assert.match(r[0], /^web-r-[a-z0-9]{4}$/);
      assert.deepEqual(r.slice(2), ['RUNNING', 'NONE', 'web-tpl-r (us-central1)']);
    }
    await shot('36-group-instances');
    await page.keyboard.press('Escape');
  });

  it('resizes a group from its row and shows the new size; a refused resize shows the API\'s error', async () => {
    await group('web').getByRole('button', { name: 'Resize' }).click();
    const d = dialog(`Resize managed instance group web in ${ZONE}`);
    const size = d.getByLabel('Number of instances');
    assert.equal(await size.inputValue(), '2');
    await size.fill('-1');
    await d.getByText('A whole number, 0 or more.').waitFor();
    assert.equal(await d.getByRole('button', { name: 'Resize' }).isDisabled(), true);
    await size.fill('4');
    await shot('37-group-resize');
    await d.getByRole('button', { name: 'Resize' }).click();
    await status().getByText(`Resized managed instance group web in ${ZONE} to 4`).waitFor();
    assert.ok(requests.includes(`POST ${V1}/zones/${ZONE}/instanceGroupManagers/web/resize?size=4`), 'instanceGroupManagers.resize');
    const cells = async () => (await group('web').locator('td').allInnerTexts()).map((c) => c.trim()).slice(3, 5);
    assert.deepEqual(await cells(), ['4', '4']);
    assert.equal((await api(CORA, 'GET', `zones/${ZONE}/instanceGroupManagers/web`)).targetSize, 4);

    // The API's refusal, as the console shows every error: its status and message, the list kept.
    const rule = await t.admin('POST', '/_twin/v1/faults', { match: { method: 'compute.instanceGroupManagers.resize' }, action: { type: 'error', status: 'PERMISSION_DENIED' }, when: { next: 1 } });
    assert.equal(rule.statusCode, 201, rule.body);
    await group('web').getByRole('button', { name: 'Resize' }).click();
    await d.getByLabel('Number of instances').fill('1');
    await d.getByRole('button', { name: 'Resize' }).click();
    await page.getByRole('alert').getByText(/^403/).waitFor();
    assert.equal(await status().count(), 0, 'no success said');
    assert.equal(await page.locator('.operation').count(), 0, 'the earlier resize\'s operation is not shown as this one\'s');
    assert.deepEqual(await cells(), ['4', '4'], 'the size is unchanged');
    await shot('38-group-resize-refused');
  });

  it('in delayed mode a resized group reads Updating, then Stable and its new size without a Refresh', async () => {
    await setOperationsMode(t, 'delayed', 3000);
    try {
      await group('web').getByRole('button', { name: 'Resize' }).click();
      const d = dialog(`Resize managed instance group web in ${ZONE}`);
      await d.getByLabel('Number of instances').fill('5');
      await d.getByRole('button', { name: 'Resize' }).click();
      // The operation is waited for (3 s on the twin's clock), then the group makes its instance (3 s more).
      await status().getByText(`Resized managed instance group web in ${ZONE} to 5`).waitFor({ timeout: 20_000 });
      await group('web').getByText('Updating').waitFor();
      await shot('37b-group-updating');
      const lists = requests.length;
      await group('web').getByText('Stable').waitFor({ timeout: 20_000 });
      assert.ok(requests.slice(lists).includes(`GET ${V1}/aggregated/instanceGroupManagers?maxResults=500`), 'the page reloaded by itself');
      assert.deepEqual((await group('web').locator('td').allInnerTexts()).map((c) => c.trim()).slice(3, 5), ['5', '5']);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  it("deletes a group once confirmed; its instances go with it", async () => {
    await group('web-r').getByRole('button', { name: 'Delete' }).click();
    const d = dialog('Delete managed instance group web-r in us-central1?');
    await d.getByText('Its 3 instances are deleted with it.', { exact: false }).waitFor();
    await confirm('Delete managed instance group web-r in us-central1?', 'Delete group');
    await group('web-r').waitFor({ state: 'detached' });
    await status().getByText('Deleted managed instance group web-r in us-central1').waitFor();
    assert.ok(requests.includes(`DELETE ${V1}/regions/us-central1/instanceGroupManagers/web-r`));
    assert.equal(await group('web').count(), 1);
    await tab('VM instances').click();
    await page.locator('tr[data-instance]').first().waitFor();
    const names = await instanceNames();
    assert.ok(names.every((n) => /^web-[a-z0-9]{4}$/.test(n)), names.join(', '));
    assert.equal(names.length, 5);
  });

  it('shows the Requests page whole at 1280x800 after it all, every call with its project by id', async () => {
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('heading', { name: 'Requests' }).waitFor();
    await page.locator('tr').nth(1).waitFor();
    await page.getByRole('checkbox', { name: 'Live' }).uncheck(); // a still table to measure
    await assertRequestsLayout(page);
    await assertHeaderOnOneRow(page, 'the requests page');
    const projects = new Set(await columnTexts(page, 'Project'));
    assert.ok(projects.has(P), [...projects].join(', '));
    for (const p of projects) assert.doesNotMatch(p, /^\d+$/, 'a project shown by number');
    assert.ok((await columnTexts(page, 'Method')).includes('compute.instanceGroupManagers.resize'));
    await shot('39-requests-after-compute');
    await page.getByRole('checkbox', { name: 'Live' }).check();
  });

  it('logged no errors of its own', () => {
    assert.deepEqual(problems, []);
  });
});
