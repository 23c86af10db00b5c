// Rate limits: budgets per caller and per client address, the headers go-tfe reads, 429 as a
// JSON:API error, and budgets shared through Redis that degrade to "served" when Redis is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp, type Api } from '../src/app.ts';
import { suite, TestContext, type Response } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { agentCall, createAgentToken, poolWithToken, registerAgent } from './helpers/agents.ts';
import { freePort, HAS_REDIS_SERVER, REDIS_URL, startRedis, uniquePrefix, type PrivateRedis } from './helpers/redis.ts';

// The smallest limit go-tfe can live with: a test's burst stays far inside one second.
const LIMIT = 4;
const METRICS_TOKEN = 'metrics-token-0123456789';

/** `n` requests at once; their statuses in order. */
async function burst(n: number, send: () => Promise<Response>): Promise<Response[]> {
  return Promise.all(Array.from({ length: n }, send));
}

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();

async function metric(ctx: TestContext, name: string): Promise<number> {
  const res = await ctx.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assertStatus(res, 200);
  const line = res.raw.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : 0;
}

suite(
  'rate limits',
  (ctx) => {
    it('answers the request past the limit with 429, a JSON:API error, Retry-After and the limit headers', async () => {
      const user = await ctx.user();
      const responses = await burst(LIMIT + 2, () => ctx.get('/api/v2/account/details', user.token));
      assert.deepEqual(statuses(responses), [200, 200, 200, 200, 429, 429]);
      for (const res of responses) {
        assert.equal(res.headers['x-ratelimit-limit'], String(LIMIT));
        const reset = Number(res.headers['x-ratelimit-reset']);
        assert.ok(reset > 0 && reset <= 1, `X-RateLimit-Reset is seconds within the window: ${res.headers['x-ratelimit-reset']}`);
      }
      const remaining = responses
        .filter((r) => r.status === 200)
        .map((r) => Number(r.headers['x-ratelimit-remaining']))
        .sort();
      assert.deepEqual(remaining, [0, 1, 2, 3]);
      const refused = responses.find((r) => r.status === 429)!;
      const error = assertError(refused, 429);
      assert.deepEqual(error, { status: '429', title: 'too many requests', detail: 'You have exceeded the API rate limit' });
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      assert.equal(await metric(ctx, 'hangar_rate_limit_refusals_total{budget="caller"}'), 2);
    });

    it("gives every user a budget of their own, shared by all of that user's tokens", async () => {
      const alice = await ctx.user();
      const bob = await ctx.user();
      const { secret: aliceSecond } = await ctx.services.tokens.issueUserToken(alice.id, 'second');
      assert.deepEqual(statuses(await burst(LIMIT, () => ctx.get('/api/v2/account/details', alice.token))), [200, 200, 200, 200]);
      // Another token of the same user draws on the same budget: new tokens cannot buy more.
      assertError(await ctx.get('/api/v2/account/details', aliceSecond), 429);
      // Another user's budget is untouched.
      const other = await ctx.get('/api/v2/account/details', bob.token);
      assertStatus(other, 200);
      assert.equal(other.headers['x-ratelimit-remaining'], String(LIMIT - 1));
    });

    it("gives an organization token a budget apart from its owner's", async () => {
      const org = await ctx.organization();
      const created = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
        data: { type: 'authentication-tokens', attributes: {} },
      });
      assertStatus(created, 201);
      const orgToken = created.body.data.attributes.token as string;
      await burst(LIMIT, () => ctx.get('/api/v2/account/details', org.owner.token));
      assertError(await ctx.get('/api/v2/account/details', org.owner.token), 429);
      assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, orgToken), 200);
    });

    it("gives a team one budget, shared by all of the team's tokens", async () => {
      const org = await ctx.organization();
      const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
        data: { type: 'teams', attributes: { name: `budget-${Date.now()}` } },
      });
      assertStatus(team, 200);
      const teamId = team.body.data.id as string;
      const mint = async (description: string) => {
        const res = await ctx.post(`/api/v2/teams/${teamId}/authentication-tokens`, org.owner.token, {
          data: { type: 'authentication-tokens', attributes: { description } },
        });
        assertStatus(res, 201);
        return res.body.data.attributes.token as string;
      };
      const [first, second] = [await mint('one'), await mint('two')];
      assert.deepEqual(statuses(await burst(LIMIT, () => ctx.get(`/api/v2/teams/${teamId}`, first))), [200, 200, 200, 200]);
      // Another token of the same team draws on the same budget: minting tokens buys no more.
      assertError(await ctx.get(`/api/v2/teams/${teamId}`, second), 429);
    });

    it('counts requests without a valid token per client address, junk tokens included', async () => {
      const from = (remoteAddress: string, authorization?: string) => async (): Promise<Response> => {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/v2/account/details', remoteAddress, headers: authorization ? { authorization } : {} });
        return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body), raw: res.body };
      };
      let n = 0;
      // A new junk token every time: the budget is the address's, not the token's.
      const junk = () => from('10.1.1.1', `Bearer ${'x'.repeat(14)}.atlasv1.${String(++n).padStart(67, '0')}`)();
      assert.deepEqual(statuses(await burst(2, from('10.1.1.1'))), [401, 401]);
      assert.deepEqual(statuses(await burst(2, junk)), [401, 401]);
      const refused = await junk();
      assertError(refused, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assertError(await from('10.1.1.1')(), 429);
      // Other addresses have their own budget, and a valid token from the spent address has its own.
      assertError(await from('10.1.1.2')(), 401);
      const user = await ctx.user();
      assert.equal((await from('10.1.1.1', `Bearer ${user.token}`)()).status, 200);
      assert.equal(await metric(ctx, 'hangar_rate_limit_refusals_total{budget="address"}'), 2);
    });

    it('counts requests that arrive together one by one: exactly the limit passes', async () => {
      const anonymous = () => ctx.app.inject({ method: 'GET', url: '/api/v2/organizations', remoteAddress: '10.3.3.3' });
      const responses = await Promise.all(Array.from({ length: LIMIT + 3 }, anonymous));
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [401, 401, 401, 401, 429, 429, 429]);
      assert.deepEqual(
        responses
          .filter((r) => r.statusCode === 401)
          .map((r) => r.headers['x-ratelimit-remaining'])
          .sort(),
        ['0', '1', '2', '3'],
      );
    });

    it('advertises the limit on ping, where go-tfe reads it, and charges ping to the address', async () => {
      const ping = () => ctx.app.inject({ method: 'GET', url: '/api/v2/ping', remoteAddress: '10.2.2.2' });
      const first = await ping();
      assert.equal(first.statusCode, 204);
      assert.equal(first.headers['x-ratelimit-limit'], String(LIMIT));
      assert.equal(first.headers['x-ratelimit-remaining'], String(LIMIT - 1));
      await Promise.all([ping(), ping(), ping()]);
      const refused = await ping();
      assert.equal(refused.statusCode, 429);
      assert.equal(JSON.parse(refused.body).errors[0].status, '429');
    });

    it('limits the agent endpoints per agent token', async () => {
      const { org, pool, token } = await poolWithToken(ctx);
      const second = await createAgentToken(ctx, pool.id, org.owner.token);
      const agentId = await registerAgent(ctx, token.secret);
      const statusBody = { id: agentId, status: 'idle' };
      const results = await burst(LIMIT, () => agentCall(ctx, 'status', token.secret, statusBody));
      // Registering counted too: one request of the budget was gone.
      assert.deepEqual(statuses(results), [200, 200, 200, 429]);
      const refused = results.find((r) => r.status === 429)!;
      assert.match(String(refused.headers['content-type']), /^application\/json/);
      assert.equal(refused.body.errors[0].status, '429');
      assert.equal(refused.headers['retry-after'], '1');
      // Another token of the same pool has a budget of its own.
      assertStatus(await agentCall(ctx, 'register', second.secret, { name: 'second' }), 201);
    });
  },
  { HANGAR_RATE_LIMIT: String(LIMIT), HANGAR_METRICS_TOKEN: METRICS_TOKEN },
);

