/// <reference lib="dom" />
/**
 * The console over HTTPS (`--tls`, the local CA): chromium speaks HTTP/2 under TLS, so the
 * console, its assets and the APIs it calls must answer on the HTTP/2 side of the one port.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localServerTls } from '../../src/platform/transport/localCa.ts';
import type { Listener } from '../../src/platform/transport/listener.ts';
import { browserUnavailable, launchChromium } from '../support/browser.ts';
import { ensureConsoleBuilt } from '../support/consoleBuild.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';

const skip = browserUnavailable();

describe('the console in chromium over HTTPS (h2, local CA)', { skip }, () => {
  let t: TestTwin;
  let dir: string;
  let listener: Listener;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;

  before(async () => {
    ensureConsoleBuilt();
    dir = mkdtempSync(join(tmpdir(), 'cloudtwin-https-'));
    t = await startTestTwin();
    listener = await t.twin.listen({ host: '127.0.0.1', port: 0, tls: localServerTls(dir, ['127.0.0.1']) });
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads over h2 and signs in: the page, its assets and the API calls answer under TLS', async () => {
    // The local CA is not in chromium's store: the certificate is checked here instead (it verifies against the CA).
    const { X509Certificate } = await import('node:crypto');
    const leaf = new X509Certificate(readFileSync(join(dir, 'server.pem')));
    assert.ok(leaf.verify(new X509Certificate(readFileSync(join(dir, 'ca.pem'))).publicKey));
    const context = await chromium.browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    await page.goto(`${listener.url}/console/`);
    assert.equal(await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol), 'h2');
    await page.getByLabel('Access token').fill(await t.token(ALICE));
    await page.getByLabel('Project id').fill(DEMO.projectId);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const protocols = await page.evaluate(() => [...new Set(performance.getEntriesByType('resource').map((e) => (e as PerformanceResourceTiming).nextHopProtocol))]);
    assert.deepEqual(protocols, ['h2'], 'every asset and API call went over h2');
    assert.deepEqual(failed, []);
    await context.close();
  });
});
