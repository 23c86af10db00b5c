// The settings pages in real Chromium, on each database: an owner makes a team, invites someone,
// writes a policy set with a sensitive parameter (never on the page afterwards), makes an agent
// pool and a token (its secret shown once, copied with the button, gone on the next visit); the
// invited person accepts in the browser; a site admin lists the users. axe-core checks every page
// (no serious or critical violation); no page logs a Content-Security-Policy violation or script
// error, and no name a person gave ever runs as script (no dialog opens).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { suite, unique } from './helpers/harness.ts';
import { axe, newContext, openBrowser, screenshot, serve } from './helpers/browser.ts';
import { PASSWORD } from './helpers/web.ts';

const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>'"`;
const TOKEN_SECRET = /[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}/;

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

/** Checks the page (axe) and saves its screenshot (when asked). */
async function look(page: Page, name: string): Promise<void> {
  await accessible(page);
  await screenshot(page, name);
}

suite('the settings pages in Chromium', (ctx) => {
  let base: string;
  before(async () => {
    base = await serve(ctx);
  });

  async function open(username: string) {
    await ctx.services.users.setPassword(username, PASSWORD);
    const session = await newContext(browser, base);
    const dialogs: string[] = [];
    session.page.on('dialog', (d) => {
      // Only the confirmations app.js asks for are expected; an alert would be injected script.
      dialogs.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
    const { page } = session;
    await page.goto('/app/sign-in');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/organizations$/);
    return { ...session, dialogs };
  }

  it('an owner manages teams, members, policy sets, policies, agent pools and tokens; the invitee accepts', async () => {
    const org = await ctx.organization();
    const invitee = await ctx.user();
    const owner = await open(org.owner.username);
    const { page, problems, dialogs } = owner;
    try {
      // Teams
      await page.goto(`/app/${org.name}/settings/teams`);
      const team = unique('team');
      await page.getByLabel('Name', { exact: true }).fill(team);
      await page.getByLabel('manage-policies').check();
      await page.getByRole('button', { name: 'Create team' }).click();
      await page.waitForURL(/\/settings\/teams\/team-/);
      await page.getByRole('heading', { name: `Team ${team}` }).waitFor();
      await look(page, 'team');
      await page.goto(`/app/${org.name}/settings/teams`);
      await look(page, 'teams');

      // Members: invite by address onto the team
      await page.goto(`/app/${org.name}/settings/members`);
      await page.getByLabel('E-mail address').fill(`${invitee.username}@example.test`);
      await page.getByLabel(team).check();
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`${invitee.username}@example.test is invited.`).waitFor();
      await look(page, 'members');

      // Policy sets: a description with markup, a sensitive parameter
      await page.goto(`/app/${org.name}/settings/policy-sets`);
      await look(page, 'policy-sets');
      await page.getByLabel('Name', { exact: true }).fill(unique('set'));
      await page.getByLabel('Description').fill(XSS);
      await page.getByRole('button', { name: 'Create policy set' }).click();
      await page.waitForURL(/\/settings\/policy-sets\/polset-/);
      assert.equal(await page.getByLabel('Description').inputValue(), XSS, 'the description is text, as typed');
      const value = `hush-${unique('v')}`;
      await page.getByLabel('Key', { exact: true }).fill('api_key');
      await page.getByLabel('Value', { exact: true }).fill(value);
      await page.getByLabel('Sensitive', { exact: true }).check();
      await page.getByRole('button', { name: 'Add parameter' }).click();
      await page.getByText('Parameter api_key added.').waitFor();
      assert.ok(!(await page.content()).includes(value), 'the sensitive value is not in the page');
      await page.getByText('sensitive, write-only', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Value of api_key').inputValue(), '');
      await look(page, 'policy-set');

      // Policies
      await page.goto(`/app/${org.name}/settings/policies`);
      await page.getByLabel('Name', { exact: true }).fill(unique('pol'));
      await page.getByLabel('Source').fill('main = rule { true }');
      await page.getByRole('button', { name: 'Create policy' }).click();
      await page.waitForURL(/\/settings\/policies\/pol-/);
      await look(page, 'policy');
      await page.goto(`/app/${org.name}/settings/policies`);
      await look(page, 'policies');

      // Agent pools and a token, shown once
      await page.goto(`/app/${org.name}/settings/agents`);
      await page.getByLabel('Name', { exact: true }).fill(unique('pool'));
      await page.getByRole('button', { name: 'Create agent pool' }).click();
      await page.waitForURL(/\/settings\/agents\/apool-/);
      const poolUrl = page.url();
      await page.getByLabel('Token description').fill(XSS);
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = (await page.locator('[data-secret]').textContent())?.trim() ?? '';
      assert.match(secret, TOKEN_SECRET);
      await owner.context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy to clipboard' }).click();
      await page.getByText('Copied.').waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
      await look(page, 'agent-token-once');
      await page.goto(poolUrl);
      assert.doesNotMatch(await page.content(), TOKEN_SECRET, 'the secret is gone on the next visit');
      await page.getByRole('cell', { name: XSS, exact: true }).waitFor();
      await look(page, 'agent-pool');
      await page.goto(`/app/${org.name}/settings/agents`);
      await look(page, 'agent-pools');

      // API tokens: the person's own (as terraform login opens it) and the organization's
      await page.goto('/app/settings/tokens?source=terraform-login');
      await page.getByText('Terraform is waiting for a token.').waitFor();
      await look(page, 'user-tokens');
      await page.goto(`/app/${org.name}/settings/authentication-tokens`);
      await page.getByRole('button', { name: 'Create token' }).click();
      assert.match((await page.locator('[data-secret]').textContent()) ?? '', TOKEN_SECRET);
      await look(page, 'organization-token');
      assert.deepEqual(problems, []);
      assert.deepEqual(dialogs, [], 'no script from a name ran');
    } finally {
      await owner.context.close();
    }

    // The invited person accepts in the browser and is on the team
    const person = await open(invitee.username);
    try {
      await person.page.goto('/app/invitations');
      await look(person.page, 'invitations');
      await person.page.getByRole('button', { name: `Accept the invitation to ${org.name}` }).click();
      await person.page.getByText(`Welcome to ${org.name}.`).waitFor();
      await person.page.goto(`/app/${org.name}/settings/teams`);
      await person.page
        .getByRole('link', { name: new RegExp(`^team-`) })
        .first()
        .waitFor();
      assert.deepEqual(person.problems, []);
    } finally {
      await person.context.close();
    }
  });

  it('fits a phone: the pages with the widest tables scroll inside their tables, never sideways', async () => {
    const org = await ctx.organization();
    const set = await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, org.owner.token, {
      data: { type: 'policy-sets', attributes: { name: unique('set') } },
    });
    const param = await ctx.post(`/api/v2/policy-sets/${set.body.data.id}/parameters`, org.owner.token, {
      data: { type: 'vars', attributes: { key: 'a_rather_long_parameter_key_name', value: 'x'.repeat(80), category: 'policy-set' } },
    });
    assert.equal(param.status, 201, param.raw);
    await ctx.services.users.setPassword(org.owner.username, PASSWORD);
    const { context, page, problems } = await newContext(browser, base, { mobile: true });
    try {
      await page.goto('/app/sign-in');
      await page.getByLabel('Username').fill(org.owner.username);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/app\/organizations$/);
      for (const section of ['teams', 'members', 'policy-sets', 'agents', `policy-sets/${set.body.data.id}`]) {
        await page.goto(`/app/${org.name}/settings/${section}`);
        const sideways = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(Number(sideways) <= 0, `${section} scrolls sideways by ${sideways}px`);
      }
      await screenshot(page, 'policy-set-phone');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('a site admin lists the installation’s users', async () => {
    const admin = await ctx.user({ siteAdmin: true });
    const session = await open(admin.username);
    try {
      await session.page.getByRole('link', { name: 'Users' }).click();
      await session.page.waitForURL(/\/app\/admin\/users$/);
      await session.page.getByRole('cell', { name: admin.username, exact: true }).waitFor();
      await look(session.page, 'admin-users');
      assert.deepEqual(session.problems, []);
    } finally {
      await session.context.close();
    }
  });
});