suite(
  'rate limits off (HANGAR_RATE_LIMIT=0)',
  (ctx) => {
    it('never refuses and sends no rate-limit headers, which go-tfe reads as "unlimited"', async () => {
      const user = await ctx.user();
      const responses = await burst(40, () => ctx.get('/api/v2/account/details', user.token));
      assert.deepEqual([...new Set(statuses(responses))], [200]);
      const ping = await ctx.get('/api/v2/ping');
      for (const res of [...responses, ping]) {
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
        assert.equal(res.headers['x-ratelimit-remaining'], undefined);
      }
      assert.deepEqual([...new Set(statuses(await burst(40, () => ctx.get('/api/v2/account/details', null))))], [401]);
    });
  },
  { HANGAR_RATE_LIMIT: '0' },
);

/** A second app on the same database and configuration: another Hangar instance. */
async function secondInstance(ctx: TestContext): Promise<Api> {
  const app = await buildApp({ config: ctx.config, database: ctx.database, logger: false });
  await app.ready();
  return app;
}

describe('rate limits shared through Redis', { skip: !REDIS_URL && 'HANGAR_TEST_REDIS_URL is not set' }, () => {
  suite(
    'two instances',
    (ctx) => {
      let other: Api;
      before(async () => {
        other = await secondInstance(ctx);
      });
      after(() => other?.close());

      it('draw on one budget per caller', async () => {
        const user = await ctx.user();
        const headers = { authorization: `Bearer ${user.token}` };
        const viaOther = () => other.inject({ method: 'GET', url: '/api/v2/account/details', headers });
        const first = await Promise.all([viaOther(), viaOther()]);
        assert.deepEqual(
          first.map((r) => r.statusCode),
          [200, 200],
        );
        const here = await burst(3, () => ctx.get('/api/v2/account/details', user.token));
        assert.deepEqual(statuses(here), [200, 200, 429]);
        assert.equal((await viaOther()).statusCode, 429);
      });

      it('keep budgets under ids, never under a secret', async () => {
        const user = await ctx.user();
        assertStatus(await ctx.get('/api/v2/account/details', user.token), 200);
        const { Redis } = await import('ioredis');
        const redis = new Redis(REDIS_URL!);
        try {
          const keys = await redis.keys(`${ctx.config.redisKeyPrefix}*`);
          assert.ok(keys.includes(`${ctx.config.redisKeyPrefix}user:${user.id}`), JSON.stringify(keys));
          assert.ok(!keys.some((k) => k.includes(user.token) || k.includes('atlasv1')));
        } finally {
          redis.disconnect();
        }
      });
    },
    { HANGAR_RATE_LIMIT: String(LIMIT), HANGAR_REDIS_URL: REDIS_URL ?? '', HANGAR_REDIS_KEY_PREFIX: uniquePrefix() },
  );
});

