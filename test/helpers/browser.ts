// Real Chromium for the web UI's end-to-end tests (Debian's `chromium`, driven by
// playwright-core). One browser per test file: `openBrowser()` in `before`, `close()` in `after`.
// `serve(ctx)` makes the suite's app listen on a free port; `axe(page)` runs axe-core on the page
// and returns its serious and critical violations; `screenshot(page, name)` saves
// docs/screenshots/<name>.png when HANGAR_SCREENSHOTS=1 (so that CI leaves the tree clean).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestContext } from './harness.ts';

export const CHROMIUM = process.env.HANGAR_CHROMIUM ?? '/usr/bin/chromium';

/** The network is closed where tests run: without these Chromium stalls on its own background calls. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function openBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 60_000 });
}

/** The suite's app on a free local port; its base URL. The harness closes the app (and the port). */
export async function serve(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A fresh browser context (its own cookies) whose pages fail loudly: every console error (a
 * Content-Security-Policy violation is one) and every uncaught page error is collected in
 * `problems`, which tests assert empty.
 */
export async function newContext(
  browser: Browser,
  baseURL: string,
  options: { mobile?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ baseURL, ...(options.mobile ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.setDefaultTimeout(15_000);
  return { context, page, problems };
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is (WCAG 2.x A and AA rules and
 * best practices). Injected through the debugging protocol, not a <script>, so the page's
 * Content-Security-Policy stays as strict as users get it.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const present = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!present) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: any[] }> } }).axe.run(
      (globalThis as unknown as { document: unknown }).document,
      {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      },
    );
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: { target: unknown }) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');

/** Saves a full-page screenshot to docs/screenshots/<name>.png, only when HANGAR_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.HANGAR_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
