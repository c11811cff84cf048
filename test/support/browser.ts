import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';

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
