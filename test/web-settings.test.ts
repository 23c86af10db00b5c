// The settings pages of the web UI (teams, members and invitations, policy sets and parameters,
// policies, agent pools and their tokens, API tokens, site admin users), driven as a browser
// would but without one (test/helpers/web.ts): what each page shows, that a secret is shown once
// and a sensitive value never, that every name a person can give comes back escaped, and that a
// page refuses exactly what the API refuses. test/web-settings-browser.test.ts runs real Chromium.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { PASSWORD, signedIn, WebClient } from './helpers/web.ts';

const TOKEN_SECRET = /[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}/;
const XSS = `<script>alert("x")</script>'"`;

/** Whether the page holds XSS as text (escaped) and never as markup. */
const escapedXss = (body: string) => body.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;') && !body.includes('<script>alert');

/** The owner of a new organization, signed in through the form. */
async function ownerOf(ctx: TestContext) {
  const org = await ctx.organization();
  await ctx.services.users.setPassword(org.owner.username, PASSWORD);
  const client = new WebClient(ctx);
  assert.equal((await client.signIn(org.owner.username)).status, 303);
  return { org, client };
}

/** A person signed in who holds `access` through a team of `org`. */
async function memberOf(ctx: TestContext, org: Awaited<ReturnType<TestContext['organization']>>, access: Record<string, boolean> = {}) {
  const member = await ctx.member(org, access);
  await ctx.services.users.setPassword(member.username, PASSWORD);
  const client = new WebClient(ctx);
  assert.equal((await client.signIn(member.username)).status, 303);
  return { member, client };
}

const idIn = (location: string | undefined) => location!.split('/').pop()!;

