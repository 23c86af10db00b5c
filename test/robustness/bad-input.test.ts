// Thousands of malformed requests across every route. Each must get a 4xx JSON:API error
// document (never a 5xx, a hang or a stack trace) and the database must not change at all.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { RouteEntry } from '../../src/app.ts';
import { suite, type TestContext } from '../helpers/harness.ts';
import { buildWorld, type World } from './world.ts';

const REQUESTS = Number(process.env.HANGAR_FUZZ_REQUESTS ?? 5000);

/** Every row of every table, minus `last_used_at`, which valid tokens may legitimately touch. */
async function snapshot(ctx: TestContext): Promise<string> {
  // Introspection lists every schema on a PostgreSQL server; only this suite's own counts.
  const own = ctx.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.database.db)).rows[0]!.s : undefined;
  const tables = (await ctx.database.db.introspection.getTables())
    .filter((t) => own === undefined || t.schema === own)
    .map((t) => t.name)
    .filter((n) => !n.startsWith('kysely_'))
    .sort();
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const rows = await (ctx.database.db as any).selectFrom(table).selectAll().execute();
    out[table] = rows
      .map((r: Record<string, unknown>) => {
        const { last_used_at: _ignored, ...rest } = r;
        return JSON.stringify(rest, Object.keys(rest).sort());
      })
      .sort();
  }
  return JSON.stringify(out);
}

interface Fuzzed {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  why: string;
}

const junkString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\u202e', '💥'.repeat(500), 'a'.repeat(70_000), '../../etc/passwd', '%2e%2e%2f', "'; DROP TABLE projects; --"),
);

const badId = fc.oneof(
  fc.constantFrom('prj-0000000000000000', 'ws-zzzzzzzzzzzzzzzz', '..', '%2e%2e', '%00', 'x'.repeat(5000), '💥', 'null', '0'),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
);

const badToken = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(14)}.atlasv1.${'b'.repeat(67)}`, 'Bearer \u0000'),
  fc.string({ maxLength: 100 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, '')}`),
);

/** A JSON body that is never a valid document: the wrong `data.type`, junk attributes. */
const badBody = fc.oneof(
  fc
    .record({ data: fc.record({ type: junkString.filter((t) => t !== '' && !/^[a-z-]+s$/.test(t)), attributes: fc.dictionary(junkString, fc.anything()) }) })
    .map((b) => JSON.stringify(b)),
  fc
    .anything()
    .filter((v) => !(v && typeof v === 'object' && 'data' in (v as object)))
    .map((v) => JSON.stringify(v) ?? 'null'),
  fc.constantFrom('{"data":', '{', '[', 'nul', '{"data":{"type":"projects","attributes":{"name":"x"}}}garbage', '\u0000'),
);

function fill(route: RouteEntry, world: World, pick: (name: string) => string): string {
  return route.url.replace(/:([a-z_]+)/g, (_m, name: string) => pick(name));
}

