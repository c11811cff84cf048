import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it); playwright-core never downloads a browser of its own. */
export const CHROMIUM = process.env.CLOUDTWIN_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why the browser suites cannot run here, or undefined when they can. In CI (`CI=true`) a missing
 * browser is a failure, elsewhere a one-line skip.
 */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `${CHROMIUM} is missing (apt-get install chromium)`;
  if (process.env.CI === 'true') throw new Error(`browser suites need chromium: ${why}`);
  return why;
}

/** Headless chromium with the flags a machine without network needs (playwright gives it a fresh temporary profile). */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** A static server on its own port (another origin than cloudtwin) serving one HTML page at `/`. */
export async function servePage(html: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * What a console page does that a suite checks at its end: `problems` (a page error, an error the
 * console logs itself, a browser dialog such as alert or confirm: the console asks in its own) and
 * `requests` (every API request it made, as `METHOD path?query`). A failed HTTP answer (the API
 * errors the flows provoke) or an unreachable thumbnail is logged by the browser itself, not a problem.
 */
export function watchConsolePage(page: Page): { problems: string[]; requests: string[] } {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console error: ${msg.text()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!u.pathname.startsWith('/console/')) requests.push(`${r.method()} ${u.pathname}${u.search}`);
  });
  page.on('dialog', (d) => {
    problems.push(`browser dialog: ${d.message()}`);
    void d.dismiss();
  });
  return { problems, requests };
}

/** Signs in on the console's page at `url` with the admin token, as `principal` of the world in `project`; on the API keys page after. */
export async function signInAsPrincipal(page: Page, url: string, adminToken: string, principal: string, project: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Admin token').fill(adminToken);
  await page.getByRole('button', { name: 'Load principals' }).click();
  await page.locator('select[name=principal]').selectOption(principal);
  await page.locator('select[name=project]').selectOption(project);
  await page.getByRole('button', { name: /^Sign in as/ }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}