/** The private Redis's port, the same when it is started again. */
const port = HAS_REDIS_SERVER ? await freePort() : 0;

describe('rate limits when Redis goes away', { skip: !HAS_REDIS_SERVER && 'redis-server is not installed' }, () => {
  let redis: PrivateRedis;
  before(async () => {
    redis = await startRedis(port);
  });
  after(() => redis?.stop());

  suite(
    'an instance whose Redis stops and starts again',
    (ctx) => {
      it('limits while Redis is up', async () => {
        const user = await ctx.user();
        assert.deepEqual(statuses(await burst(LIMIT + 1, () => ctx.get('/api/v2/account/details', user.token))), [200, 200, 200, 200, 429]);
      });

      it('serves every request while Redis is down, and counts and logs (once) the failures', async () => {
        await redis.stop();
        const user = await ctx.user();
        const logsBefore = ctx.logs.length;
        const responses = await burst(3 * LIMIT, () => ctx.get('/api/v2/account/details', user.token));
        assert.deepEqual([...new Set(statuses(responses))], [200]);
        // The policy is still advertised (go-tfe keeps pacing itself); what is left of it is unknown.
        assert.equal(responses[0]!.headers['x-ratelimit-limit'], String(LIMIT));
        assert.equal(responses[0]!.headers['x-ratelimit-remaining'], undefined);
        assert.ok((await metric(ctx, 'hangar_rate_limit_store_errors_total')) >= 3 * LIMIT);
        const warnings = ctx.logs
          .slice(logsBefore)
          .split('\n')
          .filter((l) => l.includes('rate-limit store (Redis) unavailable'));
        assert.equal(warnings.length, 1, 'one warning, not one per request');
      });

      it('limits again once Redis is back', async () => {
        redis = await startRedis(port);
        const user = await ctx.user();
        // The client reconnects by itself within a few seconds; until then requests are served.
        let limited = false;
        for (let attempt = 0; attempt < 50 && !limited; attempt++) {
          const responses = await burst(LIMIT + 1, () => ctx.get('/api/v2/account/details', user.token));
          limited = responses.some((r) => r.status === 429);
          if (!limited) await new Promise((r) => setTimeout(r, 300));
        }
        assert.ok(limited, 'rate limiting resumed');
      });
    },
    {
      HANGAR_RATE_LIMIT: String(LIMIT),
      HANGAR_METRICS_TOKEN: METRICS_TOKEN,
      HANGAR_REDIS_KEY_PREFIX: uniquePrefix(),
      HANGAR_REDIS_URL: `redis://127.0.0.1:${port}`,
    },
  );
});

suite(
  'rate limits behind a trusted proxy (HANGAR_TRUST_PROXY)',
  (ctx) => {
    it("counts anonymous requests by the client address the proxy reports, and only a trusted proxy's", async () => {
      const via = (remoteAddress: string, forwardedFor: string) => async (): Promise<Response> => {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/v2/account/details', remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });
        return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body), raw: res.body };
      };
      assert.deepEqual(statuses(await burst(LIMIT + 1, via('10.9.9.9', '203.0.113.7'))), [401, 401, 401, 401, 429]);
      // Another client behind the same proxy has a budget of its own.
      assert.equal((await via('10.9.9.9', '203.0.113.8')()).status, 401);
      // An untrusted peer cannot pick its address by sending the header.
      assert.deepEqual(statuses(await burst(LIMIT + 1, via('10.8.8.8', '203.0.113.9'))), [401, 401, 401, 401, 429]);
      assert.equal((await via('10.8.8.8', '203.0.113.10')()).status, 429);
    });
  },
  { HANGAR_RATE_LIMIT: String(LIMIT), HANGAR_TRUST_PROXY: '10.9.9.0/24' },
);
