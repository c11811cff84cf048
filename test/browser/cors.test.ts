/**
 * A web page on another origin calls cloudtwin from headless chromium: media search with a
 * browser-restricted API key (allowed and blocked referrers) and the API Keys list with a bearer
 * token. The browser enforces CORS; cloudtwin must answer as googleapis.com does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserUnavailable, launchChromium, servePage } from '../support/browser.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE, DEMO } from '../support/world.ts';
import { createKey } from '../http/helpers.ts';

const skip = browserUnavailable();

describe('a page on another origin', { skip }, () => {
  let t: TestTwin;
  let twinUrl: string;
  let page: Page;
  let chromium: { browser: Browser; close(): Promise<void> };
  let site: { origin: string; close(): Promise<void> };

  before(async () => {
    t = await startTestTwin();
    const address = await t.twin.app.listen({ host: '127.0.0.1', port: 0 });
    twinUrl = address.replace('127.0.0.1', 'localhost');
    site = await servePage('<!doctype html><title>cors</title><p>page</p>');
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
    await page.goto(site.origin + '/');
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
    await t?.close();
  });

  /** fetch() from the page; the answer's status and body as the page can read them (or the CORS failure). */
  const fetchFromPage = (url: string, init: Record<string, unknown> = {}) =>
    page.evaluate(
      async ([u, i]) => {
        try {
          const res = await fetch(u as string, i as RequestInit);
          return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') };
        } catch (err) {
          return { status: 0, body: String(err), contentType: null };
        }
      },
      [url, init] as const,
    );

  it('lists API keys with a bearer token (preflighted)', async () => {
    await createKey(t, { keyId: 'browser-listed' });
    const token = await t.token(ALICE, ['https://www.googleapis.com/auth/cloud-platform']);
    const res = await fetchFromPage(`${twinUrl}/v2/projects/${DEMO.projectId}/locations/global/keys`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200, res.body);
    assert.match(res.contentType ?? '', /application\/json/);
    assert.ok(JSON.parse(res.body).keys.some((k: { name: string }) => k.name.endsWith('/keys/browser-listed')));
  });

  it('an error answer is readable by the page', async () => {
    const res = await fetchFromPage(`${twinUrl}/v2/projects/${DEMO.projectId}/locations/global/keys`, { headers: { authorization: 'Bearer not-a-token' } });
    assert.equal(res.status, 401, res.body);
    assert.equal(JSON.parse(res.body).error.status, 'UNAUTHENTICATED');
  });

  it('searches media with a key restricted to the page referrer; another referrer is blocked with a readable 403', async () => {
    const allowed = await createKey(t, { keyId: 'browser-allowed', body: { restrictions: { browserKeyRestrictions: { allowedReferrers: [`${site.origin}/*`] } } } });
    const other = await createKey(t, { keyId: 'browser-other', body: { restrictions: { browserKeyRestrictions: { allowedReferrers: ['https://elsewhere.example/*'] } } } });
    const search = `${twinUrl}/youtube/v3/search?part=snippet&q=music&maxResults=3`;

    const ok = await fetchFromPage(`${search}&key=${allowed.keyString}`);
    assert.equal(ok.status, 200, ok.body);
    assert.match(JSON.parse(ok.body).kind, /#searchListResponse$/);

    // The key in a header makes the request preflighted.
    const viaHeader = await fetchFromPage(search, { headers: { 'x-goog-api-key': allowed.keyString } });
    assert.equal(viaHeader.status, 200, viaHeader.body);

    const blocked = await fetchFromPage(`${search}&key=${other.keyString}`);
    assert.equal(blocked.status, 403, blocked.body);
    const error = JSON.parse(blocked.body).error;
    const info = error.details.find((d: { '@type': string }) => d['@type'].endsWith('ErrorInfo'));
    assert.equal(info.reason, 'API_KEY_HTTP_REFERRER_BLOCKED');
    assert.match(error.message, new RegExp(`Requests from referer ${site.origin.replace(/[.]/g, '\\.')}/? are blocked\\.`));
  });
});
