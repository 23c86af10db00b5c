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

  it('signs in, creates an organization and a project, moves a workspace into it, and signs out; every page passes axe', async () => {
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
      await page.getByLabel('Name', { exact: true }).fill(org);
      await page.getByLabel('E-mail address').fill(`${org}@example.test`);
      await page.getByRole('button', { name: 'Create organization' }).click();
      await page.waitForURL(new RegExp(`/app/${org}/projects$`));
      await page.getByText(`Organization ${org} created.`).waitFor();

      // A workspace in the default project, made through the page.
      await page
        .getByRole('navigation', { name: /^Organization / })
        .getByRole('link', { name: 'Workspaces', exact: true })
        .click();
      await page.waitForURL(new RegExp(`/app/${org}/workspaces$`));
      await page.getByLabel('Name', { exact: true }).fill('web-app');
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await page.waitForURL(new RegExp(`/app/${org}/workspaces/web-app$`));
      await accessible(page);
      await screenshot(page, 'workspace');

      // A project, then the workspace moved into it.
      await page
        .getByRole('navigation', { name: /^Organization / })
        .getByRole('link', { name: 'Projects', exact: true })
        .click();
      await page.getByRole('link', { name: 'New project' }).click();
      await accessible(page);
      await page.getByLabel('Name', { exact: true }).fill('Payments');
      await page.getByLabel('Description').fill('Everything that takes money');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByText('Project Payments created.').waitFor();
      await page.getByLabel('web-app (in Default Project)').check();
      await page.getByRole('button', { name: 'Move selected workspaces' }).click();
      await page.getByText('Workspace moved.').waitFor();
      await page.getByRole('link', { name: 'web-app' }).waitFor();
      await accessible(page);
      const moved = await ctx.services.workspaces.show(
        new (await import('../src/auth/caller.ts')).Caller(
          { kind: 'user', tokenId: 'test', user: { ...user, isSiteAdmin: false, isServiceAccount: false } },
          ctx.services.teams.grants,
        ),
        { organizationName: org, name: 'web-app' },
      );
      assert.equal(moved.project.name, 'Payments');
      await page
        .getByRole('navigation', { name: /^Organization / })
        .getByRole('link', { name: 'Projects', exact: true })
        .click();
      await accessible(page);
      await screenshot(page, 'projects');

      // Every other page of a workspace and of the account passes axe too.
      for (const tab of ['', '/runs', '/states', '/variables', '/run-triggers', '/settings']) {
        await page.goto(`/app/${org}/workspaces/web-app${tab}`);
        await accessible(page);
      }
      await page.goto('/app/account');
      await accessible(page);

      // On a phone: nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`/app/${org}/projects`);
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
      await screenshot(page, 'projects-phone');

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
