import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

suite(
  'discovery, ping and account',
  (ctx) => {
    it('answers ping without a token, with the headers go-tfe reads', async () => {
      const res = await ctx.get('/api/v2/ping');
      assert.equal(res.status, 204);
      assert.equal(res.headers['tfp-api-version'], '2.5');
      assert.equal(res.headers['tfp-appname'], 'Hangar');
    });

    it('serves the service discovery document the tfe provider needs', async () => {
      const res = await ctx.get('/.well-known/terraform.json');
      assertStatus(res, 200);
      assert.deepEqual(res.body, {
        'tfe.v2': '/api/v2/',
        'tfe.v2.1': '/api/v2/',
        'tfe.v2.2': '/api/v2/',
        'state.v2': '/api/v2/',
        // `terraform login` (test/terraform-login.test.ts goes through it).
        'login.v1': { client: 'terraform-cli', grant_types: ['authz_code'], authz: '/app/oauth2/authorize', token: '/app/oauth2/token', ports: [10000, 10010] },
      });
    });

    it('returns the caller as a users document, email only to the user themself', async () => {
      const user = await ctx.user();
      const me = await ctx.get('/api/v2/account/details', user.token);
      assertStatus(me, 200);
      assert.match(String(me.headers['content-type']), /^application\/vnd\.api\+json/);
      assert.equal(me.body.data.id, user.id);
      assert.equal(me.body.data.attributes.username, user.username);
      assert.equal(me.body.data.attributes.email, `${user.username}@example.test`);
      const other = await ctx.user();
      const seen = await ctx.get(`/api/v2/users/${user.id}`, other.token);
      assertStatus(seen, 200);
      assert.equal(seen.body.data.attributes.username, user.username);
      assert.equal(seen.body.data.attributes.email, undefined);
      assertError(await ctx.get('/api/v2/users/user-0000000000000000', other.token), 404);
      assertError(await ctx.get('/api/v2/account/details'), 401);
    });

    it('answers unknown routes with a JSON:API 404 and bad page parameters with 400', async () => {
      const user = await ctx.user();
      assertError(await ctx.get('/api/v2/no-such-thing', user.token), 404);
      for (const q of ['page[number]=0', 'page[number]=x', 'page[size]=-1', 'page[size]=1.5']) {
        const e = assertError(await ctx.get(`/api/v2/organizations?${q}`, user.token), 400);
        assert.equal(e.title, 'bad request');
      }
    });

    it('paginates with absolute links, encoded brackets, a clamped size, and empty pages past the end', async () => {
      const admin = await ctx.user({ siteAdmin: true });
      for (let i = 0; i < 3; i++) await ctx.organization();
      const res = await ctx.get('/api/v2/organizations?page[size]=2&page[number]=1', admin.token);
      assertStatus(res, 200);
      const p = res.body.meta.pagination;
      assert.equal(p['current-page'], 1);
      assert.equal(p['page-size'], 2);
      assert.equal(p['next-page'], 2);
      assert.equal(p['prev-page'], null);
      assert.ok(p['total-count'] >= 3);
      assert.match(res.body.links.next, /^http:\/\/localhost(:\d+)?\/api\/v2\/organizations\?.*page%5Bnumber%5D=2/);
      assert.equal(res.body.links.prev, null);
      const beyond = await ctx.get('/api/v2/organizations?page[number]=999', admin.token);
      assertStatus(beyond, 200);
      assert.deepEqual(beyond.body.data, []);
      assert.equal(beyond.body.meta.pagination['current-page'], 999);
      const clamped = await ctx.get('/api/v2/organizations?page%5Bsize%5D=1000', admin.token);
      assert.equal(clamped.body.meta.pagination['page-size'], 100);
    });

    it('refuses NUL characters (PostgreSQL text cannot hold them) with 400 in URLs and 422 in bodies', async () => {
      const org = await ctx.organization();
      assertError(await ctx.get(`/api/v2/organizations/%00`, org.owner.token), 400);
      assertError(await ctx.get(`/api/v2/organizations/${org.name}/teams?q=a%00b`, org.owner.token), 400);
      const res = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
        data: { type: 'teams', attributes: { name: 'nul\u0000team' } },
      });
      assertError(res, 422, '/data/attributes/name');
      const teams = await ctx.get(`/api/v2/organizations/${org.name}/teams`, org.owner.token);
      assert.equal(teams.body.data.length, 1, 'nothing was written');
      // The plain-JSON agent protocol is guarded the same way.
      const pool = await ctx.post(`/api/v2/organizations/${org.name}/agent-pools`, org.owner.token, {
        data: { type: 'agent-pools', attributes: { name: 'nul-pool' } },
      });
      const token = await ctx.post(`/api/v2/agent-pools/${pool.body.data.id}/authentication-tokens`, org.owner.token, {
        data: { type: 'authentication-tokens', attributes: { description: 'nul' } },
      });
      const agent = await ctx.request('POST', '/api/agent/register', {
        token: token.body.data.attributes.token,
        body: { name: 'a\u0000b' },
        contentType: 'application/json',
      });
      assert.equal(agent.status, 422, agent.raw);
      assert.equal(agent.body.errors[0].source.pointer, '/name');
      const agents = await ctx.get(`/api/v2/agent-pools/${pool.body.data.id}/agents`, org.owner.token);
      assert.equal(agents.body.data.length, 0, 'no agent was registered');
    });

    it('keeps the Authorization header out of every log line', async () => {
      const user = await ctx.user();
      await ctx.get('/api/v2/account/details', user.token);
      await ctx.get('/api/v2/organizations?page[size]=zzz', user.token);
      assert.ok(ctx.logs.length > 0, 'the app logged something');
      assert.ok(!ctx.logs.includes(user.token));
    });
  },
  {},
);

suite(
  'absolute links behind a proxy',
  (ctx) => {
    it('uses HANGAR_BASE_URL for list links', async () => {
      const user = await ctx.user();
      const res = await ctx.get('/api/v2/organizations', user.token);
      assert.match(res.body.links.self, /^https:\/\/hangar\.example\.com\/tfe\/api\/v2\/organizations\?/);
    });
  },
  { HANGAR_BASE_URL: 'https://hangar.example.com/tfe/' },
);
