// The request-completed log line: method, route pattern, status, duration and who called (ids),
// and never a token or secret, not even one a client put in the URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../src/ops/logging.ts';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { agentCall, poolWithToken, registerAgent } from './helpers/agents.ts';

const SECRET = `${'A'.repeat(14)}.atlasv1.${'b'.repeat(67)}`;

describe('redactUrl', () => {
  it('redacts tokens anywhere in a URL and credential-like query parameters', () => {
    assert.equal(redactUrl('/api/v2/projects/prj-1?page[size]=2'), '/api/v2/projects/prj-1?page[size]=2');
    assert.equal(redactUrl(`/api/v2/ping?token=${SECRET}`), '/api/v2/ping?token=[REDACTED]');
    assert.equal(redactUrl(`/x/${SECRET}/y`), '/x/[REDACTED]/y');
    assert.equal(redactUrl(`/x?a=1&q=${SECRET.replaceAll('.', '%2E')}`), '/x?a=1&q=[REDACTED]');
    assert.equal(redactUrl('/x?api_key=hunter2&Access-Token=x&password=p&q=ok'), '/x?api_key=[REDACTED]&Access-Token=[REDACTED]&password=[REDACTED]&q=ok');
    assert.equal(redactUrl('/x?%74oken=hunter2'), '/x?%74oken=[REDACTED]');
  });

  it('redacts the credential of both kinds of upload URL', () => {
    const credential = `1767225600000.${'s'.repeat(43)}`;
    assert.equal(redactUrl(`/_archivist/v1/object/cv-0123456789abcdef.${credential}`), '/_archivist/v1/object/[REDACTED]');
    assert.equal(redactUrl(`/_archivist/v1/object/cv-0123456789abcdef.${credential}?x=1`), '/_archivist/v1/object/[REDACTED]?x=1');
    assert.equal(
      redactUrl(`/api/v2/state-versions/sv-1/upload/state?credential=${credential}`),
      '/api/v2/state-versions/sv-1/upload/state?credential=[REDACTED]',
    );
    assert.equal(
      redactUrl(`/api/v2/state-versions/sv-1/upload/state?a=1&%63redential=${credential}`),
      '/api/v2/state-versions/sv-1/upload/state?a=1&%63redential=[REDACTED]',
    );
  });
});

/** The parsed log lines written since `from`. */
function lines(ctx: TestContext, from = 0): Array<Record<string, unknown>> {
  return ctx.logs
    .slice(from)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function completed(ctx: TestContext, from: number, route: string) {
  const found = lines(ctx, from).filter((l) => l.msg === 'request completed' && l.route === route);
  assert.equal(found.length, 1, `one line for ${route}: ${ctx.logs.slice(from)}`);
  return found[0]!;
}

suite('request log', (ctx) => {
  it('writes one line per request with the route, the status, the duration and the caller', async () => {
    const org = await ctx.organization();
    const from = ctx.logs.length;
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}?token=${org.owner.token}`, org.owner.token), 200);
    const line = completed(ctx, from, '/api/v2/organizations/:organization_name');
    assert.equal(line.method, 'GET');
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.equal(line.userId, org.owner.id);
    assert.match(String(line.tokenId), /^at-/);
    assert.equal(line.organization, org.name);
    assert.equal(line.url, `/api/v2/organizations/${org.name}?token=[REDACTED]`);
    assert.equal(lines(ctx, from).filter((l) => l.msg === 'incoming request').length, 0, 'one line per request, not two');
  });

  it("names the organization on every request, also once the caller's rights there are known from an earlier one", async () => {
    const org = await ctx.organization();
    const project = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, {
      data: { type: 'projects', attributes: { name: unique('p') } },
    });
    for (let i = 0; i < 3; i++) {
      const from = ctx.logs.length;
      assertStatus(await ctx.get(`/api/v2/projects/${project.body.data.id}`, org.owner.token), 200);
      assert.equal(completed(ctx, from, '/api/v2/projects/:project_id').organization, org.name, `request ${i + 1}`);
    }
  });

  it('names the organization of an organization token and the pool of an agent', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const created = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, { data: { type: 'authentication-tokens' } });
    const orgToken = created.body.data.attributes.token as string;
    let from = ctx.logs.length;
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}/projects`, orgToken), 200);
    const line = completed(ctx, from, '/api/v2/organizations/:organization_name/projects');
    assert.equal(line.organization, org.name);
    assert.equal(line.tokenId, created.body.data.id);
    from = ctx.logs.length;
    await registerAgent(ctx, token.secret);
    const agentLine = completed(ctx, from, '/api/agent/register');
    assert.equal(agentLine.agentPoolId, pool.id);
    assert.equal(agentLine.tokenId, token.id);
    assert.equal(agentLine.status, 201);
  });

  it('logs refused requests without a caller, and never a token, sent anywhere', async () => {
    const user = await ctx.user();
    const from = ctx.logs.length;
    await ctx.get(`/api/v2/account/details?access_token=${user.token}`, SECRET);
    await ctx.get(`/api/v2/authentication-tokens/${user.token}`, user.token);
    await ctx.get(`/no/such/${SECRET}`);
    await agentCall(ctx, 'status', user.token, { id: 'agent-x', status: 'idle' });
    const refused = completed(ctx, from, '/api/v2/account/details');
    assert.equal(refused.status, 401);
    assert.equal(refused.userId, undefined);
    const written = ctx.logs.slice(from);
    assert.ok(!written.includes(user.token), 'a user token reached the log');
    assert.ok(!written.includes(SECRET), 'a junk token reached the log');
    assert.match(written, /\[REDACTED\]/);
  });

  it('never logs a secret created during the suite', async () => {
    const { org, token } = await poolWithToken(ctx);
    const created = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, { data: { type: 'authentication-tokens' } });
    for (const secret of [org.owner.token, token.secret, created.body.data.attributes.token as string]) {
      assert.ok(!ctx.logs.includes(secret), 'a secret reached the log');
    }
  });
});