function fuzzed(routes: RouteEntry[], world: World, lists: RouteEntry[]): fc.Arbitrary<Fuzzed> {
  // Ping and the OpenAPI document are public: no token is needed, so none is refused.
  const api = routes.filter((r) => r.url.startsWith('/api/v2/') && r.url !== '/api/v2/ping' && r.url !== '/api/v2/openapi.json');
  const real = (name: string) => world.params[name]?.own ?? 'unknown-0000000000000000';
  // Users are visible to every user (TFE answers another user's token list with 200 and no
  // items), so only organization-scoped routes are wrong for a foreign caller.
  const scoped = api.filter((r) => r.url.includes(':') && !/^\/api\/v2\/users\/:user_id(\/|$)/.test(r.url));
  const json = { 'content-type': 'application/vnd.api+json' };
  return fc.oneof(
    // No token, a garbage token, the wrong scheme: 401 everywhere.
    fc.record({ route: fc.constantFrom(...api), auth: badToken, body: fc.option(badBody) }).map(({ route, auth, body }) => ({
      method: route.method,
      url: fill(route, world, real),
      headers: { ...(auth ? { authorization: auth } : {}), ...json },
      payload: body ?? undefined,
      why: 'bad token',
    })),
    // Unknown ids, ids of another organization, path tricks.
    fc
      .record({ route: fc.constantFrom(...api.filter((r) => r.url.includes(':'))), id: badId, foreign: fc.boolean() })
      .map(({ route, id, foreign: wantForeign }) => {
        const foreign = wantForeign && scoped.includes(route);
        const names = [...route.url.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
        const target = names[names.length - 1]!;
        const url = fill(route, world, (name) => (name !== target ? real(name) : foreign && world.params[name] ? world.params[name].foreign : id));
        return {
          method: route.method,
          url,
          headers: { authorization: `Bearer ${world.ownerToken}`, ...json },
          payload: route.hasBody ? '{"data":[]}' : undefined,
          why: foreign ? 'foreign id' : 'unknown id',
        };
      }),
    // A foreign organization's owner against our resources.
    fc.constantFrom(...scoped).map((route) => ({
      method: route.method,
      url: fill(route, world, real),
      headers: { authorization: `Bearer ${world.foreignToken}`, ...json },
      payload: route.hasBody ? '{"data":{"type":"x"}}' : undefined,
      why: 'foreign caller',
    })),
    // Broken, mistyped or huge bodies, and wrong content types, on routes that take a body.
    fc
      .record({
        // Not the routes whose body is optional and lenient (a workspace lock takes go-tfe's body,
        // any other object or none, and reads only the reason): no body is wrong for them.
        route: fc.constantFrom(...api.filter((r) => r.hasBody && !(r.body as any)?.anyOf?.some((b: any) => b.type === 'null'))),
        body: badBody,
        contentType: fc.constantFrom(
          'application/vnd.api+json',
          'application/vnd.api+json; charset=utf-8',
          'application/json',
          'text/plain',
          'multipart/form-data',
          '',
        ),
        asMember: fc.boolean(),
      })
      .map(({ route, body, contentType, asMember }) => ({
        method: route.method,
        url: fill(route, world, real),
        headers: { authorization: `Bearer ${asMember ? world.memberToken : world.ownerToken}`, ...(contentType ? { 'content-type': contentType } : {}) },
        payload: body,
        why: 'bad body',
      })),
    // The agent protocol (plain JSON): only agent tokens, well-formed bodies, the pool's own agents.
    fc
      .record({
        path: fc.constantFrom('/api/agent/register', '/api/agent/status'),
        auth: fc.oneof(badToken, fc.constantFrom(`Bearer ${world.ownerToken}`, `Bearer ${world.memberToken}`)),
        body: fc.option(badBody),
      })
      .map(({ path, auth, body }) => ({
        method: 'POST',
        url: path,
        headers: { ...(auth ? { authorization: auth } : {}), 'content-type': 'application/json' },
        payload: body ?? undefined,
        why: 'agent endpoint without an agent token',
      })),
    fc
      .record({
        path: fc.constantFrom('/api/agent/register', '/api/agent/status'),
        defect: fc.constantFrom('content type', 'broken json', 'foreign agent', 'bad status'),
      })
      .map(({ path, defect }) => {
        const headers = { authorization: `Bearer ${world.agentToken}`, 'content-type': defect === 'content type' ? 'text/plain' : 'application/json' };
        const payload =
          defect === 'broken json'
            ? '{"name":'
            : defect === 'foreign agent'
              ? JSON.stringify({ id: world.foreignAgentId, status: 'busy', name: 7 })
              : JSON.stringify({ id: world.agentId, status: 'sleeping', name: 7 });
        return { method: 'POST', url: path, headers, payload, why: `agent endpoint, ${defect}` };
      }),
    // Bad pagination parameters on list routes.
    fc
      .record({
        route: fc.constantFrom(...lists),
        key: fc.constantFrom('page[number]', 'page[size]', 'page%5Bnumber%5D'),
        value: fc.constantFrom('0', '-1', 'abc', '1.5', '', '99999999999999999999', '%00'),
      })
      .map(({ route, key, value }) => ({
        method: 'GET',
        url: `${fill(route, world, real)}?${key}=${value}`,
        headers: { authorization: `Bearer ${world.ownerToken}` },
        why: 'bad page parameter',
      })),
  );
}

suite('robustness: malformed requests', (ctx) => {
  it(`answers ${REQUESTS} malformed requests with 4xx JSON:API errors and changes nothing`, { timeout: 300_000 }, async () => {
    const world = await buildWorld(ctx);
    // List routes are those that paginate when asked to; only they read page parameters.
    const lists: RouteEntry[] = [];
    for (const route of ctx.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v2/'))) {
      const url = fill(route, world, (name) => world.params[name]?.own ?? 'unknown');
      const res = await ctx.request('GET', `${url}?page[size]=1`, { token: world.ownerToken });
      if (res.status === 200 && res.body?.meta?.pagination) lists.push(route);
    }
    assert.ok(lists.length >= 3, 'found the list routes');
    const before = await snapshot(ctx);
    const samples = fc.sample(fuzzed(ctx.app.routeTable, world, lists), { numRuns: REQUESTS, seed: Number(process.env.HANGAR_FUZZ_SEED ?? 42) });
    const byStatus = new Map<number, number>();
    for (const r of samples) {
      const res = await ctx.app.inject({ method: r.method as 'GET', url: r.url, headers: r.headers, payload: r.payload });
      byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
      const context = `${r.why}: ${r.method} ${r.url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
      assert.ok(!res.body.includes('fuzz-sensitive-value'), `a sensitive value leaked: ${context}`);
      // A `..` id (`%2e%2e` too) is resolved by the URL parser before routing: the request is
      // another route's (`/organizations/../organization-memberships` is the caller's own list),
      // which may answer it. It still must not fail, leak or change anything (the snapshot below).
      const landed = new URL(r.url, 'http://fuzz.invalid').pathname;
      if (landed !== r.url.split('?')[0] && res.statusCode < 300) continue;
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, context);
      const body = JSON.parse(res.body);
      assert.ok(Array.isArray(body.errors) && body.errors.length > 0, context);
      for (const e of body.errors) {
        assert.equal(e.status, String(res.statusCode), context);
        assert.equal(typeof e.title, 'string', context);
        assert.doesNotMatch(JSON.stringify(e), /\n\s+at |node_modules|\.ts:\d+/, `stack trace leaked: ${context}`);
      }
    }
    assert.equal(await snapshot(ctx), before, 'a malformed request changed the database');
    // The mix really exercised the different answers, not one status throughout.
    for (const status of [400, 401, 404, 415, 422]) assert.ok((byStatus.get(status) ?? 0) > 0, `no ${status} among ${JSON.stringify([...byStatus])}`);
  });
});
