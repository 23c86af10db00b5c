// GET /metrics: Prometheus text, off the public port unless a token guards it, labelled by route
// pattern (never a raw URL, an id or a secret).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { suite, type TestContext } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { agentCall, poolWithToken, registerAgent } from './helpers/agents.ts';

const TOKEN = 'scrape-token-abcdefghijklmnop';

async function scrape(ctx: TestContext): Promise<string> {
  const res = await ctx.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assertStatus(res, 200);
  return res.raw;
}

/** The value of one series (`name{labels}` exactly as exposed), 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

suite('metrics off by default', (ctx) => {
  it('serves no /metrics on the public port and registers no route for it', async () => {
    const res = await ctx.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404);
    assert.equal(ctx.app.metrics, null);
  });
});

suite(
  'metrics on the public port, behind HANGAR_METRICS_TOKEN',
  (ctx) => {
    it('refuses a scrape without the token or with a wrong one', async () => {
      for (const authorization of [undefined, 'Bearer nope', `Bearer ${TOKEN}x`, TOKEN]) {
        const res = await ctx.request('GET', '/metrics', { headers: authorization ? { authorization } : {} });
        assert.equal(res.status, 401, String(authorization));
        assert.ok(!res.raw.includes('hangar_'));
      }
    });

    it('counts requests by route pattern, method and status, with latency histograms', async () => {
      const org = await ctx.organization();
      const project = await ctx.get(`/api/v2/projects/${org.defaultProjectId}`, org.owner.token);
      assertStatus(project, 200);
      await ctx.get('/api/v2/projects/prj-doesnotexist00000', org.owner.token);
      await ctx.get(`/no/such/${org.name}`);
      const text = await scrape(ctx);
      assert.match(text, /^# TYPE hangar_http_requests_total counter$/m);
      assert.equal(value(text, 'hangar_http_requests_total{method="GET",route="/api/v2/projects/:project_id",status_code="200"}'), 1);
      assert.equal(value(text, 'hangar_http_requests_total{method="GET",route="/api/v2/projects/:project_id",status_code="404"}'), 1);
      assert.equal(value(text, 'hangar_http_requests_total{method="POST",route="/api/v2/organizations",status_code="201"}'), 1);
      // An unknown URL is one series, whatever the URL.
      assert.equal(value(text, 'hangar_http_requests_total{method="GET",route="unmatched",status_code="404"}'), 1);
      assert.equal(value(text, 'hangar_http_request_duration_seconds_count{method="GET",route="/api/v2/projects/:project_id",status_code="200"}'), 1);
      assert.equal(
        value(text, 'hangar_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v2/projects/:project_id",status_code="200"}'),
        1,
      );
      assert.ok(value(text, 'hangar_http_request_duration_seconds_sum{method="GET",route="/api/v2/projects/:project_id",status_code="200"}') > 0);
      // Process figures come along (prom-client's defaults).
      assert.match(text, /^process_cpu_user_seconds_total /m);
      // No id, name or secret in any label.
      for (const secret of [org.defaultProjectId, org.name, org.owner.token, org.owner.id, 'prj-doesnotexist']) assert.ok(!text.includes(secret), secret);
    });

    it('counts authentication failures by reason', async () => {
      const before = await scrape(ctx);
      await ctx.get('/api/v2/account/details');
      await ctx.get('/api/v2/account/details', 'not-a-token');
      await ctx.get('/api/v2/account/details', 'also-not-a-token');
      const text = await scrape(ctx);
      assert.equal(value(text, 'hangar_auth_failures_total{reason="missing"}') - value(before, 'hangar_auth_failures_total{reason="missing"}'), 1);
      assert.equal(value(text, 'hangar_auth_failures_total{reason="invalid"}') - value(before, 'hangar_auth_failures_total{reason="invalid"}'), 2);
      assert.ok(!text.includes('not-a-token'));
    });

    it('counts agent heartbeats', async () => {
      const { token } = await poolWithToken(ctx);
      const agentId = await registerAgent(ctx, token.secret);
      for (let i = 0; i < 3; i++) assertStatus(await agentCall(ctx, 'status', token.secret, { id: agentId, status: 'idle' }), 200);
      // A refused report is no heartbeat.
      assert.equal((await agentCall(ctx, 'status', token.secret, { id: agentId, status: 'asleep' })).status, 422);
      const text = await scrape(ctx);
      assert.equal(value(text, 'hangar_agent_heartbeats_total'), 3);
      assert.ok(!text.includes(agentId) && !text.includes(token.secret));
    });

    it('shows the PostgreSQL pool, and nothing for SQLite, which has none', async () => {
      const text = await scrape(ctx);
      if (ctx.dialect === 'postgres') {
        assert.ok(value(text, 'hangar_database_pool_connections{state="total"}') >= 1);
        assert.match(text, /^hangar_database_pool_connections\{state="idle"\} \d+$/m);
        assert.match(text, /^hangar_database_pool_waiting \d+$/m);
      } else {
        assert.ok(!/^hangar_database_pool_connections\{/m.test(text));
      }
    });

    // Last: it breaks this suite's database.
    it('counts database errors, but not constraint violations (answered 422)', async () => {
      const org = await ctx.organization();
      const before = value(await scrape(ctx), 'hangar_database_errors_total');
      // A duplicate name reaches the unique index (a race-proof check) and is answered 422.
      const duplicate = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, {
        data: { type: 'projects', attributes: { name: 'Default Project' } },
      });
      assert.equal(duplicate.status, 422);
      assert.equal(value(await scrape(ctx), 'hangar_database_errors_total'), before);
      await sql`alter table agent_pools rename to agent_pools_gone`.execute(ctx.database.db);
      const failed = await ctx.get(`/api/v2/organizations/${org.name}/agent-pools`, org.owner.token);
      assert.equal(failed.status, 500);
      assert.ok(value(await scrape(ctx), 'hangar_database_errors_total') > before);
    });
  },
  { HANGAR_METRICS_TOKEN: TOKEN },
);

suite(
  'metrics on a listener of their own (HANGAR_METRICS_PORT)',
  (ctx) => {
    let address: string;
    // The listener closes with the app, when the suite ends.
    before(async () => {
      address = (await ctx.app.metrics!.listen())!;
    });

    it('serves /metrics there without a token, and nothing else; the public port has no /metrics', async () => {
      await ctx.get('/healthz');
      const res = await fetch(`${address}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(await res.text(), /hangar_http_requests_total\{method="GET",route="\/healthz",status_code="200"\} 1/);
      assert.equal((await fetch(`${address}/api/v2/ping`)).status, 404);
      assert.equal((await ctx.get('/metrics')).status, 404);
    });
  },
  { HANGAR_METRICS_PORT: '0' },
);

suite(
  'metrics on their own listener and behind a token',
  (ctx) => {
    it('asks for the token on the listener too', async () => {
      const address = (await ctx.app.metrics!.listen())!;
      assert.equal((await fetch(`${address}/metrics`)).status, 401);
      assert.equal((await fetch(`${address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
      assert.equal((await scrape(ctx)).includes('hangar_http_requests_total'), true);
    });
  },
  { HANGAR_METRICS_PORT: '0', HANGAR_METRICS_TOKEN: TOKEN },
);