suite('web settings pages', (ctx) => {
  describe('teams', () => {
    it('creates a team with organization access, shows it, changes and deletes it', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/teams`;
      const name = unique('team');
      const created = await client.post(base, { name, visibility: 'organization', access: ['manage-policies', 'read-workspaces'] }, { from: base });
      assert.equal(created.status, 303, created.body);
      const page = await client.get(created.location!);
      assert.equal(page.status, 200);
      assert.match(page.body, new RegExp(`Team ${name}`));
      const team = (await ctx.get(`/api/v2/teams/${idIn(created.location)}`, org.owner.token)).body.data;
      assert.equal(team.attributes.visibility, 'organization');
      assert.equal(team.attributes['organization-access']['manage-policies'], true);
      assert.equal(team.attributes['organization-access']['manage-workspaces'], false);
      assert.match((await client.get(base)).body, new RegExp(name));

      const saved = await client.post(created.location!, { name: `${name}-b`, visibility: 'secret', access: 'manage-policies' }, { from: created.location });
      assert.equal(saved.status, 303);
      const after = (await ctx.get(`/api/v2/teams/${team.id}`, org.owner.token)).body.data.attributes;
      assert.equal(after.name, `${name}-b`);
      assert.equal(after['organization-access']['read-workspaces'], false);

      assert.equal((await client.post(`${created.location}/delete`, {}, { from: created.location })).status, 303);
      assert.equal((await ctx.get(`/api/v2/teams/${team.id}`, org.owner.token)).status, 404);
    });

    it('refuses a name with markup and shows it back escaped', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/teams`;
      const res = await client.post(base, { name: XSS, visibility: 'secret' }, { from: base });
      assert.equal(res.status, 422);
      assert.ok(escapedXss(res.body), res.body);
    });

    it('issues a team token shown once, and takes a member on and off the team by membership', async () => {
      const { org, client } = await ownerOf(ctx);
      const { member } = await memberOf(ctx, org);
      const created = await client.post(
        `/app/${org.name}/settings/teams`,
        { name: unique('team'), visibility: 'secret' },
        { from: `/app/${org.name}/settings/teams` },
      );
      const url = created.location!;
      const issued = await client.post(`${url}/token`, {}, { from: url });
      assert.equal(issued.status, 200);
      const secret = TOKEN_SECRET.exec(issued.body)?.[0];
      assert.ok(secret, 'the new secret is on the answer');
      assert.equal(issued.headers['cache-control'], 'no-store');
      assert.equal((await ctx.get('/api/v2/account/details', secret)).status, 404, 'a team token works (and has no account)');
      assert.doesNotMatch((await client.get(url)).body, TOKEN_SECRET, 'and is never shown again');

      const memberships = (await ctx.get(`/api/v2/organizations/${org.name}/organization-memberships`, org.owner.token)).body.data;
      const membership = memberships.find((m: any) => m.relationships.user.data.id === member.id);
      assert.equal((await client.post(`${url}/members`, { membership: membership.id }, { from: url })).status, 303);
      assert.match((await client.get(url)).body, new RegExp(member.username));
      assert.equal((await client.post(`${url}/members/remove`, { membership: membership.id }, { from: url })).status, 303);
      assert.doesNotMatch((await client.get(url)).body, new RegExp(`<td>${member.username}</td>`));
    });
  });

  describe('members and invitations', () => {
    it('invites by address onto a team; the invited person accepts in the browser and is on the team', async () => {
      const { org, client } = await ownerOf(ctx);
      const teams = `/app/${org.name}/settings/teams`;
      const team = idIn((await client.post(teams, { name: unique('team'), visibility: 'organization' }, { from: teams })).location);
      const invitee = await ctx.user();
      await ctx.services.users.setPassword(invitee.username, PASSWORD);
      const base = `/app/${org.name}/settings/members`;
      const invited = await client.post(base, { email: `${invitee.username}@example.test`, team }, { from: base });
      assert.equal(invited.status, 303, invited.body);
      const list = await client.get(base);
      assert.match(list.body, new RegExp(`${invitee.username}@example.test`));
      assert.match(list.body, /invited/);

      const person = new WebClient(ctx);
      await person.signIn(invitee.username);
      const waiting = await person.get('/app/invitations');
      assert.match(waiting.body, new RegExp(org.name));
      const id = /\/app\/invitations\/(ou-[0-9A-Za-z]+)\/accept/.exec(waiting.body)?.[1];
      assert.ok(id, waiting.body);
      const accepted = await person.post(`/app/invitations/${id}/accept`, {}, { from: '/app/invitations' });
      assert.equal(accepted.status, 303);
      const members = (await ctx.get(`/api/v2/teams/${team}?include=users`, org.owner.token)).body.data.relationships.users.data;
      assert.deepEqual(
        members.map((u: any) => u.id),
        [invitee.id],
      );
      assert.doesNotMatch((await person.get('/app/invitations')).body, new RegExp(`${id}/accept`));
    });

    it('refuses the members list to a member without membership rights (403, as the API) and another organization’s pages (404)', async () => {
      const { org } = await ownerOf(ctx);
      const { client } = await memberOf(ctx, org);
      const res = await client.get(`/app/${org.name}/settings/members`);
      assert.equal(res.status, 403);
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}/organization-memberships`, (await ctx.member(org)).token)).status, 403);
      const other = await ctx.organization();
      for (const page of ['teams', 'members', 'policy-sets', 'policies', 'agents', 'authentication-tokens']) {
        assert.equal((await client.get(`/app/${other.name}/settings/${page}`)).status, 404, page);
      }
    });
  });

  describe('policy sets, parameters and policies', () => {
    it('keeps a sensitive parameter out of the page and its HTML, and keeps it when saved empty', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/policy-sets`;
      const created = await client.post(base, { name: unique('set'), description: XSS }, { from: base });
      assert.equal(created.status, 303, created.body);
      const url = created.location!;
      const setId = idIn(url);
      assert.ok(escapedXss((await client.get(url)).body));
      assert.ok(escapedXss((await client.get(base)).body));

      const value = `hush-${unique('v')}`;
      assert.equal((await client.post(`${url}/parameters`, { key: 'secret_key', value, sensitive: 'true' }, { from: url })).status, 303);
      assert.equal((await client.post(`${url}/parameters`, { key: 'plain_key', value: 'plain-value' }, { from: url })).status, 303);
      const page = await client.get(url);
      assert.ok(!page.body.includes(value), 'the sensitive value is nowhere in the HTML');
      assert.match(page.body, /sensitive, write-only/);
      assert.match(page.body, /plain-value/);

      const params = await ctx.services.policySetParameters.runtimeParameters(setId);
      const sensitive = params.find((p) => p.key === 'secret_key')!;
      assert.equal(sensitive.value, value);
      // Saved with the value field empty: the value stays.
      assert.equal((await client.post(`${url}/parameters/${sensitive.id}`, { key: 'secret_key', value: '' }, { from: url })).status, 303);
      assert.equal((await ctx.services.policySetParameters.runtimeParameters(setId)).find((p) => p.id === sensitive.id)!.value, value);
      assert.ok(!ctx.logs.includes(value), 'nor in the logs');
    });

    it('writes a policy with its source and puts it in a set', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/policies`;
      const name = unique('pol');
      const created = await client.post(base, { name, description: XSS, 'enforcement-level': 'advisory', source: 'main = rule { true }' }, { from: base });
      assert.equal(created.status, 303, created.body);
      const page = await client.get(created.location!);
      assert.match(page.body, /main = rule \{ true \}/);
      assert.ok(escapedXss(page.body));
      const sets = `/app/${org.name}/settings/policy-sets`;
      const set = (await client.post(sets, { name: unique('set') }, { from: sets })).location!;
      assert.equal((await client.post(`${set}/policies`, { policy: idIn(created.location) }, { from: set })).status, 303);
      assert.match((await client.get(set)).body, new RegExp(name));
    });

    it('shows a member without policy rights the sets but no forms, and refuses their writes (403) leaving nothing behind', async () => {
      const { org } = await ownerOf(ctx);
      const { client } = await memberOf(ctx, org);
      const base = `/app/${org.name}/settings/policy-sets`;
      const page = await client.get(base);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.body, /New policy set/);
      const name = unique('set');
      const res = await client.post(base, { name }, { from: base });
      assert.equal(res.status, 403);
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}/policy-sets`, org.owner.token)).body.data.length, 0);
    });
  });

  describe('agent pools and tokens', () => {
    it('shows a new agent token once, escapes its description, and revokes it', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/agents`;
      const pool = (await client.post(base, { name: unique('pool') }, { from: base })).location!;
      const issued = await client.post(`${pool}/tokens`, { description: XSS }, { from: pool });
      assert.equal(issued.status, 200);
      const secret = TOKEN_SECRET.exec(issued.body)?.[0];
      assert.ok(secret);
      assert.match(issued.body, /data-copy=/);
      const again = await client.get(pool);
      assert.doesNotMatch(again.body, TOKEN_SECRET);
      assert.ok(escapedXss(again.body));
      const tokenId = /\/tokens\/(at-[0-9A-Za-z]+)\/delete/.exec(again.body)![1]!;
      assert.equal((await client.post(`${pool}/tokens/${tokenId}/delete`, {}, { from: pool })).status, 303);
      assert.doesNotMatch((await client.get(pool)).body, new RegExp(tokenId));
    });

    it('hides a pool’s tokens from a member who may not manage pools, as the API does', async () => {
      const { org, client: owner } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/agents`;
      const pool = (await owner.post(base, { name: unique('pool') }, { from: base })).location!;
      const { client } = await memberOf(ctx, org);
      const page = await client.get(pool);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.body, /<h2>Tokens<\/h2>/);
      assert.equal((await client.post(`${pool}/tokens`, { description: 'mine' }, { csrf: /name="_csrf" value="([^"]*)"/.exec(page.body)![1]! })).status, 404);
    });
  });

  describe('API tokens', () => {
    it('creates the person’s own token, shown once, and says what terraform login needs', async () => {
      const { user, client } = await signedIn(ctx);
      const hint = await client.get('/app/settings/tokens?source=terraform-login');
      assert.match(hint.body, /Terraform is waiting for a token/);
      assert.match(hint.body, /value="terraform login"/);
      const issued = await client.post(
        '/app/settings/tokens',
        { description: XSS, expires: '30', source: 'terraform-login' },
        { from: '/app/settings/tokens' },
      );
      assert.equal(issued.status, 200);
      const secret = TOKEN_SECRET.exec(issued.body)![0];
      assert.match(issued.body, /Paste it into the terminal/);
      assert.equal((await ctx.get('/api/v2/account/details', secret)).body.data.id, user.id);
      const page = await client.get('/app/settings/tokens');
      assert.doesNotMatch(page.body, TOKEN_SECRET);
      assert.ok(escapedXss(page.body));
    });

    it('creates, regenerates and deletes the organization token; a member has no such page', async () => {
      const { org, client } = await ownerOf(ctx);
      const url = `/app/${org.name}/settings/authentication-tokens`;
      const first = TOKEN_SECRET.exec((await client.post(url, {}, { from: url })).body)![0];
      const second = TOKEN_SECRET.exec((await client.post(url, {}, { from: url })).body)![0];
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}`, first)).status, 401, 'the old one stopped');
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}`, second)).status, 200);
      assert.doesNotMatch((await client.get(url)).body, TOKEN_SECRET);
      assert.equal((await client.post(`${url}/delete`, {}, { from: url })).status, 303);
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}`, second)).status, 401);
      const { client: member } = await memberOf(ctx, org);
      assert.equal((await member.get(url)).status, 404);
    });
  });

  describe('site admin', () => {
    let admin: WebClient;
    before(async () => {
      admin = (await signedIn(ctx, { siteAdmin: true })).client;
    });

    it('lists and searches the installation’s people for a site admin, and does not exist for anyone else', async () => {
      const someone = await ctx.user();
      const found = await admin.get(`/app/admin/users?q=${someone.username}`);
      assert.equal(found.status, 200);
      assert.match(found.body, new RegExp(someone.username));
      assert.doesNotMatch(found.body, /service-account|hangar-org/);
      const { client } = await signedIn(ctx);
      assert.equal((await client.get('/app/admin/users')).status, 404);
      assert.doesNotMatch((await client.get('/app/settings/tokens')).body, /href="\/app\/admin\/users"/);
      assert.match((await admin.get('/app/settings/tokens')).body, /href="\/app\/admin\/users"/);
    });
  });

  describe('escaping', () => {
    it('shows every name and address a person types with markup as text, on the refusal and on every page after', async () => {
      const { org, client } = await ownerOf(ctx);
      const forms: Array<[string, Record<string, string>]> = [
        ['teams', { name: XSS, visibility: 'secret' }],
        ['policy-sets', { name: XSS, description: XSS }],
        ['policies', { name: XSS, description: XSS, source: XSS }],
        ['agents', { name: XSS }],
        ['members', { email: XSS }],
      ];
      for (const [section, fields] of forms) {
        const url = `/app/${org.name}/settings/${section}`;
        const res = await client.post(url, fields, { from: url });
        // Names with markup are refused (422) and shown back escaped; descriptions are kept.
        assert.equal(res.status, 422, `${section}: ${res.status}`);
        assert.ok(escapedXss(res.body), section);
      }
      const query = await client.get(`/app/${org.name}/settings/teams?q=${encodeURIComponent(XSS)}`);
      assert.ok(escapedXss(query.body), 'a search echoed');
    });
  });

  describe('CSRF', () => {
    it('refuses a form without its token and changes nothing', async () => {
      const { org, client } = await ownerOf(ctx);
      const base = `/app/${org.name}/settings/agents`;
      for (const csrf of [null, 'forged']) {
        const res = await client.post(base, { name: unique('pool') }, { csrf });
        assert.equal(res.status, 403);
      }
      const res = await client.post('/app/settings/tokens', { description: 'x' }, { csrf: null });
      assert.equal(res.status, 403);
      assert.doesNotMatch(res.body, TOKEN_SECRET);
      assert.equal((await ctx.get(`/api/v2/organizations/${org.name}/agent-pools`, org.owner.token)).body.data.length, 0);
    });
  });
});
